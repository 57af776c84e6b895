//! The team checkpoint protocols (blocking and non-blocking rounds) and
//! distributed saving. Written down in README.md (this directory); read it
//! first. In short:
//!
//! - The pass calls `dao_omp_fork`/`dao_omp_join` around every fork of a
//!   region that reaches a marker, `dao_omp_begin`/`dao_omp_end` at entry and
//!   exit of the outlined function on every thread, and
//!   `dao_omp_park`/`dao_omp_unpark` around every barrier in parallel code
//!   on a marker path (the functions of this file, entry.rs forwards them).
//! - Only the main thread (the master of the outermost team) decides to
//!   checkpoint. Inside a region it starts a *round*: it raises
//!   `dao_omp_request`, which every marker in parallel code reads, and waits
//!   until each other thread of the team is *stopped*: at a candidate (it
//!   saw the request and waits in the runtime), at a barrier the master has
//!   not reached (it is blocked there until the master arrives), or finished
//!   with its part of the region. Then it writes the checkpoint with every
//!   thread's chain and releases the round (`master.rs`; a worker's side:
//!   `worker.rs`).
//! - Non-blocking rounds (`DAO_PROTOCOL=nonblocking`, the default when every
//!   module was compiled with guards): a worker at its marker copies its
//!   private state, *checks in* and goes on running; the guards the pass
//!   puts before shared writes and lock acquisitions make a checked-in
//!   worker wait until the master has saved the shared state.
//! - Distributed saving (`share.rs`): stopped workers help the master write.
//!
//! The handshakes themselves (every atomic operation and its ordering) are
//! in `handshake.rs`, on an instance of the protocol state that this file keeps
//! in statics and `runtime/protocol-model` creates per loom execution;
//! `sync.rs` picks std's or loom's atomics.
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicU8, Ordering::*};
use std::time::{Duration, Instant};

use crate::abi::{DaoFrame, DaoFuncDesc};
use crate::desc::FrameView;
use crate::omp::{self, MAX_THREADS};

pub mod handshake;
mod master;
mod share;
pub mod sync;
mod worker;

pub use master::with_team_stopped;
pub use share::share_work;
pub use worker::{guard_wait, worker_stop};

/// Read by every marker in parallel code (one relaxed byte load): non-zero
/// while the master gathers its team for a checkpoint.
#[no_mangle]
pub static dao_omp_request: AtomicU8 = AtomicU8::new(0);

/// Read by the guards the pass puts before every write that may touch
/// shared data (and every lock acquisition) in code that may run in a
/// team (one acquire byte load): non-zero from the start of a non-blocking
/// round until its shared state is saved.
#[no_mangle]
pub static dao_omp_guard: AtomicU8 = AtomicU8::new(0);

/// The runtime's flags: the two exported statics.
struct Exported;

impl handshake::Flags for Exported {
    #[inline(always)]
    fn request(&self) -> &AtomicU8 {
        &dao_omp_request
    }
    #[inline(always)]
    fn guard(&self) -> &AtomicU8 {
        &dao_omp_guard
    }
}

/// The protocol state of the team (`ROUND`, `DONE`, `MASTER_SYNCS`, the
/// current round's kind; README.md's names).
static TEAM: handshake::Team<Exported> = handshake::Team::new(Exported);

/// One thread of the current team (indexed by omp_get_thread_num()).
struct Slot {
    /// The handshake's part (handshake.rs).
    p: handshake::Slot<DaoFrame>,
    /// EXITED: the outlined function's descriptor (its frame is gone).
    func: AtomicPtr<DaoFuncDesc>,
    /// Non-blocking: the snapshot of the round this worker has checked in
    /// for (published by its `checked`).
    snap: std::sync::Mutex<Option<crate::collect::Snapshot>>,
    /// Time this thread spent stopped for checkpoints (ns): waiting at a
    /// candidate (blocking), copying its state and waiting at guards
    /// (non-blocking), gathering and saving (the master).
    stop_ns: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const SLOT: Slot = Slot { p: handshake::Slot::new(), func: AtomicPtr::new(std::ptr::null_mut()), snap: std::sync::Mutex::new(None), stop_ns: AtomicU64::new(0) };
static SLOTS: [Slot; MAX_THREADS] = [SLOT; MAX_THREADS];

/// Rounds inside regions are non-blocking (set once at start, config.rs).
static NONBLOCKING: AtomicBool = AtomicBool::new(false);
/// DAO_SAVE=all (a checking-in worker copies every slot).
static SAVE_ALL: AtomicBool = AtomicBool::new(false);

/// At start: the protocol of rounds inside regions, and what a worker's
/// snapshot holds.
pub fn configure(nonblocking: bool, save_all: bool) {
    NONBLOCKING.store(nonblocking, Relaxed);
    SAVE_ALL.store(save_all, Relaxed);
}

/// Whether rounds inside regions are non-blocking.
pub fn nonblocking() -> bool {
    NONBLOCKING.load(Relaxed)
}

fn slot(t: i32) -> Option<&'static Slot> {
    usize::try_from(t).ok().and_then(|t| SLOTS.get(t))
}

// ---- entry points (entry.rs forwards the C calls here) ----

/// Before an instrumented fork, on the thread that forks.
#[inline]
pub fn fork(_frame: *mut DaoFrame) {
    let Some(used) = omp::team::fork() else { return };
    for s in &SLOTS[..used] {
        TEAM.reset_slot(&s.p);
    }
    TEAM.reset_master();
}

/// After an instrumented fork returned (the region has joined).
#[inline]
pub fn join(_frame: *mut DaoFrame) {
    omp::team::join();
}

/// At entry of an outlined function, on every thread of the team.
#[inline]
pub fn begin(_frame: *mut DaoFrame) {
    let Some(t) = omp::team::begin() else { return };
    TEAM.enter(&SLOTS[t].p);
    if omp::is_main_thread() {
        let n = omp::team::begin_main();
        crate::chain::check_team_size(n);
    }
}

/// At every return of an outlined function: this thread's part is done.
#[inline]
pub fn end(frame: *mut DaoFrame) {
    let t = omp::team::leave();
    let Some(s) = slot(t) else { return };
    if t == 0 {
        return;
    }
    if let Some(fv) = FrameView::read(frame) {
        s.func.store(fv.func as *const _ as *mut _, Relaxed);
    }
    TEAM.end(&s.p, frame);
}

/// Before a barrier in parallel code: this thread may wait here.
#[inline]
pub fn park(frame: *mut DaoFrame) {
    let t = omp::tid();
    let Some(s) = slot(t) else { return };
    if t == 0 {
        return;
    }
    TEAM.park(&s.p, frame);
}

/// After the barrier returned.
#[inline]
pub fn unpark(_frame: *mut DaoFrame) {
    let t = omp::tid();
    let Some(s) = slot(t) else { return };
    if t == 0 {
        TEAM.master_passed_barrier();
        return;
    }
    let _ = TEAM.unpark(&s.p, spin);
}

fn add_stop(s: &Slot, t0: Instant) {
    s.stop_ns.fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
}

/// Rounds started in this run (completed or abandoned).
pub fn rounds() -> u64 {
    TEAM.round.load(Acquire)
}

/// Per thread number, the seconds spent stopped for checkpoints so far
/// (up to the highest thread that ever stopped).
pub fn stop_seconds() -> Vec<f64> {
    let v: Vec<f64> = SLOTS.iter().map(|s| s.stop_ns.load(Relaxed) as f64 * 1e-9).collect();
    let n = v.iter().rposition(|x| *x > 0.0).map_or(0, |i| i + 1);
    v[..n].to_vec()
}

/// Spins (then yields, then sleeps) until `ready()`.
fn backoff_wait(mut ready: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else if spins < 256 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

/// The runtime's wait for handshake.rs: [`backoff_wait`], never gives up.
fn spin(ready: &mut dyn FnMut() -> bool) -> Result<(), std::convert::Infallible> {
    backoff_wait(ready);
    Ok(())
}
