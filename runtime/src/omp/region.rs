//! Where a thread stands in the instrumented parallel region: the depth of
//! instrumented forks on the main thread and each thread's number in the
//! region. The bottom of the team's state: `team.rs` moves it at forks,
//! joins and region entries; `singles.rs` and `tasks.rs` only read it.
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering::*};

/// Threads per team the runtime tracks (a larger team is a fatal error).
pub const MAX_THREADS: usize = 256;

/// Depth of instrumented forks on the main thread (1: inside a region).
static DEPTH: AtomicU32 = AtomicU32::new(0);

thread_local! {
    /// This thread's number in the current instrumented region, -1 outside.
    static TID: Cell<i32> = const { Cell::new(-1) };
    /// Held regions the calling thread is in (`dao_omp_hold_begin`) and the
    /// position of the outermost one's dynamic loop.
    static HOLD: Cell<(u32, *const std::ffi::c_char)> = const { Cell::new((0, std::ptr::null())) };
}

/// The calling thread enters a held region: one that runs a worksharing
/// loop with a dynamic, guided, runtime or ordered schedule and reaches
/// markers only through code of other files. Which chunks such a loop has
/// handed out lives in libomp, which a restart cannot put back, and a
/// thread may be inside or past the loop while another stands at a
/// candidate; so no checkpoint is taken while the team's master is inside
/// one (the master decides every checkpoint of a region,
/// protocol/README.md), and the due one is taken at the next candidate
/// after it.
pub fn hold_begin(at: *const std::ffi::c_char) {
    HOLD.with(|h| {
        let (n, w) = h.get();
        h.set((n + 1, if n == 0 { at } else { w }));
    });
}

/// The calling thread leaves a held region.
pub fn hold_end() {
    HOLD.with(|h| {
        let (n, w) = h.get();
        h.set((n.saturating_sub(1), if n <= 1 { std::ptr::null() } else { w }));
    });
}

/// The master's candidates inside held regions, and how many of them were
/// due (DAO_STATS's `held_regions` event at exit).
static HELD: [std::sync::atomic::AtomicU64; 2] = [std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0)];

/// Counts a candidate of the master inside a held region.
pub fn count_held(due: bool) {
    HELD[0].fetch_add(1, Relaxed);
    if due {
        HELD[1].fetch_add(1, Relaxed);
    }
}

/// (candidates, due ones) inside held regions so far.
pub fn held_counts() -> (u64, u64) {
    (HELD[0].load(Relaxed), HELD[1].load(Relaxed))
}

/// Whether the calling thread is inside a held region, and where its loop is.
pub fn held() -> Option<String> {
    let (n, w) = HOLD.with(|h| h.get());
    (n > 0).then(|| crate::desc::opt_name(w).map_or_else(|| "?".to_string(), |s| s.into_owned()))
}

/// Whether the main thread is inside an instrumented parallel region.
pub fn in_region() -> bool {
    DEPTH.load(Acquire) == 1 && TID.with(|t| t.get()) == 0
}

/// Whether any thread is inside an instrumented parallel region now.
pub fn region_open() -> bool {
    DEPTH.load(Acquire) >= 1
}

/// The calling thread's number in the current region (-1 outside).
pub fn tid() -> i32 {
    TID.with(|c| c.get())
}

/// Depth of instrumented forks on the main thread.
pub(crate) fn depth() -> u32 {
    DEPTH.load(Acquire)
}

/// An instrumented fork on the main thread: the depth before it.
pub(super) fn deeper() -> u32 {
    DEPTH.fetch_add(1, AcqRel)
}

/// An instrumented fork on the main thread returned: the depth before.
pub(super) fn shallower() -> u32 {
    DEPTH.fetch_sub(1, AcqRel)
}

/// The calling thread entered the region as thread `t`.
pub(super) fn set_tid(t: i32) {
    TID.with(|c| c.set(t));
}

/// The calling thread leaves the region: the number it had (-1: none).
pub(super) fn take_tid() -> i32 {
    TID.with(|c| c.replace(-1))
}
