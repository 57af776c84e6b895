//! Files the program keeps open across a checkpoint (issue #31).
//!
//! `dao cc`/`dao fc` link with `--wrap` for `fopen`, `fdopen`, `freopen`,
//! `fclose`, `open`, `openat`, `creat`, `close`, `dup` and `dup2` (and
//! their 64-bit and fortified names): each wrapper calls libc (found with
//! `dlsym`) and records, in a table of the runtime, what the program opened:
//! descriptor, path resolved against the working directory of that moment,
//! open flags, and for a stdio stream its `FILE *` and mode.
//!
//! **The `FILE *` values stay valid.** glibc allocates a stream's `FILE`
//! with `malloc`, which libc calls through its own symbol table: the
//! executable's `malloc` (below) interposes it, forwarding to glibc, except
//! while a wrapped `fopen`/`fdopen` runs, when it allocates in the dao heap
//! at fixed addresses. At a restart the runtime opens each file again on its
//! descriptor number and calls `fdopen` with the next allocation sent to the
//! stream's old address: glibc builds a fresh `FILE` exactly where the
//! program's pointers expect it.
//!
//! **At a checkpoint** (after stdio is flushed) each entry records its
//! position (`ftello` for a stream: the logical position, before what it
//! read ahead; `lseek` for a descriptor), the file's size, modification
//! time and identity. The table is serialised into a dao-heap block that the
//! runtime's module (process.rs) points to, so it is in every checkpoint.
//!
//! **At a restart**, before the program goes on, every file is checked
//! first, then put back: a file the program wrote must still exist, be a
//! regular file and be at least as long as at the checkpoint; it is cut back
//! to that length (what was written after the checkpoint is written again,
//! not twice) and reopened without truncation at the recorded position
//! (append mode reopens in append mode). A file only read must be unchanged
//! (same size and modification time). Any difference stops the restart
//! before anything runs, with the file and what differs; nothing is changed
//! then. DMTCP restores descriptors and offsets but leaves the output
//! written after the checkpoint in place (written twice in append mode);
//! CRIU refuses a restore when a size differs; we cut written files back,
//! as dao already does for stdout.
//!
//! **Refused, with a warning naming the file, at each checkpoint while it
//! is open** (the run goes on, the checkpoint is not taken): pipes, sockets
//! and other descriptors that are not regular files or character devices;
//! and, in a program linked with the Fortran runtime, Fortran units other
//! than output units at their file's end (`funit.rs`: those are opened
//! again through flang's OPEN at a restart); the state of a unit being
//! read (record position, buffers) lives in flang's runtime, which dao
//! cannot restore yet.
//!
//! One concept per file, each naming only files listed before it:
//!
//! - `real.rs`: libc past the link-time wraps (`real!`, also used by
//!   wrap.rs);
//! - `alloc.rs`: where glibc's stream allocations go (the interposed
//!   `malloc` & co.);
//! - `journal.rs`: the written paths and `DAO_DIR/files.journal`;
//! - `funit.rs`: Fortran units held open, found with INQUIRE and opened
//!   again through flang's I/O API;
//! - `table.rs`: the table of open files, kept by the wrapped calls;
//! - `refuse.rs`: what a checkpoint refuses while it is open or alive;
//! - `snapshot.rs`: the state at a checkpoint and its encoding;
//! - `restore.rs`: the checks and the rebuild at a restart.
mod alloc;
mod funit;
mod journal;
pub(crate) mod real;
mod refuse;
mod restore;
mod snapshot;
mod table;

pub use alloc::{calloc, free, in_dao_heap, malloc, realloc};
pub use journal::set_journal;
pub(crate) use real::real;
pub use refuse::{cannot_restore, note_child, note_mapping, note_unmapping};
pub use restore::{check, check_written, cut_back_unfinished, reopen, restore};
pub use snapshot::{decode, encode, snapshot, Written, SAVE_MAX};
pub use table::{close, dup, dup2, fclose, fdopen, fopen, freopen, note_fd, note_unreopenable, open, pclose, popen, Entry, Saved};
