//! OpenMP teams: per-thread state, the two checkpoint protocols (blocking
//! and non-blocking), and the per-thread restart. The protocol is written down in
//! `runtime/src/protocol/README.md`; read it first. In short:
//!
//! - The pass calls `dao_omp_fork`/`dao_omp_join` around every fork of a
//!   region that reaches a marker, `dao_omp_begin`/`dao_omp_end` at entry and
//!   exit of the outlined function on every thread, and
//!   `dao_omp_park`/`dao_omp_unpark` around every barrier in parallel code
//!   on a marker path.
//! - Only the main thread (the master of the outermost team) decides to
//!   checkpoint. Inside a region it starts a *round*: it raises
//!   `dao_omp_request`, which every marker in parallel code reads, and waits
//!   until each other thread of the team is *stopped*: at a candidate (it
//!   saw the request and waits in the runtime), at a barrier the master has
//!   not reached (it is blocked there until the master arrives), or finished
//!   with its part of the region. Then it writes the checkpoint with every
//!   thread's chain and releases the round.
//! - Non-blocking rounds (`DAO_PROTOCOL=nonblocking`, the default when every
//!   module was compiled with guards): a worker at its marker copies its
//!   private state, *checks in* and goes on running; the guards the pass
//!   puts before shared writes and lock acquisitions make a checked-in
//!   worker wait until the master has saved the shared state.
//! - libomp is reached through `dlsym`, so programs without OpenMP do not
//!   need it at link time.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering::*};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use dao_format::{OmpState, WORKER_AT_BARRIER, WORKER_AT_CANDIDATE, WORKER_EXITED};

use crate::abi::DaoFrame;
use crate::desc::FrameView;
use crate::diag;

/// Threads per team the runtime tracks (a larger team is a fatal error).
pub const MAX_THREADS: usize = 256;

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

/// Rounds inside regions are non-blocking (set once at start, config.rs).
static NONBLOCKING: AtomicBool = AtomicBool::new(false);
/// The current round is non-blocking (a profiling round never is); written
/// before the request is raised, read by workers that saw it.
static ROUND_NB: AtomicBool = AtomicBool::new(false);
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

const IDLE: u32 = 0;
const RUNNING: u32 = 1;
const CANDIDATE: u32 = 2;
const PARKED: u32 = 3;
const CLAIMED: u32 = 4;
const EXITED: u32 = 5;

/// One thread of the current team (indexed by omp_get_thread_num()).
struct Slot {
    state: AtomicU32,
    /// Innermost frame while stopped (CANDIDATE, PARKED/CLAIMED), the
    /// outlined function's frame when EXITED.
    top: AtomicPtr<DaoFrame>,
    /// The round this thread stopped for (CANDIDATE).
    round: AtomicU64,
    /// Barriers entered by this thread in the current region (while PARKED:
    /// the number of the barrier it is in).
    syncs: AtomicU64,
    /// EXITED: the outlined function's descriptor (its frame is gone).
    func: AtomicPtr<crate::abi::DaoFuncDesc>,
    /// `single` instances this thread has encountered in the region.
    singles: AtomicU64,
    /// Non-blocking: the round this worker has checked in for (its
    /// snapshot is in `snap`); published SeqCst after the snapshot.
    checked: AtomicU64,
    snap: std::sync::Mutex<Option<crate::collect::Snapshot>>,
    /// Time this thread spent stopped for checkpoints (ns): waiting at a
    /// candidate (blocking), copying its state and waiting at guards
    /// (non-blocking), gathering and saving (the master).
    stop_ns: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const SLOT: Slot = Slot {
    state: AtomicU32::new(IDLE),
    top: AtomicPtr::new(std::ptr::null_mut()),
    round: AtomicU64::new(0),
    syncs: AtomicU64::new(0),
    func: AtomicPtr::new(std::ptr::null_mut()),
    singles: AtomicU64::new(0),
    checked: AtomicU64::new(0),
    snap: std::sync::Mutex::new(None),
    stop_ns: AtomicU64::new(0),
};
static SLOTS: [Slot; MAX_THREADS] = [SLOT; MAX_THREADS];

/// Slots used since the last fork reset them (highest thread number + 1).
/// Written in `begin` before the thread's slot; read by the next fork,
/// after the join (libomp's join barrier orders the two).
static USED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Depth of instrumented forks on the main thread (1: inside a region).
static DEPTH: AtomicU32 = AtomicU32::new(0);
static TEAM_SIZE: AtomicU32 = AtomicU32::new(0);
/// Barriers the master has passed in the current region.
static MASTER_SYNCS: AtomicU64 = AtomicU64::new(0);
/// Last round started, last round finished (released or abandoned).
static ROUND: AtomicU64 = AtomicU64::new(0);
static DONE: AtomicU64 = AtomicU64::new(0);
/// The master's ICVs at the last fork (what a restart re-applies).
static FORK_ICVS: std::sync::Mutex<Option<OmpState>> = std::sync::Mutex::new(None);
/// Set when a round could not gather the team (timeout): no more
/// checkpoints inside regions for this run, with one warning.
static GIVEN_UP: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's number in the current instrumented region, -1 outside.
    static TID: Cell<i32> = const { Cell::new(-1) };
}

// ---- libomp, looked up at run time ----

struct Omp {
    thread_num: unsafe extern "C" fn() -> i32,
    num_threads: unsafe extern "C" fn() -> i32,
    max_threads: unsafe extern "C" fn() -> i32,
    set_num_threads: unsafe extern "C" fn(i32),
    get_dynamic: unsafe extern "C" fn() -> i32,
    set_dynamic: unsafe extern "C" fn(i32),
    get_max_active_levels: unsafe extern "C" fn() -> i32,
    set_max_active_levels: unsafe extern "C" fn(i32),
    get_schedule: unsafe extern "C" fn(*mut i32, *mut i32),
    set_schedule: unsafe extern "C" fn(i32, i32),
}

fn sym<T: Copy>(name: &std::ffi::CStr) -> Option<T> {
    // SAFETY: dlsym with a NUL-terminated name; the caller gives T the
    // function's C type (a function pointer of the same size).
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: see above.
    Some(unsafe { std::mem::transmute_copy::<*mut libc::c_void, T>(&p) })
}

fn omp() -> Option<&'static Omp> {
    static OMP: OnceLock<Option<Omp>> = OnceLock::new();
    OMP.get_or_init(|| {
        Some(Omp {
            thread_num: sym(c"omp_get_thread_num")?,
            num_threads: sym(c"omp_get_num_threads")?,
            max_threads: sym(c"omp_get_max_threads")?,
            set_num_threads: sym(c"omp_set_num_threads")?,
            get_dynamic: sym(c"omp_get_dynamic")?,
            set_dynamic: sym(c"omp_set_dynamic")?,
            get_max_active_levels: sym(c"omp_get_max_active_levels")?,
            set_max_active_levels: sym(c"omp_set_max_active_levels")?,
            get_schedule: sym(c"omp_get_schedule")?,
            set_schedule: sym(c"omp_set_schedule")?,
        })
    })
    .as_ref()
}

fn thread_num() -> i32 {
    // SAFETY: libomp's omp_get_thread_num, no arguments.
    omp().map_or(0, |o| unsafe { (o.thread_num)() })
}

/// The master's internal control variables now (serial code).
pub fn icvs() -> OmpState {
    let Some(o) = omp() else { return OmpState::default() };
    let (mut kind, mut chunk) = (0i32, 0i32);
    // SAFETY: libomp getters; get_schedule writes the two ints we pass.
    unsafe {
        (o.get_schedule)(&mut kind, &mut chunk);
        OmpState {
            team_size: 0,
            nthreads: (o.max_threads)().max(0) as u32,
            dynamic: (o.get_dynamic)() as u32,
            max_active_levels: (o.get_max_active_levels)().max(0) as u32,
            sched_kind: kind as u32,
            sched_chunk: chunk,
            singles_won: 0,
            master_singles: 0,
        }
    }
}

/// Applies saved ICVs (at restart, before main runs).
pub fn apply_icvs(s: &OmpState) {
    let Some(o) = omp() else { return };
    if s.nthreads == 0 {
        return;
    }
    // SAFETY: libomp setters with plain integers.
    unsafe {
        (o.set_num_threads)(s.nthreads as i32);
        (o.set_dynamic)(s.dynamic as i32);
        (o.set_max_active_levels)(s.max_active_levels as i32);
        if s.sched_kind != 0 {
            (o.set_schedule)(s.sched_kind as i32, s.sched_chunk);
        }
    }
}

/// Whether the main thread is inside an instrumented parallel region.
pub fn in_region() -> bool {
    DEPTH.load(Acquire) == 1 && TID.with(|t| t.get()) == 0
}

/// The OpenMP state recorded in a checkpoint taken now on the main thread.
pub fn state_for_checkpoint() -> OmpState {
    if in_region() {
        let mut s = FORK_ICVS.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default();
        s.team_size = TEAM_SIZE.load(Acquire);
        s.singles_won = SINGLE_WON.load(Acquire).max(SKIP_SINGLES.load(Acquire));
        s.master_singles = SLOTS[0].singles.load(Acquire);
        s
    } else {
        icvs()
    }
}

fn slot(t: i32) -> Option<&'static Slot> {
    usize::try_from(t).ok().and_then(|t| SLOTS.get(t))
}

// ---- entry points (entry.rs forwards the C calls here) ----

/// Before an instrumented fork, on the thread that forks.
pub fn fork(_frame: *mut DaoFrame) {
    if !crate::chain::is_main_thread() {
        return;
    }
    if DEPTH.fetch_add(1, AcqRel) != 0 {
        return; // nested (diagnosed at compile time when it matters)
    }
    // only the slots a team has used since the last reset (a loop over
    // all 256 cost ~3,300 instructions per region)
    let used = USED.swap(0, Relaxed).min(MAX_THREADS);
    for s in &SLOTS[..used] {
        s.state.store(IDLE, Relaxed);
        s.syncs.store(0, Relaxed);
        s.singles.store(0, Relaxed);
        s.top.store(std::ptr::null_mut(), Relaxed);
        s.checked.store(0, Relaxed);
    }
    TEAM_SIZE.store(0, Relaxed);
    MASTER_SYNCS.store(0, Relaxed);
    SINGLE_WON.store(0, Relaxed);
    SKIP_SINGLES.store(0, Relaxed);
    *FORK_ICVS.lock().unwrap_or_else(|e| e.into_inner()) = Some(icvs());
    std::sync::atomic::fence(Release);
}

/// After an instrumented fork returned (the region has joined).
pub fn join(_frame: *mut DaoFrame) {
    if !crate::chain::is_main_thread() {
        return;
    }
    DEPTH.fetch_sub(1, AcqRel);
    TEAM_SIZE.store(0, Release);
}

/// At entry of an outlined function, on every thread of the team.
pub fn begin(_frame: *mut DaoFrame) {
    if DEPTH.load(Acquire) != 1 {
        return;
    }
    let t = thread_num();
    let main = crate::chain::is_main_thread();
    if t == 0 && !main {
        return; // the master of a nested team
    }
    let Some(s) = slot(t) else {
        crate::diag::fatal(format_args!("a parallel region has more than {MAX_THREADS} threads; dao supports at most {MAX_THREADS}"));
    };
    TID.with(|c| c.set(t));
    USED.fetch_max(t as usize + 1, Relaxed);
    if t > 0 {
        worker_tls_enter(t as u32);
    }
    restore_singles(t as u32, s);
    s.syncs.store(0, Relaxed);
    s.state.store(RUNNING, Release);
    if main {
        // SAFETY: libomp query inside the region.
        let n = omp().map_or(1, |o| unsafe { (o.num_threads)() }).max(1) as u32;
        TEAM_SIZE.store(n, Release);
        crate::chain::check_team_size(n);
    }
}

/// At every return of an outlined function: this thread's part is done.
pub fn end(frame: *mut DaoFrame) {
    let t = TID.with(|c| c.replace(-1));
    let Some(s) = slot(t) else { return };
    if t == 0 {
        return;
    }
    if let Some(fv) = FrameView::read(frame) {
        s.func.store(fv.func as *const _ as *mut _, Relaxed);
    }
    s.top.store(frame, Relaxed);
    s.state.store(EXITED, SeqCst);
}

/// Before a barrier in parallel code: this thread may wait here.
pub fn park(frame: *mut DaoFrame) {
    let t = TID.with(|c| c.get());
    let Some(s) = slot(t) else { return };
    if t == 0 {
        return;
    }
    let n = s.syncs.load(Relaxed) + 1;
    s.syncs.store(n, Relaxed);
    s.top.store(frame, Relaxed);
    s.state.store(PARKED, SeqCst);
}

/// After the barrier returned.
pub fn unpark(_frame: *mut DaoFrame) {
    let t = TID.with(|c| c.get());
    let Some(s) = slot(t) else { return };
    if t == 0 {
        MASTER_SYNCS.fetch_add(1, Release);
        return;
    }
    loop {
        match s.state.compare_exchange(PARKED, RUNNING, AcqRel, Acquire) {
            Ok(_) => return,
            // the master is saving this thread's state: wait until it is done
            Err(CLAIMED) => backoff_wait(|| s.state.load(Acquire) != CLAIMED),
            Err(_) => return,
        }
    }
}

/// A worker reached a marker and saw the request: stop until the round
/// ends (blocking), or check in and go on (non-blocking).
pub fn worker_stop(frame: *mut DaoFrame) {
    let t = TID.with(|c| c.get());
    let Some(s) = slot(t) else { return };
    if t <= 0 || dao_omp_request.load(Acquire) == 0 {
        return;
    }
    let t0 = Instant::now();
    let r = ROUND.load(Acquire);
    if ROUND_NB.load(Relaxed) {
        if s.checked.load(Relaxed) != r {
            let snap = crate::collect::snapshot(t as u32, frame, SAVE_ALL.load(Relaxed));
            *s.snap.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap);
            // publishes the snapshot and every earlier write of this thread
            s.checked.store(r, SeqCst);
            add_stop(s, t0);
        }
        return;
    }
    s.top.store(frame, Relaxed);
    s.round.store(r, Relaxed);
    s.state.store(CANDIDATE, SeqCst);
    let mut helped = false;
    backoff_wait(|| {
        if !helped {
            helped = help();
        }
        DONE.load(Acquire) >= r
    });
    s.state.store(RUNNING, Release);
    add_stop(s, t0);
}

/// The slow path of a guard (`dao_omp_guard` was set): a worker that has
/// checked in for a round whose shared state is not saved yet waits (and
/// helps write the checkpoint meanwhile); anyone else goes on.
pub fn guard_wait() {
    let t = TID.with(|c| c.get());
    let Some(s) = slot(t) else { return };
    if t <= 0 {
        return;
    }
    let c = s.checked.load(Relaxed);
    if c == 0 || DONE.load(Acquire) >= c {
        return;
    }
    let t0 = Instant::now();
    let mut helped = false;
    backoff_wait(|| {
        if !helped {
            helped = help();
        }
        DONE.load(Acquire) >= c
    });
    add_stop(s, t0);
}

fn add_stop(s: &Slot, t0: Instant) {
    s.stop_ns.fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
}

/// Rounds started in this run (completed or abandoned).
pub fn rounds() -> u64 {
    ROUND.load(Acquire)
}

/// Per thread number, the seconds spent stopped for checkpoints so far
/// (up to the highest thread that ever stopped).
pub fn stop_seconds() -> Vec<f64> {
    let v: Vec<f64> = SLOTS.iter().map(|s| s.stop_ns.load(Relaxed) as f64 * 1e-9).collect();
    let n = v.iter().rposition(|x| *x > 0.0).map_or(0, |i| i + 1);
    v[..n].to_vec()
}

// ---- distributed saving: the master shares the writing with stopped workers ----

/// The work the master shares while it writes a checkpoint (null: none).
/// Points to a `Job` on the master's stack.
static JOB: AtomicPtr<Job> = AtomicPtr::new(std::ptr::null_mut());
/// Workers that may be using `JOB` right now.
static JOB_USERS: AtomicU32 = AtomicU32::new(0);

struct Job {
    /// Lifetime-erased `&(dyn Fn() + Sync)`; valid while `JOB` points here
    /// and until `JOB_USERS` drops to 0 after `JOB` is cleared.
    run: *const (dyn Fn() + Sync + 'static),
}

/// The master, with the team stopped: runs `work` on this thread and on
/// every worker stopped at a candidate (those waiting in a barrier or in
/// the region's end are inside libomp and cannot help). `work` must divide
/// itself (each call claims pieces until none are left). Returns when every
/// call of `work` has returned.
///
/// Safety argument (Dekker pair, SeqCst accesses with a SeqCst fence
/// between each side's write and read; model-checked in
/// runtime/protocol-model): a worker increments `JOB_USERS` *then* loads
/// `JOB`; the master stores null into `JOB` *then* waits for `JOB_USERS`
/// to be 0. If the master reads 0, the worker's increment comes
/// later in the single total order, so its load sees null and it never
/// touches the job; otherwise the master waits until it has left.
pub fn share_work(work: &(dyn Fn() + Sync)) {
    // SAFETY: only the lifetime is erased; the pointer is dereferenced only
    // by workers between their increment of JOB_USERS and the decrement,
    // and this function returns only after JOB is null and JOB_USERS is 0.
    let run: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(work as *const (dyn Fn() + Sync + '_)) };
    let job = Job { run };
    JOB.store(&job as *const Job as *mut Job, SeqCst);
    work();
    JOB.store(std::ptr::null_mut(), SeqCst);
    std::sync::atomic::fence(SeqCst);
    backoff_wait(|| JOB_USERS.load(SeqCst) == 0);
}

/// A stopped worker: runs the shared job if there is one. True if it did.
fn help() -> bool {
    if JOB.load(Relaxed).is_null() {
        return false;
    }
    JOB_USERS.fetch_add(1, SeqCst);
    std::sync::atomic::fence(SeqCst);
    let j = JOB.load(SeqCst);
    if !j.is_null() {
        // SAFETY: see share_work.
        unsafe { (*(*j).run)() };
    }
    JOB_USERS.fetch_sub(1, SeqCst);
    !j.is_null()
}

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

/// A stopped worker, as the master collects it.
pub struct Stopped {
    pub thread: u32,
    pub state: u32,
    /// Non-blocking: the state the worker copied when it checked in (then
    /// `top` and `func` are unused).
    pub snap: Option<crate::collect::Snapshot>,
    /// Innermost frame (for EXITED: the address the outlined function's
    /// frame had; it is no longer live, so only `func` may be used).
    pub top: *mut DaoFrame,
    pub func: *const crate::abi::DaoFuncDesc,
}

/// The gathering timeout (DAO_OMP_TIMEOUT seconds, default 10). A
/// malformed value is fatal, like every other DAO_* variable (config.rs).
fn timeout() -> Duration {
    static T: OnceLock<Duration> = OnceLock::new();
    *T.get_or_init(|| match std::env::var("DAO_OMP_TIMEOUT") {
        Err(_) => Duration::from_secs(10),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Duration::from_secs_f64(x),
            _ => crate::diag::fatal(format_args!("DAO_OMP_TIMEOUT={v:?} must be a positive number of seconds")),
        },
    })
}

/// The master at a due candidate inside a region: gather the team, run
/// `write` with every stopped worker, release the team. Returns false (and
/// writes nothing) when the team could not be gathered in time. Non-blocking
/// rounds gather check-ins instead of stops: see the protocol README.
/// The second argument of `write` is the gathering time in seconds.
pub fn with_team_stopped(nonblocking_ok: bool, write: impl FnOnce(&[Stopped], f64)) -> bool {
    if GIVEN_UP.load(Relaxed) {
        return false;
    }
    let t0 = Instant::now();
    let nb = nonblocking_ok && NONBLOCKING.load(Relaxed);
    let n = TEAM_SIZE.load(Acquire) as usize;
    let r = ROUND.fetch_add(1, AcqRel) + 1;
    ROUND_NB.store(nb, Relaxed);
    if nb {
        // before the request: a worker that sees the request and checks in
        // then sees the guard set at its next guard
        dao_omp_guard.store(1, SeqCst);
    }
    dao_omp_request.store(1, SeqCst);
    let master_syncs = MASTER_SYNCS.load(Acquire);
    let deadline = Instant::now() + timeout();
    let mut stopped: Vec<Stopped> = Vec::with_capacity(n.saturating_sub(1));
    let mut claimed: Vec<usize> = Vec::new();
    let mut ok = true;
    'threads: for t in 1..n {
        let s = &SLOTS[t];
        let mut spins = 0u32;
        loop {
            if nb && s.checked.load(SeqCst) == r {
                let snap = s.snap.lock().unwrap_or_else(|e| e.into_inner()).take();
                stopped.push(Stopped { thread: t as u32, state: WORKER_AT_CANDIDATE, snap, top: std::ptr::null_mut(), func: std::ptr::null() });
                continue 'threads;
            }
            match s.state.load(SeqCst) {
                CANDIDATE if s.round.load(Acquire) == r => {
                    stopped.push(Stopped { thread: t as u32, state: WORKER_AT_CANDIDATE, snap: None, top: s.top.load(Acquire), func: std::ptr::null() });
                    continue 'threads;
                }
                EXITED => {
                    stopped.push(Stopped { thread: t as u32, state: WORKER_EXITED, snap: None, top: s.top.load(Acquire), func: s.func.load(Acquire) });
                    continue 'threads;
                }
                // blocked at a barrier the master has not reached yet (a
                // barrier it has passed is being left: wait for the thread)
                PARKED if s.syncs.load(Acquire) > master_syncs && s.state.compare_exchange(PARKED, CLAIMED, AcqRel, Acquire).is_ok() => {
                    claimed.push(t);
                    stopped.push(Stopped { thread: t as u32, state: WORKER_AT_BARRIER, snap: None, top: s.top.load(Acquire), func: std::ptr::null() });
                    continue 'threads;
                }
                _ => {}
            }
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else if spins < 256 {
                std::thread::yield_now();
            } else {
                if Instant::now() > deadline {
                    ok = false;
                    diag::warn(format_args!(
                        "checkpoint abandoned: thread {t} of the team did not reach a candidate, a barrier or the end of the region within {:.1} s (DAO_OMP_TIMEOUT); it may wait for a lock, or in code not compiled with the dao pass. No more checkpoints are taken inside parallel regions in this run",
                        timeout().as_secs_f64()
                    ));
                    GIVEN_UP.store(true, Relaxed);
                    break 'threads;
                }
                std::thread::sleep(Duration::from_micros(20));
            }
        }
    }
    if nb {
        // every worker is accounted for: markers need not call in any more
        dao_omp_request.store(0, SeqCst);
    }
    if ok {
        write(&stopped, t0.elapsed().as_secs_f64());
    }
    dao_omp_request.store(0, SeqCst);
    DONE.store(r, Release);
    if nb {
        dao_omp_guard.store(0, Release);
    }
    for t in claimed {
        SLOTS[t].state.store(PARKED, Release);
    }
    add_stop(&SLOTS[0], t0);
    ok
}

/// The site a worker that has finished its part stands at: the Exit site of
/// its outlined function.
pub fn exit_site(func: &crate::abi::DaoFuncDesc) -> u32 {
    func.sites().iter().position(|s| s.kind == crate::abi::DAO_SITE_EXIT).map_or(0, |i| i as u32 + 1)
}

/// The calling thread's number in the current region (-1 outside).
pub fn tid() -> i32 {
    TID.with(|c| c.get())
}

/// Before main: settings that keep libomp from blocking threads where the
/// protocol cannot see them. Reductions are forced to the critical method
/// (unless the user chose one): libomp's tree reduction waits inside
/// `__kmpc_reduce*` for other threads, a wait no participation point covers.
/// With the critical method a thread waits there only for the lock, which
/// the holder releases after combining its contribution (no marker, no
/// barrier in between). Not `atomic`: flang's reductions do not support it,
/// and libomp then warns at every reduction.
pub fn prepare_env() {
    let _ = timeout(); // a malformed DAO_OMP_TIMEOUT fails at start, not at the first checkpoint
    if std::env::var_os("DAO_DIR").is_some() && std::env::var_os("KMP_FORCE_REDUCTION").is_none() {
        std::env::set_var("KMP_FORCE_REDUCTION", "critical");
    }
}

// ---- worker stacks at fixed addresses ----
//
// A worker's frames are rebuilt at their old addresses only if the worker's
// stack is where it was. libomp creates its workers with pthread_create; the
// executable defines pthread_create, so libomp's calls (a shared library
// binding to the executable's definition) come here. Threads whose start
// routine lives in libomp get a stack at WORKER_STACKS + k * WORKER_STRIDE,
// k = 1, 2, ... in creation order (libomp creates workers in thread-number
// order, at the first fork that needs them); every other thread is created
// as asked. glibc puts the thread's TLS block at the top of a stack the
// caller provides, so threadprivate data lands at fixed addresses too. The
// frame-address check of a restart catches any difference.

const WORKER_STACKS: usize = 0x0c00_0000_0000;
const WORKER_STRIDE: usize = 1 << 30;
const WORKER_GUARD: usize = 64 << 10;
static CREATED: AtomicU32 = AtomicU32::new(0);

type PthreadCreate = unsafe extern "C" fn(
    *mut libc::pthread_t,
    *const libc::pthread_attr_t,
    extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    *mut libc::c_void,
) -> libc::c_int;

fn real_pthread_create() -> PthreadCreate {
    static REAL: OnceLock<usize> = OnceLock::new();
    let p = *REAL.get_or_init(|| {
        // SAFETY: dlsym with a NUL-terminated name.
        unsafe { libc::dlsym(libc::RTLD_NEXT, c"pthread_create".as_ptr()) as usize }
    });
    if p == 0 {
        crate::diag::fatal("pthread_create not found in the C library");
    }
    // SAFETY: the C library's pthread_create has this type.
    unsafe { std::mem::transmute::<usize, PthreadCreate>(p) }
}

fn from_libomp(f: usize) -> bool {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr fills `info` for an address of a loaded object.
    if unsafe { libc::dladdr(f as *const libc::c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return false;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the loader.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    name.contains("libomp") || name.contains("libiomp") || name.contains("libgomp")
}

/// The C library's pthread_create (not the interposed one).
///
/// # Safety
/// The C library's contract of pthread_create.
pub unsafe fn create_thread(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    arg: *mut libc::c_void,
) -> libc::c_int {
    // SAFETY: forwarded.
    unsafe { real_pthread_create()(thread, attr, start, arg) }
}

/// # Safety
/// The C library's contract of pthread_create.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    arg: *mut libc::c_void,
) -> libc::c_int {
    let real = real_pthread_create();
    if !from_libomp(start as usize) {
        // SAFETY: forwarded unchanged.
        return unsafe { real(thread, attr, start, arg) };
    }
    let mut size: libc::size_t = 0;
    // SAFETY: reading the caller's attributes (if any).
    if !attr.is_null() && unsafe { libc::pthread_attr_getstacksize(attr, &mut size) } != 0 {
        size = 0;
    }
    let size = if size == 0 { 8 << 20 } else { size.next_multiple_of(4096) }.min(WORKER_STRIDE - WORKER_GUARD);
    let k = CREATED.fetch_add(1, Relaxed) as usize + 1;
    let lo = WORKER_STACKS + k * WORKER_STRIDE;
    // SAFETY: a fresh anonymous mapping at an address that must be free.
    let p = unsafe {
        libc::mmap(
            lo as *mut libc::c_void,
            size + WORKER_GUARD,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as usize != lo {
        diag::warn_once(
            "worker-stack",
            "cannot map a worker thread's stack at its fixed address; checkpoints taken inside parallel regions will not restore (stack layout differs)",
        );
        // SAFETY: forwarded unchanged.
        return unsafe { real(thread, attr, start, arg) };
    }
    // SAFETY: the guard page at the bottom of the mapping just made; then a
    // copy of the caller's attributes with this stack.
    unsafe {
        libc::mprotect(p, WORKER_GUARD, libc::PROT_NONE);
        let mut a: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut a);
        // libomp creates joinable threads with default attributes but the
        // stack size (kmp_os-specific code); keep it that way
        libc::pthread_attr_setstack(&mut a, (lo + WORKER_GUARD) as *mut libc::c_void, size);
        let r = real(thread, &a, start, arg);
        libc::pthread_attr_destroy(&mut a);
        if r != 0 {
            libc::munmap(p, size + WORKER_GUARD);
        }
        r
    }
}

// ---- threadprivate (thread-local) variables ----
//
// clang makes `threadprivate` variables thread_local globals; every module
// describes its own and emits an accessor that writes the calling thread's
// addresses of them (dao_module_desc.tls_addrs). A thread's addresses can
// only be computed on that thread, so every worker publishes them when it
// enters an instrumented region; they stay valid for the thread's life. The
// values are saved whole for every thread (not by liveness), at every
// checkpoint: they are small, and they live across regions.

/// A thread-local variable of one thread.
#[derive(Clone, Copy)]
pub struct TlsRef {
    pub module: &'static crate::abi::DaoModuleDesc,
    pub index: u32,
    pub addr: usize,
    pub size: u64,
}
// SAFETY: descriptor references are immutable constant data; addr is a plain address.
unsafe impl Send for TlsRef {}

/// The calling thread's thread-local variables of every registered module.
pub fn tls_here() -> Vec<TlsRef> {
    let mut out = Vec::new();
    for m in crate::modules::all() {
        let (Some(f), n) = (m.tls_addrs, m.n_tls) else { continue };
        if n == 0 {
            continue;
        }
        let mut addrs = vec![std::ptr::null_mut::<u8>(); n as usize];
        // SAFETY: the module's accessor writes n_tls pointers.
        unsafe { f(addrs.as_mut_ptr()) };
        for (i, (a, d)) in addrs.iter().zip(crate::desc::table(m.tls, n)).enumerate() {
            out.push(TlsRef { module: m, index: i as u32, addr: *a as usize, size: d.size });
        }
    }
    out
}

/// Workers' thread-local addresses, by thread number.
static WORKER_TLS: std::sync::Mutex<Vec<(u32, Vec<TlsRef>)>> = std::sync::Mutex::new(Vec::new());
/// Saved thread-local values still to be put back, by thread number (restart).
static PENDING_TLS: std::sync::Mutex<Vec<(u32, Vec<dao_format::TlsValue<'static>>)>> = std::sync::Mutex::new(Vec::new());

fn any_tls() -> bool {
    static ANY: OnceLock<bool> = OnceLock::new();
    *ANY.get_or_init(|| crate::modules::all().iter().any(|m| m.n_tls > 0))
}

/// At a worker's region entry: publish its addresses, put back saved values.
fn worker_tls_enter(t: u32) {
    if !any_tls() {
        return;
    }
    let refs = tls_here();
    let pending = {
        let mut p = PENDING_TLS.lock().unwrap_or_else(|e| e.into_inner());
        p.iter().position(|(w, _)| *w == t).map(|i| p.swap_remove(i).1)
    };
    if let Some(vals) = pending {
        write_tls(&refs, &vals);
    }
    let mut g = WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner());
    match g.iter_mut().find(|(w, _)| *w == t) {
        Some(e) => e.1 = refs,
        None => g.push((t, refs)),
    }
}

/// Writes saved values to the matching variables of `refs`.
pub fn write_tls(refs: &[TlsRef], vals: &[dao_format::TlsValue<'_>]) {
    for v in vals {
        let Some(r) = refs.iter().find(|r| r.module.module_hash == v.module_hash && r.index == v.index) else {
            crate::diag::fatal(format_args!("thread-local variable {} of the checkpoint does not exist in this executable", v.name));
        };
        if r.size != v.bytes.len() as u64 {
            crate::diag::fatal(format_args!("thread-local variable {} has another size in this executable", v.name));
        }
        crate::desc::write_memory(r.addr, &v.bytes);
    }
}

/// The published thread-local variables of worker `t`.
pub fn worker_tls(t: u32) -> Vec<TlsRef> {
    WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(w, _)| *w == t).map(|(_, r)| r.clone()).unwrap_or_default()
}

/// Threads that have published thread-local variables (for a checkpoint
/// outside any region: their values persist into later regions).
pub fn tls_threads() -> Vec<u32> {
    WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(t, _)| *t).collect()
}

/// At restart: the workers' saved thread-local values, put back when each
/// enters its first instrumented region.
pub fn set_pending_tls(v: Vec<(u32, Vec<dao_format::TlsValue<'static>>)>) {
    *PENDING_TLS.lock().unwrap_or_else(|e| e.into_inner()) = v.into_iter().filter(|(_, x)| !x.is_empty()).collect();
}

static PENDING_MASTER: std::sync::Mutex<Option<(OmpState, Vec<dao_format::TlsValue<'static>>)>> = std::sync::Mutex::new(None);

/// At restart: what the thread that runs main must put back when it starts.
pub fn set_pending_master(icvs: OmpState, tls: Vec<dao_format::TlsValue<'static>>) {
    *PENDING_MASTER.lock().unwrap_or_else(|e| e.into_inner()) = Some((icvs, tls));
}

/// On the thread that runs main, before main (dao_thread_start).
pub fn main_thread_start() {
    let p = PENDING_MASTER.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((icvs, tls)) = p {
        apply_icvs(&icvs);
        write_tls(&tls_here(), &tls);
    }
}

// ---- single constructs ----
//
// libomp gives a `single` to the first thread that arrives, counting
// constructs per thread and per team. A worker may have run single instance
// n (and be parked at its barrier) while the master, at a candidate, has not
// reached it yet. After a restart the team is new: the master would win
// instance n again and run its body twice. So the pass routes
// `__kmpc_single` here: every thread counts its instances in the region;
// a checkpoint records the highest instance some thread had won and each
// thread's count; after a restart an instance already won returns 0 (the
// body is skipped) without entering libomp, which leaves libomp's counters
// equal in all threads of the new team.

/// Highest single instance won in the current region.
static SINGLE_WON: AtomicU64 = AtomicU64::new(0);
/// After a restart inside a region: instances up to this one were won before.
static SKIP_SINGLES: AtomicU64 = AtomicU64::new(0);
/// At restart: (singles_won, per-thread counts) for the region being resumed.
static PENDING_SINGLES: std::sync::Mutex<Option<(u64, Vec<(u32, u64)>)>> = std::sync::Mutex::new(None);

/// At restart (startup.rs): the single-construct state of the region that
/// holds the checkpoint.
pub fn set_pending_singles(won: u64, counts: Vec<(u32, u64)>) {
    if won > 0 || counts.iter().any(|c| c.1 > 0) {
        *PENDING_SINGLES.lock().unwrap_or_else(|e| e.into_inner()) = Some((won, counts));
    }
}

fn restore_singles(t: u32, s: &Slot) {
    let mut g = PENDING_SINGLES.lock().unwrap_or_else(|e| e.into_inner());
    let Some((won, counts)) = g.as_mut() else { return };
    if t == 0 {
        SKIP_SINGLES.store(*won, Release);
    }
    if let Some(i) = counts.iter().position(|c| c.0 == t) {
        s.singles.store(counts.swap_remove(i).1, Relaxed);
    }
    if counts.is_empty() {
        *g = None;
    }
}

type KmpcSingle = unsafe extern "C" fn(*mut libc::c_void, i32) -> i32;

/// `__kmpc_single`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_single.
pub unsafe fn single(ident: *mut libc::c_void, gtid: i32) -> i32 {
    static REAL: OnceLock<Option<KmpcSingle>> = OnceLock::new();
    let Some(real) = *REAL.get_or_init(|| sym(c"__kmpc_single")) else {
        crate::diag::fatal("__kmpc_single not found: the program calls it but libomp is not loaded");
    };
    let t = TID.with(|c| c.get());
    let Some(s) = slot(t).filter(|_| DEPTH.load(Acquire) == 1) else {
        // SAFETY: forwarded.
        return unsafe { real(ident, gtid) };
    };
    let n = s.singles.load(Relaxed) + 1;
    s.singles.store(n, Relaxed);
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

/// Single instances worker `t` has encountered in the region.
pub fn singles_of(t: u32) -> u64 {
    SLOTS.get(t as usize).map_or(0, |s| s.singles.load(Acquire))
}
