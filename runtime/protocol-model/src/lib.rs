//! Models of the runtime's thread handshakes, checked with `loom` (every
//! interleaving and every weak-memory outcome loom can produce, within a
//! preemption bound). Run: `cargo test --release -p dao-protocol-model`.
//! README.md (this crate) says what is modelled and how.
//!
//! The handshakes are the runtime's own code: this crate compiles
//! `runtime/src/protocol/handshake.rs` and `sync.rs` (module [`handshake`])
//! with `cfg(loom)` (set by build.rs), so their atomics are loom's, and
//! each model creates a fresh instance of the protocol state per execution
//! (the runtime keeps one in statics). What the models add around that
//! code is the program: markers, barriers, guards, shared writes, locks,
//! and the checks.
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
#[path = "../../src/protocol/sync.rs"]
mod sync;

/// The runtime's `protocol::handshake` (runtime/src/protocol/handshake.rs),
/// compiled against loom.
#[path = "../../src/protocol/handshake.rs"]
pub mod handshake;

pub mod gather;
pub mod nonblocking;
pub mod share;
