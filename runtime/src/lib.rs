//! dao runtime (`libdao_rt.a`): linked into programs instrumented by the dao
//! pass. It implements the C ABI of `include/dao_abi.h` (entry.rs): the
//! fixed-address heap (heap.rs) and stack (stack.rs), the per-thread frame
//! chain and its lazy restoration (chain.rs), OpenMP teams (omp/), the team
//! checkpoint protocols (protocol/, with its README.md), checkpoint
//! collection and writing (collect.rs, checkpoint.rs, storage.rs,
//! background.rs: the forked background writer) and the
//! restart at startup (startup.rs). The model and the environment contract
//! are in README.md; every environment variable is read in config.rs.
//!
//! `unsafe` is confined to entry.rs (the C boundary), desc.rs (descriptor and
//! program-memory access), heap.rs, stack.rs, libc_alloc.rs and wrap.rs
//! (allocation), omp/ (libomp through dlsym, the `pthread_create`
//! override), protocol/ (the lifetime-erased shared job), and small libc
//! calls in stdio.rs, identity.rs, policy.rs, diag.rs, checkpoint.rs,
//! modules.rs and background.rs (fork, pipe, waitpid), task_ft/
//! (fault-tolerant tasks: program memory through the replica's pointers,
//! libomp's task calls, the signal handler and its setjmp/longjmp pair in
//! assembly; task_ft/mod.rs lists where), and MPI: mpi.rs
//! (Open MPI's functions, found with dlsym) and mpi_wrap.rs (the PMPI layer).
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
//! 1. foundation: abi, identity, stdio, diag, libc_alloc, stats, config, heap, desc, modules, files, libc_state, process, placement, policy, mpi
//! 2. session: session
//! 3. threads and frames: omp, chain, stack
//! 4. collection: collect
//! 5. team protocol: protocol, task_ft
//! 6. storage: storage, background
//! 7. drivers: checkpoint, profile, mpi_restart, startup
//! 8. C boundary: entry, wrap, mpi_wrap

pub mod abi;
pub mod background;
pub mod chain;
pub mod checkpoint;
pub mod collect;
pub mod config;
pub mod desc;
pub mod diag;
pub mod entry;
pub mod files;
pub mod heap;
pub mod identity;
pub mod libc_alloc;
pub mod libc_state;
pub mod modules;
pub mod mpi;
pub mod mpi_restart;
pub mod mpi_wrap;
pub mod omp;
pub mod placement;
pub mod policy;
pub mod process;
pub mod profile;
pub mod protocol;
pub mod session;
pub mod stack;
pub mod startup;
pub mod stats;
pub mod stdio;
pub mod storage;
pub mod task_ft;
pub mod wrap;
