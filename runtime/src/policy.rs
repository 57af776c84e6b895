//! When a candidate becomes a checkpoint: the fast path of dao_candidate.
//!
//! Everything is in atomics read with Relaxed ordering: the decision is made
//! on the thread reaching the candidate, and only the main thread takes
//! checkpoints for now. With DAO_EVERY the cost is an increment and a
//! modulo; with an interval, one vDSO clock read.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::config::Policy;

/// Checkpointing is enabled (DAO_DIR set and usable).
pub static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Candidates reached by the run (carried across restarts).
pub static CANDIDATES: AtomicU64 = AtomicU64::new(0);
static EVERY: AtomicU64 = AtomicU64::new(0);
static INTERVAL_NS: AtomicU64 = AtomicU64::new(u64::MAX);
static NEXT_DUE_NS: AtomicU64 = AtomicU64::new(u64::MAX);

/// Monotonic time in nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub fn install(p: Policy) {
    match p {
        Policy::Every(n) => EVERY.store(n, Relaxed),
        Policy::Interval(s) => {
            EVERY.store(0, Relaxed);
            INTERVAL_NS.store((s * 1e9) as u64, Relaxed);
        }
    }
    rearm();
}

/// Starts a new interval (after a checkpoint, at start and at restart).
pub fn rearm() {
    let i = INTERVAL_NS.load(Relaxed);
    NEXT_DUE_NS.store(now_ns().saturating_add(i), Relaxed);
}

/// Counts a candidate and says whether it is due.
#[inline]
pub fn candidate_due() -> bool {
    let n = CANDIDATES.fetch_add(1, Relaxed) + 1;
    match EVERY.load(Relaxed) {
        0 => now_ns() >= NEXT_DUE_NS.load(Relaxed),
        e => n % e == 0,
    }
}
