//! MPI programs (issue #17): what the runtime knows about the program's MPI
//! traffic and objects, the collectives of coordinated checkpoints, and
//! (in the layers above) the PMPI wrappers and the restart agreement.
//!
//! The PMPI layer (wrap.rs: the program's `MPI_*` calls and Open MPI's
//! Fortran `mpi_*_` symbols, defined in libdao_rt.a, which `dao mpicc` links
//! before `-lmpi`) reports point-to-point traffic and pending requests
//! (traffic.rs), the creation of communicators, datatypes and reduction
//! operations (log.rs, the *creation log* a restart replays) and calls dao
//! cannot follow (traffic.rs: the first one turns coordinated checkpoints
//! off with a warning).
//!
//! One file per concept, each using only the files listed before it:
//!
//! | file | concept |
//! |---|---|
//! | sym.rs | the `pmpi!` lookup of MPI functions and Open MPI's predefined objects (`dlsym`) |
//! | world.rs | the job: dao's MPI_Init, rank, size, dao's communicator, the timeout |
//! | traffic.rs | the program's messages, pending requests, calls not followed |
//! | collectives.rs | dao's collectives: the look at a candidate, the commit agreement, min/max/gather |
//! | transfers.rs | point-to-point transfers of partner copies, blocking and asynchronous |
//! | naming.rs | the job's directories, `rank.NNNN`, the sidecar's name, the partner shift |
//! | log.rs | the creation log: the sidecar's text, its parsing, the replay and the handle translation |
//! | restart.rs | which version a restarted job resumes (layer "drivers": `mpi::restart`) |
//! | wrap.rs | the PMPI wrappers (layer "C boundary": `mpi::wrap`) |
//!
//! This file only declares them and re-exports the foundation's items, so
//! that the rest of the runtime names them as `crate::mpi::x`; restart.rs
//! and wrap.rs are listed in lib.rs's layers on their own (`mpi::restart`,
//! `mpi::wrap`) and nothing here names them.
mod collectives;
mod log;
mod naming;
mod sym;
mod traffic;
mod transfers;
mod world;

pub mod restart;
pub mod wrap;

pub(crate) use self::sym::pmpi;
pub use self::collectives::{agree, allgather, allgather_str, bcast_u64, look, max_u64, min_u64, take_collective_s, Look};
pub use self::log::{created, log_text, parse_log, replay, Entry, HandleMap, Log};
pub use self::naming::{job, node_name, partner_shift, rank_dir_name, set_job, sidecar_name, Job};
pub use self::sym::{comm_world, lookup, request_null, resolve, H, PROC_NULL, THREAD_FUNNELED};
pub use self::traffic::{completed_c, completed_f, note_recv, note_send, pending_c, pending_f, unfollowed, unfollowed_call, Kind};
pub use self::transfers::{partner_pending, transfer, AsyncTransfer};
pub use self::world::{coordinated, finalize_for_exit, finalizing, initialised_by_dao, prefix, provided, rank, size, start, stop, World};
