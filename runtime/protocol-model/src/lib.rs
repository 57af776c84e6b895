//! Models of the runtime's thread handshakes, checked with `loom` (every
//! interleaving and every weak-memory outcome loom can produce, within a
//! preemption bound). Run: `cargo test --release -p dao-protocol-model`.
//!
//! The runtime's own code keeps its state in statics (one team per
//! process), which loom cannot instantiate per execution, so each model
//! restates one handshake of `runtime/src/omp.rs` with the same states,
//! the same atomic operations and the same memory orderings, in a struct
//! loom can create. The correspondence is by name; a change to a handshake
//! in omp.rs must be made here too (the protocol README says so).
//!
//! - [`gather`]: the blocking checkpoint round: a worker stops at a
//!   candidate (CANDIDATE) or is claimed while it waits in a barrier the
//!   master has not reached (PARKED -> CLAIMED), the master saves, releases
//!   (DONE), the barrier completes, the worker leaves it (PARKED ->
//!   RUNNING, waiting while CLAIMED).
//! - [`share`]: distributed saving: the master hands its writing job to
//!   stopped workers (JOB pointer + JOB_USERS count, SeqCst Dekker pair)
//!   and must not return while a worker can still touch the job.
pub mod gather;
pub mod share;
