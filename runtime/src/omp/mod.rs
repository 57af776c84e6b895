//! OpenMP teams as the runtime sees them, one concept per file:
//!
//! - `libomp.rs`: libomp reached through `dlsym` (programs without OpenMP
//!   do not need it at link time), the master's ICVs;
//! - `libomp.rs` also owns every `__kmpc_*` entry name, its C function
//!   type and the `kmp_task_t` / `ident_t` layouts (entry.rs, singles.rs
//!   and task_ft/ call libomp through it);
//! - `region.rs`: where a thread stands: the depth of instrumented forks,
//!   each thread's number in the region (read by singles.rs and tasks.rs);
//! - `team.rs`: the current team: forks, joins and region entries, team
//!   size, the ICVs at the fork, the OpenMP state a checkpoint records;
//! - `threads.rs`: the thread that runs `main`, and worker stacks at fixed
//!   addresses (the `pthread_create` override);
//! - `tls.rs`: threadprivate (thread-local) values, published per worker
//!   and put back at restart;
//! - `tp.rs`: flang's threadprivate variables (`__kmpc_threadprivate_cached`):
//!   the workers' copies in a fixed-address arena, saved per worker and
//!   given back at the same addresses at restart;
//! - `singles.rs`: `single` constructs counted per thread, so that a
//!   restarted team does not run a won instance again;
//! - `tasks.rs`: explicit tasks in flight (created, not finished): a
//!   checkpoint inside a region waits until there are none.
//!
//! Within this directory, references go one way: libomp.rs, region.rs and
//! threads.rs at the bottom; singles.rs, tasks.rs, tls.rs and tp.rs above
//! them; team.rs on top (it calls the others at forks and region entries).
//!
//! The checkpoint rounds (blocking and non-blocking), their per-thread
//! slots and distributed saving are in `crate::protocol` (with its
//! README.md), one layer up: they use this module, not the reverse.
pub mod libomp;
pub mod region;
pub mod singles;
pub mod tasks;
pub mod team;
pub mod threads;
pub mod tls;
pub mod tp;

pub use libomp::{apply_icvs, icvs};
pub use singles::{set_pending_singles, single, singles_of};
pub use region::{in_region, tid, MAX_THREADS};
pub use team::state_for_checkpoint;
pub use threads::{create_thread, is_main_thread, set_main_thread};
pub use tls::{main_thread_start, set_pending_master, set_pending_tls, tls_here, tls_threads, worker_tls, write_tls, TlsRef};
