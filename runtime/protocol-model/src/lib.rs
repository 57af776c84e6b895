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
//! - [`nonblocking`]: the non-blocking round: a worker checks in at a
//!   marker (snapshot, `checked = r`) and keeps running, a guard before
//!   shared writes and lock acquisitions holds it until the master has
//!   saved (`done >= r`); parked workers are claimed, exited ones saved at
//!   their end. Checks freedom from deadlock and data races and that the
//!   save is a consistent cut, with one and two workers; its waits are
//!   bounded (its "Bounds" section), which lets loom finish models with
//!   three threads.
pub mod gather;
pub mod nonblocking;
pub mod share;
