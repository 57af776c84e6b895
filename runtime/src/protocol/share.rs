//! Distributed saving: the master shares the writing of a checkpoint with
//! the workers stopped for it. The handshake (a Dekker pair) is
//! `handshake::Share`; this file gives it the runtime's job type and wait.
use super::{handshake, spin};

/// The work the master shares while it writes a checkpoint.
struct Job {
    /// Lifetime-erased `&(dyn Fn() + Sync)`; valid while `SHARE.job` points
    /// here and until `SHARE.users` drops to 0 after `job` is cleared.
    run: *const (dyn Fn() + Sync + 'static),
}

/// `JOB` (points to a `Job` on the master's stack; null: none) and
/// `JOB_USERS` (workers that may be using it right now).
static SHARE: handshake::Share<Job> = handshake::Share::new();

/// The master, with the team stopped: runs `work` on this thread and on
/// every worker stopped at a candidate (those waiting in a barrier or in
/// the region's end are inside libomp and cannot help). `work` must divide
/// itself (each call claims pieces until none are left). Returns when every
/// call of `work` has returned (the safety argument is at
/// `handshake::Share`; model-checked in runtime/protocol-model).
pub fn share_work(work: &(dyn Fn() + Sync)) {
    // SAFETY: only the lifetime is erased; the pointer is dereferenced only
    // by workers between their increment of `users` and the decrement,
    // and `share` returns only after `job` is null and `users` is 0.
    let run: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(work as *const (dyn Fn() + Sync + '_)) };
    let job = Job { run };
    let _ = SHARE.share(&job, work, spin);
}

/// A stopped worker: runs the shared job if there is one. True if it did.
pub(super) fn help() -> bool {
    // SAFETY: see share_work.
    SHARE.help(|j| unsafe { (*j.run)() })
}
