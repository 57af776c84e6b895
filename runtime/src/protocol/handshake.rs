//! The handshakes of a checkpoint round on one instance of the protocol
//! state: the operations of README.md ("A round", "Non-blocking rounds")
//! with their memory orderings, and nothing else. The runtime runs them on
//! its static instance (mod.rs: `TEAM`, `SLOTS`); `runtime/protocol-model`
//! compiles this file (and `sync.rs`) against loom and runs them on a fresh
//! instance per execution. So this file names no `crate::` item: it uses
//! only `super::sync`, and every wait is the caller's (`wait` arguments:
//! the runtime spins with backoff and may help write the checkpoint, the
//! model bounds its waits).
//!
//! [`Fault`] is a model-checking hook: the model's negative tests break one
//! ordering or step each. The runtime's instance never has one
//! ([`Flags::fault`] is `Fault::None` there, a constant the compiler folds).
use super::sync::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering::*};

/// Slot states (README.md, "Participants and states").
pub const IDLE: u32 = 0;
pub const RUNNING: u32 = 1;
pub const CANDIDATE: u32 = 2;
pub const PARKED: u32 = 3;
pub const CLAIMED: u32 = 4;
pub const EXITED: u32 = 5;

/// A deliberately broken variant of the protocol (model-checking hook; see
/// the module doc). `UnguardedLock` is the model's: it leaves out the guard
/// the pass puts before a lock acquisition (not code of this file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fault {
    #[default]
    None,
    /// The master sets the guard flag after the request flag.
    GuardAfterRequest,
    /// The master never sets the guard flag.
    NoGuard,
    /// Lock acquisition is not guarded (the model's program).
    UnguardedLock,
    /// The worker publishes `checked` before writing its snapshot.
    SnapAfterCheckIn,
    /// The master claims any parked worker (no `syncs > master_syncs`).
    ClaimStale,
    /// The master publishes `done` with a relaxed store.
    RelaxedDone,
    /// The worker publishes `checked` with a relaxed store.
    RelaxedCheckIn,
    /// The worker stores PARKED with a relaxed store.
    RelaxedPark,
    /// The guard loads the guard flag relaxed.
    RelaxedGuardLoad,
}

/// The two flags the compiled program reads (`dao_omp_request` at markers,
/// `dao_omp_guard` at guards). The runtime's are exported statics with
/// fixed names, so the state reaches them through this trait.
pub trait Flags {
    fn request(&self) -> &AtomicU8;
    fn guard(&self) -> &AtomicU8;
    /// The model's broken variant; always `Fault::None` in the runtime.
    #[inline(always)]
    fn fault(&self) -> Fault {
        Fault::None
    }
}

/// The protocol part of one thread's slot (`T`: the frame type `top`
/// points to).
pub struct Slot<T> {
    pub state: AtomicU32,
    /// Innermost frame while stopped (CANDIDATE, PARKED/CLAIMED), the
    /// outlined function's frame when EXITED.
    pub top: AtomicPtr<T>,
    /// The round this thread stopped for (CANDIDATE).
    pub round: AtomicU64,
    /// Barriers entered by this thread in the current region (while PARKED:
    /// the number of the barrier it is in).
    pub syncs: AtomicU64,
    /// Non-blocking: the round this worker has checked in for (its
    /// snapshot is published by the SeqCst store of this).
    pub checked: AtomicU64,
}

macro_rules! slot_new {
    () => {
        Slot {
            state: AtomicU32::new(IDLE),
            top: AtomicPtr::new(std::ptr::null_mut()),
            round: AtomicU64::new(0),
            syncs: AtomicU64::new(0),
            checked: AtomicU64::new(0),
        }
    };
}

impl<T> Slot<T> {
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        slot_new!()
    }
    #[cfg(loom)]
    pub fn new() -> Self {
        slot_new!()
    }
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The shared part of the protocol state.
pub struct Team<F> {
    pub flags: F,
    /// Last round started (`ROUND`), last round finished, released or
    /// abandoned (`DONE`).
    pub round: AtomicU64,
    pub done: AtomicU64,
    /// Barriers the master has passed in the current region.
    pub master_syncs: AtomicU64,
    /// The current round is non-blocking; written before the request is
    /// raised, read by workers that saw it.
    pub nb: AtomicBool,
}

/// How the master found a worker in one poll of the gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Non-blocking: checked in for this round (its snapshot is published).
    CheckedIn,
    /// Blocking: stopped at a candidate for this round.
    Candidate,
    /// Returned from the outlined function.
    Exited,
    /// Waiting in a barrier the master has not reached; now CLAIMED.
    Claimed,
}

/// A wait of the caller's: spins until the condition holds (or gives up
/// with `E`: the model's bounded waits).
pub trait Wait<E>: FnMut(&mut dyn FnMut() -> bool) -> Result<(), E> {}
impl<E, W: FnMut(&mut dyn FnMut() -> bool) -> Result<(), E>> Wait<E> for W {}

macro_rules! team_new {
    ($flags:expr) => {
        Team { flags: $flags, round: AtomicU64::new(0), done: AtomicU64::new(0), master_syncs: AtomicU64::new(0), nb: AtomicBool::new(false) }
    };
}

impl<F: Flags> Team<F> {
    #[cfg(not(loom))]
    pub const fn new(flags: F) -> Self {
        team_new!(flags)
    }
    #[cfg(loom)]
    pub fn new(flags: F) -> Self {
        team_new!(flags)
    }

    // ---- every thread, at the region's sync points ----

    /// At an instrumented fork, before any worker runs: a slot the last
    /// team used starts over.
    pub fn reset_slot<T>(&self, s: &Slot<T>) {
        s.state.store(IDLE, Relaxed);
        s.syncs.store(0, Relaxed);
        s.top.store(std::ptr::null_mut(), Relaxed);
        s.checked.store(0, Relaxed);
    }

    /// At a fork, after the slots: the master has passed no barrier.
    pub fn reset_master(&self) {
        self.master_syncs.store(0, Relaxed);
        fence(Release);
    }

    /// At entry of the outlined function.
    pub fn enter<T>(&self, s: &Slot<T>) {
        s.syncs.store(0, Relaxed);
        s.state.store(RUNNING, Release);
    }

    /// A worker before a barrier: it may wait there (`top`: its frame).
    pub fn park<T>(&self, s: &Slot<T>, top: *mut T) {
        let n = s.syncs.load(Relaxed) + 1;
        s.syncs.store(n, Relaxed);
        s.top.store(top, Relaxed);
        s.state.store(PARKED, if self.flags.fault() == Fault::RelaxedPark { Relaxed } else { SeqCst });
    }

    /// A worker after the barrier returned; waits while the master saves
    /// it (CLAIMED). Returns the state it found if that was neither PARKED
    /// nor CLAIMED (then it changes nothing).
    pub fn unpark<T, E>(&self, s: &Slot<T>, mut wait: impl Wait<E>) -> Result<Option<u32>, E> {
        loop {
            match s.state.compare_exchange(PARKED, RUNNING, AcqRel, Acquire) {
                Ok(_) => return Ok(None),
                // the master is saving this thread's state: wait until it is done
                Err(CLAIMED) => wait(&mut || s.state.load(Acquire) != CLAIMED)?,
                Err(x) => return Ok(Some(x)),
            }
        }
    }

    /// The master after a barrier returned.
    pub fn master_passed_barrier(&self) {
        self.master_syncs.fetch_add(1, Release);
    }

    /// A worker returns from the outlined function (`top`: its frame).
    pub fn end<T>(&self, s: &Slot<T>, top: *mut T) {
        s.top.store(top, Relaxed);
        s.state.store(EXITED, SeqCst);
    }

    // ---- a worker at a marker, and at a guard ----

    /// A worker at a marker whose fast path saw the request (a relaxed load
    /// in the compiled code): the round to stop for and whether it is
    /// non-blocking, or None if the request is gone.
    pub fn requested(&self) -> Option<(u64, bool)> {
        if self.flags.request().load(Acquire) == 0 {
            return None;
        }
        Some((self.round.load(Acquire), self.nb.load(Relaxed)))
    }

    /// Non-blocking: checks in for round `r` unless it already has;
    /// `snapshot` copies the worker's private state (before the SeqCst
    /// store that publishes it and every earlier write of this thread).
    /// True if it checked in now.
    pub fn check_in<T>(&self, s: &Slot<T>, r: u64, snapshot: impl FnOnce()) -> bool {
        if s.checked.load(Relaxed) == r {
            return false;
        }
        let fault = self.flags.fault();
        if fault == Fault::SnapAfterCheckIn {
            s.checked.store(r, SeqCst);
            snapshot();
        } else {
            snapshot();
            s.checked.store(r, if fault == Fault::RelaxedCheckIn { Relaxed } else { SeqCst });
        }
        true
    }

    /// Blocking: stops at a candidate (`top`: its frame) until round `r`
    /// is done.
    pub fn stop<T, E>(&self, s: &Slot<T>, top: *mut T, r: u64, mut wait: impl Wait<E>) -> Result<(), E> {
        s.top.store(top, Relaxed);
        s.round.store(r, Relaxed);
        s.state.store(CANDIDATE, SeqCst);
        wait(&mut || self.done.load(Acquire) >= r)?;
        s.state.store(RUNNING, Release);
        Ok(())
    }

    /// The guard the pass puts before shared writes, lock acquisitions and
    /// `single` (in the compiled code: `if (dao_omp_guard)
    /// dao_omp_guard_wait()` with an acquire load). The runtime's code does
    /// not call this (the program does it inline); the model does.
    pub fn guard_flag(&self) -> bool {
        self.flags.guard().load(if self.flags.fault() == Fault::RelaxedGuardLoad { Relaxed } else { Acquire }) != 0
    }

    /// The guard's slow path: a worker checked in for a round whose shared
    /// state is not saved yet waits until it is. True if it waited.
    pub fn guard_wait<T, E>(&self, s: &Slot<T>, mut wait: impl Wait<E>) -> Result<bool, E> {
        let c = s.checked.load(Relaxed);
        if c == 0 || self.done.load(Acquire) >= c {
            return Ok(false);
        }
        wait(&mut || self.done.load(Acquire) >= c)?;
        Ok(true)
    }

    // ---- the master's round ----

    /// Starts a round: returns its number and the barriers the master has
    /// passed.
    pub fn start(&self, nb: bool) -> (u64, u64) {
        let fault = self.flags.fault();
        let r = self.round.fetch_add(1, AcqRel) + 1;
        self.nb.store(nb, Relaxed);
        if fault == Fault::GuardAfterRequest {
            self.flags.request().store(1, SeqCst);
            if nb {
                self.flags.guard().store(1, SeqCst);
            }
        } else {
            if nb && fault != Fault::NoGuard {
                // before the request: a worker that sees the request and
                // checks in then sees the guard set at its next guard
                self.flags.guard().store(1, SeqCst);
            }
            self.flags.request().store(1, SeqCst);
        }
        (r, self.master_syncs.load(Acquire))
    }

    /// One look at a worker during the gather of round `r` (`ms`: the
    /// barriers the master has passed): how it is stopped, or None if it
    /// is still running program code. A worker found PARKED in a barrier
    /// the master has not reached is claimed (a barrier the master has
    /// passed is being left: wait for the thread).
    pub fn poll<T>(&self, s: &Slot<T>, r: u64, ms: u64, nb: bool) -> Option<Stop> {
        if nb && s.checked.load(SeqCst) == r {
            return Some(Stop::CheckedIn);
        }
        match s.state.load(SeqCst) {
            CANDIDATE if s.round.load(Acquire) == r => Some(Stop::Candidate),
            EXITED => Some(Stop::Exited),
            PARKED if (self.flags.fault() == Fault::ClaimStale || s.syncs.load(Acquire) > ms) && s.state.compare_exchange(PARKED, CLAIMED, AcqRel, Acquire).is_ok() => Some(Stop::Claimed),
            _ => None,
        }
    }

    /// Non-blocking, every worker accounted for: markers need not call in
    /// any more.
    pub fn gathered(&self, nb: bool) {
        if nb {
            self.flags.request().store(0, SeqCst);
        }
    }

    /// Ends round `r` (saved or abandoned): clears the request, publishes
    /// `done`, lowers the guard, gives the claimed workers back their
    /// barrier.
    pub fn release<'a, T: 'a>(&self, r: u64, nb: bool, claimed: impl IntoIterator<Item = &'a Slot<T>>) {
        self.flags.request().store(0, SeqCst);
        self.done.store(r, if self.flags.fault() == Fault::RelaxedDone { Relaxed } else { Release });
        if nb {
            self.flags.guard().store(0, Release);
        }
        for s in claimed {
            s.state.store(PARKED, Release);
        }
    }
}

/// Distributed saving: the master hands a job (`J`, on its stack) to
/// stopped workers while it writes. Dekker pair, SeqCst accesses with a
/// SeqCst fence between each side's write and read: a worker increments
/// `users` *then* loads `job`; the master stores null into `job` *then*
/// waits for `users` to be 0. If the master reads 0, the worker's increment
/// comes later in the single total order, so its load sees null and it
/// never touches the job; otherwise the master waits until it has left.
/// (The fences: loom treats SeqCst accesses as AcqRel, and the model found
/// the store-buffering outcome without them.)
pub struct Share<J> {
    /// The shared job (null: none).
    pub job: AtomicPtr<J>,
    /// Workers that may be using `job` right now.
    pub users: AtomicU32,
}

macro_rules! share_new {
    () => {
        Share { job: AtomicPtr::new(std::ptr::null_mut()), users: AtomicU32::new(0) }
    };
}

impl<J> Share<J> {
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        share_new!()
    }
    #[cfg(loom)]
    pub fn new() -> Self {
        share_new!()
    }

    /// The master: publishes `job`, runs `work` itself, withdraws the job
    /// and waits until no worker can touch it.
    pub fn share<E>(&self, job: &J, work: impl FnOnce(), mut wait: impl Wait<E>) -> Result<(), E> {
        self.job.store(job as *const J as *mut J, SeqCst);
        work();
        self.job.store(std::ptr::null_mut(), SeqCst);
        fence(SeqCst);
        wait(&mut || self.users.load(SeqCst) == 0)
    }

    /// A stopped worker: runs the published job, if any. True if it did.
    pub fn help(&self, run: impl FnOnce(&J)) -> bool {
        if self.job.load(Relaxed).is_null() {
            return false;
        }
        self.users.fetch_add(1, SeqCst);
        fence(SeqCst);
        let j = self.job.load(SeqCst);
        if !j.is_null() {
            // SAFETY: `share` returns (and the job dies) only after `job`
            // is null and `users` is 0; this worker is counted in `users`
            // and loaded `job` non-null after counting itself in.
            run(unsafe { &*j });
        }
        self.users.fetch_sub(1, SeqCst);
        !j.is_null()
    }
}

impl<J> Default for Share<J> {
    fn default() -> Self {
        Self::new()
    }
}
