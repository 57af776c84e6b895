//! `single` constructs.
//!
//! libomp gives a `single` to the first thread that arrives, counting
//! constructs per thread and per team. A worker may have run single instance
//! n (and be parked at its barrier) while the master, at a candidate, has not
//! reached it yet. After a restart the team is new: the master would win
//! instance n again and run its body twice. So the pass routes
//! `__kmpc_single` here: every thread counts its instances in the region;
//! a checkpoint records the highest instance some thread had won and each
//! thread's count; after a restart an instance already won returns 0 (the
//! body is skipped) without entering libomp, which leaves libomp's counters
//! equal in all threads of the new team.
use std::sync::atomic::{AtomicU64, Ordering::*};

use super::libomp;
use super::region::{self, MAX_THREADS};

/// `single` instances each thread (by thread number) has encountered in
/// the region.
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static COUNTS: [AtomicU64; MAX_THREADS] = [ZERO; MAX_THREADS];
/// Highest single instance won in the current region.
static SINGLE_WON: AtomicU64 = AtomicU64::new(0);
/// After a restart inside a region: instances up to this one were won before.
static SKIP_SINGLES: AtomicU64 = AtomicU64::new(0);
/// At restart: (singles_won, per-thread counts) for the region being
/// resumed, until its fork.
type PendingSingles = Option<(u64, Vec<(u32, u64)>)>;
static PENDING_SINGLES: std::sync::Mutex<PendingSingles> = std::sync::Mutex::new(None);
/// The per-thread counts of the region being resumed, taken at its fork;
/// each thread takes its own at its entry.
static RESUMING: std::sync::Mutex<Vec<(u32, u64)>> = std::sync::Mutex::new(Vec::new());
/// `RESUMING` is not empty (the fast path of every region entry).
static RESUMING_ANY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// At an instrumented fork, before the team exists: the threads `0..used`
/// of the last team count from 0 again; nothing was won, except, for the
/// region a restart resumes (the first fork after the restart), the
/// instances won before its checkpoint. That bound is published here,
/// before any thread of the new team runs: a worker resumed at a candidate
/// may reach the next `single` before the master has entered the region
/// (when thread 0 published it at its own entry, such a worker won an
/// instance already run and printed a line twice: campaign,
/// `nowait_marker`, 1 restart in 100). Counts of threads that never
/// entered (a smaller team) are dropped at the next fork.
pub(crate) fn reset(used: usize) {
    for c in &COUNTS[..used] {
        c.store(0, Relaxed);
    }
    SINGLE_WON.store(0, Relaxed);
    let pending = PENDING_SINGLES.lock().unwrap_or_else(|e| e.into_inner()).take();
    let (won, counts) = pending.unwrap_or_default();
    SKIP_SINGLES.store(won, Release);
    let mut r = RESUMING.lock().unwrap_or_else(|e| e.into_inner());
    RESUMING_ANY.store(!counts.is_empty(), Release);
    *r = counts;
}

/// At restart (startup.rs): the single-construct state of the region that
/// holds the checkpoint.
pub fn set_pending_singles(won: u64, counts: Vec<(u32, u64)>) {
    if won > 0 || counts.iter().any(|c| c.1 > 0) {
        *PENDING_SINGLES.lock().unwrap_or_else(|e| e.into_inner()) = Some((won, counts));
    }
}

/// At a thread's region entry (restart): its saved count (the bound of
/// instances already won was published at the fork, `reset`).
pub(crate) fn restore_singles(t: u32) {
    if !RESUMING_ANY.load(Acquire) {
        return;
    }
    let mut counts = RESUMING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = counts.iter().position(|c| c.0 == t) {
        COUNTS[t as usize].store(counts.swap_remove(i).1, Relaxed);
    }
    if counts.is_empty() {
        RESUMING_ANY.store(false, Release);
    }
}

/// `__kmpc_single`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_single.
pub unsafe fn single(ident: *mut libc::c_void, gtid: i32) -> i32 {
    let real = libomp::single_fn();
    let t = region::tid();
    let Some(s) = usize::try_from(t).ok().and_then(|t| COUNTS.get(t)).filter(|_| region::depth() == 1) else {
        // SAFETY: forwarded.
        return unsafe { real(ident, gtid) };
    };
    let n = s.load(Relaxed) + 1;
    s.store(n, Relaxed);
    if n <= SKIP_SINGLES.load(Acquire) {
        return 0;
    }
    // SAFETY: forwarded.
    let r = unsafe { real(ident, gtid) };
    if r != 0 {
        SINGLE_WON.fetch_max(n, AcqRel);
    }
    r
}

/// Single instances thread `t` has encountered in the region.
pub fn singles_of(t: u32) -> u64 {
    COUNTS.get(t as usize).map_or(0, |s| s.load(Acquire))
}

/// The highest instance won before the checkpoint taken now.
pub(crate) fn won() -> u64 {
    SINGLE_WON.load(Acquire).max(SKIP_SINGLES.load(Acquire))
}

/// A `single` that reaches a checkpoint marker, run by the team's thread 0
/// (the pass routes its `__kmpc_single` here): 1 there, 0 elsewhere. libomp
/// is not entered, so its per-thread construct counters stay equal in
/// every thread; the instance counts above are not touched either (a
/// restart inside the block puts thread 0 back into it through its frame).
pub fn master_single() -> i32 {
    (libomp::thread_num() == 0) as i32
}
