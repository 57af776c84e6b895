//! dao runtime (`libdao_rt.a`): linked into programs instrumented by the dao
//! pass. It implements the C ABI of `include/dao_abi.h` (entry.rs): the
//! fixed-address heap (heap.rs) and stack (stack.rs), the per-thread frame
//! chain and its lazy restoration (chain.rs), OpenMP teams (omp/), the team
//! checkpoint protocols (protocol/, with its README.md), checkpoint
//! collection (collect.rs), taking one (checkpoint.rs: whether and what,
//! handed as an image, image.rs, to the writer chosen for it, writer.rs:
//! in the program, by the team, forked (background.rs: the background
//! writer), the storage engine (storage.rs) or an MPI job's storage levels,
//! levels.rs), MPI (mpi/, with a table of its files), batch systems'
//! signals and deadline (batch.rs: the handler and the decisions;
//! stop.rs: the checkpoint they ask for and the exit after it) and the
//! restart at startup (startup.rs). The model and the environment contract
//! are in README.md; every environment variable is read in config.rs.
//!
//! `unsafe` is confined to entry.rs (the C boundary), desc.rs (descriptor and
//! program-memory access), heap.rs, stack.rs, libc_alloc.rs and wrap.rs
//! (allocation, the link-time wraps), files/ (libc's stream and descriptor
//! calls, the FILE rebuilt at its address), omp/ (libomp through dlsym:
//! omp/libomp.rs, the `pthread_create` override), protocol/ (the
//! lifetime-erased shared job), small libc calls in stdio.rs, identity.rs,
//! policy.rs, auto_mode.rs (the affinity mask), diag.rs, modules.rs, collect.rs, libc_state.rs, process.rs,
//! batch.rs (the signal handler, sigaction, the futex), stop.rs (`_exit`),
//! offload/ (libomptarget through dlsym: offload/tgt.rs, and the C
//! boundary of its routed entry points, offload/entry.rs),
//! profile.rs and background.rs (fork, pipe, waitpid), task_ft/
//! (fault-tolerant tasks: program memory through the replica's pointers,
//! libomp's task calls, the signal handler and its setjmp/longjmp pair in
//! assembly; task_ft/mod.rs lists where), and MPI: mpi/ (Open MPI's
//! functions, found with dlsym: mpi/sym.rs, and called in the files beside
//! it; mpi/wrap.rs, the PMPI layer).
//!
//! # Layers
//!
//! The modules form layers, bottom first. A module uses (names as
//! `crate::m`) only modules listed before it: lower layers, or earlier on
//! its own line. Upper layers reach lower ones by calls; lower layers get
//! what they need from above as arguments (e.g. `collect::Stopped` is
//! built by the protocol, the session holds the storage engine as `Any`).
//! `tests/layers.rs` parses this list and fails on any other reference.
//!
//! An entry `m` is the module's files: `m.rs`, or `m/` with everything in
//! it. An entry `m::s` takes the submodule `s` of a directory module (`m/s.rs`
//! or `m/s/`) out of `m` into a layer of its own: `mpi` is the foundation
//! (the MPI calls, the job, the traffic, the collectives, the creation
//! log), while its restart agreement (`mpi::restart`) is a driver and its
//! PMPI wrappers (`mpi::wrap`) are C boundary. A reference (`crate::a::b`,
//! or `super::b` / `self::b` resolved from the file's own module path) counts
//! for the longest entry that is a prefix of it, so `mpi` names neither
//! `mpi::restart` nor `mpi::wrap`, and they name `mpi` freely. Within a
//! directory module the files are ordered too (mpi/mod.rs has the table):
//! no two files reference each other, directly or through others (for the
//! files of every crate: the workspace test tests/tests/structure.rs).
//!
//! 1. foundation: abi, identity, stdio, cxx, diag, libc_alloc, stats, config, heap, release, ranges, desc, reachable, heap_objects, modules, files, libc_state, process, placement, batch, auto_mode, policy, mpi
//! 2. session: session
//! 3. threads and frames: omp, chain, stack, offload
//! 4. collection: collect
//! 5. team protocol: protocol, task_ft
//! 6. storage: image, storage, report, background, levels, writer
//! 7. drivers: checkpoint, stop, profile, mpi::restart, startup
//! 8. C boundary: entry, wrap, mpi::wrap, offload::entry

pub mod abi;
pub mod auto_mode;
pub mod background;
pub mod batch;
pub mod chain;
pub mod checkpoint;
pub mod collect;
pub mod config;
pub mod cxx;
pub mod desc;
pub mod diag;
pub mod entry;
pub mod files;
pub mod heap;
pub mod heap_objects;
pub mod identity;
pub mod image;
pub mod levels;
pub mod libc_alloc;
pub mod libc_state;
pub mod modules;
pub mod mpi;
pub mod offload;
pub mod omp;
pub mod placement;
pub mod policy;
pub mod process;
pub mod profile;
pub mod protocol;
pub mod ranges;
pub mod reachable;
pub mod release;
pub mod report;
pub mod session;
pub mod stack;
pub mod startup;
pub mod stop;
pub mod stats;
pub mod stdio;
pub mod storage;
pub mod task_ft;
pub mod wrap;
pub mod writer;
