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
