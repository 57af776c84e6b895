//! Fault-tolerant tasks, after FT-TPP (Wang et al. 2016;
//! `../shared/papers.md`, section 5), on libomp's own task queues:
//! buffer-commit dual execution (`DAO_TASK_FT=dual`, described first) and
//! in-place serial execution with an undo log (`DAO_TASK_FT=serial`,
//! `task.rs` `run_serial`). docs/design.md, section 17, has the design; this is the
//! runtime half.
//!
//! For every task entry the pass could replicate it emits a *replica* (the
//! entry and its callees cloned, every load, store, memcpy and memset of
//! memory that is not the function's own stack going through [`load`],
//! [`store`], [`copy`], [`set`]) and a trampoline that takes the entry's
//! place in `__kmpc_omp_task_alloc` and calls [`run_task`]. Off, that runs
//! the original entry. On:
//!
//! 1. the task's private part (everything after the `shareds` and `routine`
//!    words of its `kmp_task_t`: part_id, and the privates and firstprivate
//!    captures that follow) and its shareds block are snapshot;
//! 2. a second libomp task (the replica task, `task.rs` `replica_entry`) is made
//!    from the snapshot and queued with `__kmpc_omp_task`: an idle thread
//!    steals it, or this thread runs it at step 4;
//! 3. this thread runs the replica on the original descriptor;
//! 4. `__kmpc_omp_taskwait` waits for the replica task (the task's only
//!    child: a task that creates tasks is never replicated);
//! 5. the two write buffers are compared; equal, the buffer is written to
//!    memory and the task ends (its dependences are released only then);
//!    different, or an execution that crashed (SIGSEGV, SIGBUS, SIGFPE,
//!    SIGILL: `signals.rs` `on_fault` jumps back to the execution's start) or ran far
//!    past the longest run of its entry so far (a fault that made it loop),
//!    one more execution is queued as a task from the snapshot, until two
//!    executions agree (at most [`MAX_RUNS`]; then the program stops with
//!    an error).
//!
//! An execution writes its own stack (the frames below its start) and its
//! own task descriptor and shareds block directly; every other write goes to
//! its buffer, and its reads see its buffered writes. The stack test is an
//! address range (the frames of this execution lie between the hook's frame
//! and the execution's start), so a shared variable in the frame of the task
//! that created this one is buffered even when both run on this thread.
//!
//! The jump out of a crashed execution is a hand-written setjmp/longjmp pair
//! (x86-64 only; elsewhere a crash in a replica kills the process as
//! before): the frames it skips are the replica's (C) and the hooks' (no
//! destructors, no locks held while program memory is touched).
//!
//! One concept per file, references going one way (each file names only
//! files listed before it):
//!
//! - `words.rs`: the word table (buffered words by address) and the
//!   process-wide counters of buffered words, `dao_ft_words`;
//! - `buffer.rs`: an execution's write buffer (dual mode);
//! - `undo.rs`: an execution's undo log and trace (serial mode);
//! - `faults.rs`: fault injection, `DAO_TASK_FAULTS`;
//! - `signals.rs`: the handlers of synchronous signals and the protected
//!   call, the setjmp/longjmp pair in assembly;
//! - `counters.rs`: the counters and the summary at exit;
//! - `exec.rs`: one execution, run under the protected call;
//! - `hooks.rs`: the hooks the replica calls for its memory accesses;
//! - `task.rs`: the task driver (snapshot, executions, agreement, commit).
//!
//! `unsafe` here, each use with its SAFETY comment: program memory through
//! the replica's pointers (`hooks.rs`; `buffer.rs` commit, `undo.rs`
//! record/undo), the task descriptor (`exec.rs`, `task.rs`), libomp's task
//! calls (`task.rs`, through `crate::omp::libomp`), the signal handlers and
//! the jump (`signals.rs`, and `exec.rs` where an execution is left).
mod buffer;
mod counters;
mod exec;
mod faults;
mod hooks;
mod signals;
mod task;
mod undo;
mod words;

pub use hooks::{copy, load, set, store};
pub use task::{enabled, run_task, setup, summary, MAX_RUNS};
pub use words::dao_ft_words;
