//! Batch systems (issue #37): a checkpoint when a signal asks for one
//! (DAO_CHECKPOINT_SIGNALS), a checkpoint and an exit when a signal says
//! the job is being stopped (DAO_EXIT_SIGNALS, DAO_EXIT_GRACE), and a last
//! checkpoint before the job's end time (DAO_DEADLINE).
//!
//! The handler only records: it stores the signal in an atomic, wakes the
//! grace watcher with a futex, and returns (async-signal-safe: no lock, no
//! allocation; errno is kept). It is installed with SA_RESTART, so the
//! program's own system calls are restarted where the kernel can. Nothing
//! else happens in it, whichever thread it interrupts: the checkpoint is
//! taken at the next candidate the main thread looks at (policy.rs reads
//! [`requested`] at every look; with signals or a deadline enabled the
//! looks come about every millisecond whatever the policy), through the
//! usual team protocol inside a parallel region and the usual agreement of
//! an MPI job's ranks (mpi/collectives.rs `look`: one rank's signal makes
//! the checkpoint due on all, at the same candidate).
//!
//! An exit signal also starts the grace period: a thread of the runtime
//! (`dao-signals`, every signal blocked in it) sleeps on a futex until
//! DAO_EXIT_GRACE has passed since the signal; if no candidate has begun
//! the exit checkpoint by then ([`begin_exit`]), it exits the process at
//! once with 128 + the signal, and the previous checkpoint stays current.
//! A second exit signal, at least [`DEBOUNCE_NS`] after the first, exits
//! at once from the handler (`_exit` is async-signal-safe); one sooner is
//! the same signal delivered twice (a batch system signals every process
//! of the job, and `mpirun` forwards what it gets to the ranks as well).
//!
//! Whose handler: dao installs its handler at start-up only for a signal
//! whose disposition is the default, or that the variable names
//! explicitly. A program that installs its own handler (the link-time
//! wraps of `signal` and `sigaction`, wrap.rs, ask [`program_installs`])
//! keeps it, with one warning, unless the variable named the signal: then
//! the program's handler is not installed (and `sigaction` reports back
//! what the program last asked for). The runtime installs its handler
//! from its own code, so libc_state.rs never records it as the program's;
//! a restart puts back the program's handlers before dao installs its own,
//! by the same rule. The forked background writer ignores these signals
//! (a batch system signals every process of the job: the writer finishes
//! its file, and dies with the program), a child the program forks gets
//! the default action back.
//!
//! The deadline: at every look, `now + gap + cost` against the deadline,
//! where `gap` is the longest time between two candidates measured in
//! this run (from the looks: the time between two looks over the
//! candidates between them) and `cost` the longest checkpoint measured (a
//! background one from the fork to its commit), or, before the first,
//! 1 s + the resident size at 200 MB/s. The candidate where the next one
//! would be too late takes the last checkpoint (once), written in the
//! program, and the program goes on.
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering::*};
use std::sync::Mutex;
use std::time::Duration;

use crate::config::{signal_name, Config};
use crate::diag;

/// Bit `s` set: signal `s` asks for a checkpoint.
static CKPT_MASK: AtomicU64 = AtomicU64::new(0);
/// Bit `s` set: signal `s` asks for a checkpoint and an exit.
static EXIT_MASK: AtomicU64 = AtomicU64::new(0);
/// Bit `s` set: the variable named `s` (dao's handler takes precedence).
static EXPLICIT: AtomicU64 = AtomicU64::new(0);
/// Bit `s` set: dao's handler was installed for `s`, and the program has
/// not replaced it.
static INSTALLED: AtomicU64 = AtomicU64::new(0);
/// A checkpoint signal received and not yet looked at (its number).
static CKPT_REQ: AtomicI32 = AtomicI32::new(0);
/// When the checkpoint request came, and when the last checkpoint for a
/// signal began (monotonic ns): a request that came within
/// [`DEBOUNCE_NS`] of that start is the same signal delivered twice
/// (mpirun forwards it to the ranks one after the other) and counts once.
static CKPT_AT_NS: AtomicU64 = AtomicU64::new(0);
static LAST_SIGNAL_CKPT_NS: AtomicU64 = AtomicU64::new(0);
/// The exit signal received (0: none); stays set until the exit.
static EXIT_REQ: AtomicI32 = AtomicI32::new(0);
/// When the exit signal came (monotonic ns).
static EXIT_AT_NS: AtomicU64 = AtomicU64::new(0);
/// The exit: requested (0), its checkpoint begun at a candidate (CAUGHT),
/// or the grace period over (TIMED_OUT).
static EXIT_STATE: AtomicU32 = AtomicU32::new(0);
const CAUGHT: u32 = 1;
const TIMED_OUT: u32 = 2;
/// The futex the grace watcher sleeps on (bumped by the handler).
static WAKE: AtomicU32 = AtomicU32::new(0);
static GRACE_NS: AtomicU64 = AtomicU64::new(20_000_000_000);
/// A second exit signal sooner than this after the first is the same
/// signal delivered twice (by the batch system and by mpirun).
pub const DEBOUNCE_NS: u64 = 1_000_000_000;

/// The deadline as monotonic ns (u64::MAX: none), whether the last
/// checkpoint was taken, and the measurements it is decided on.
static DEADLINE_NS: AtomicU64 = AtomicU64::new(u64::MAX);
static DEADLINE_DONE: AtomicBool = AtomicBool::new(false);
static GAP_NS: AtomicU64 = AtomicU64::new(0);
static GAP_BASE_NS: AtomicU64 = AtomicU64::new(0);
static GAP_BASE_N: AtomicU64 = AtomicU64::new(0);
static COST_NS: AtomicU64 = AtomicU64::new(0);
/// The DAO_DEADLINE description, for the messages.
static DEADLINE_FROM: Mutex<String> = Mutex::new(String::new());
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Monotonic time in ns (clock_gettime is async-signal-safe).
fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn bit(sig: i32) -> u64 {
    if (1..64).contains(&sig) {
        1 << sig
    } else {
        0
    }
}

/// The handler of every signal dao takes: records it, nothing else.
extern "C" fn on_signal(sig: libc::c_int) {
    // SAFETY: errno of this thread, kept across the handler.
    let errno = unsafe { *libc::__errno_location() };
    if EXIT_MASK.load(Relaxed) & bit(sig) != 0 {
        let now = now_ns();
        match EXIT_REQ.compare_exchange(0, sig, SeqCst, SeqCst) {
            Ok(_) => EXIT_AT_NS.store(now, SeqCst),
            Err(_) => {
                if now.saturating_sub(EXIT_AT_NS.load(SeqCst)) >= DEBOUNCE_NS {
                    // SAFETY: _exit is async-signal-safe.
                    unsafe { libc::_exit(128 + sig) }
                }
            }
        }
    } else {
        CKPT_AT_NS.store(now_ns(), SeqCst);
        CKPT_REQ.store(sig, SeqCst);
    }
    WAKE.fetch_add(1, SeqCst);
    // SAFETY: a futex wake on our own word (a system call: async-signal-safe).
    unsafe { libc::syscall(libc::SYS_futex, WAKE.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX) };
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// dao's handler as a disposition.
fn handler() -> usize {
    on_signal as extern "C" fn(libc::c_int) as usize
}

/// The disposition of `sig` now (through libc; the caller is the runtime).
fn disposition(sig: i32) -> usize {
    // SAFETY: reading the action of a valid signal.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old);
        old.sa_sigaction
    }
}

fn set_disposition(sig: i32, h: usize) {
    // SAFETY: installing dao's handler (an extern "C" fn(c_int)), SIG_DFL
    // or SIG_IGN for a valid signal.
    unsafe {
        let mut a: libc::sigaction = std::mem::zeroed();
        a.sa_sigaction = h;
        a.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut a.sa_mask);
        libc::sigaction(sig, &a, std::ptr::null_mut());
    }
}

/// The dispositions at the entry of dao_main (before dao's MPI_Init, whose
/// library may install handlers of its own: those are not the program's).
static AT_ENTRY: Mutex<Vec<(i32, usize)>> = Mutex::new(Vec::new());

/// At the start of dao_main: the dispositions the program came with.
pub fn note_entry(cfg: &Config) {
    let mut v = AT_ENTRY.lock().unwrap_or_else(|e| e.into_inner());
    for &sig in cfg.checkpoint_signals.signals.iter().chain(&cfg.exit_signals.signals) {
        v.push((sig, disposition(sig)));
    }
}

/// Once checkpointing is active (start-up, after a restart has put back
/// the program's handlers): installs dao's handler, starts the grace
/// watcher and arms the deadline. `collective`: an MPI job (only the
/// looks decide, together). Returns whether anything was installed.
pub fn install(cfg: &Config) -> bool {
    let program_has = |sig: i32| {
        let entry = AT_ENTRY.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(s, _)| *s == sig).map_or(libc::SIG_DFL, |(_, h)| *h);
        let replayed = crate::libc_state::program_handler(sig);
        (entry != libc::SIG_DFL && entry != handler()) || replayed.is_some_and(|h| h != libc::SIG_DFL && h != handler())
    };
    VERBOSE.store(cfg.verbose, Relaxed);
    GRACE_NS.store(cfg.exit_grace.as_nanos().min(u64::MAX as u128) as u64, Relaxed);
    let mut any = false;
    for (set, mask, var) in [(&cfg.checkpoint_signals, &CKPT_MASK, "DAO_CHECKPOINT_SIGNALS"), (&cfg.exit_signals, &EXIT_MASK, "DAO_EXIT_SIGNALS")] {
        for &sig in &set.signals {
            if !set.explicit && program_has(sig) {
                diag::warn(format_args!(
                    "the program handles {} itself (or ignores it): it keeps its handler, and the signal takes no checkpoint ({var}={} gives dao's precedence)",
                    signal_name(sig),
                    &signal_name(sig)[3..]
                ));
                continue;
            }
            mask.fetch_or(bit(sig), SeqCst);
            if set.explicit {
                EXPLICIT.fetch_or(bit(sig), SeqCst);
            }
            set_disposition(sig, handler());
            INSTALLED.fetch_or(bit(sig), SeqCst);
            any = true;
        }
    }
    if EXIT_MASK.load(Relaxed) != 0 {
        let spawned = std::thread::Builder::new().name("dao-signals".into()).stack_size(64 << 10).spawn(watcher);
        if let Err(e) = spawned {
            diag::warn(format_args!("cannot start the thread of DAO_EXIT_GRACE: {e}; an exit signal waits for a candidate however long it takes"));
        }
    }
    if let Some(d) = &cfg.deadline {
        let unix_now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        let left = d.unix_s - unix_now;
        let now = now_ns();
        DEADLINE_NS.store(if left <= 0.0 { now } else { now.saturating_add((left * 1e9) as u64) }, SeqCst);
        *DEADLINE_FROM.lock().unwrap_or_else(|e| e.into_inner()) = d.from.clone();
        if left <= 0.0 {
            diag::warn(format_args!("{} has passed: a checkpoint at the first candidate", d.from));
        }
        any = true;
    }
    any
}

/// The grace watcher: sleeps until an exit signal, then until its grace
/// period is over; exits the process if no candidate began the exit
/// checkpoint by then.
fn watcher() {
    // what it allocates (a warning) is the runtime's, not the program's heap
    crate::libc_alloc::own_thread();
    // SAFETY: blocking every signal on this thread only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
    loop {
        let w = WAKE.load(SeqCst);
        let sig = EXIT_REQ.load(SeqCst);
        if sig == 0 {
            futex_wait(&WAKE, w, None);
            continue;
        }
        let end = EXIT_AT_NS.load(SeqCst).saturating_add(GRACE_NS.load(Relaxed));
        loop {
            if EXIT_STATE.load(SeqCst) == CAUGHT {
                return;
            }
            let now = now_ns();
            if now >= end {
                break;
            }
            let w = WAKE.load(SeqCst);
            futex_wait(&WAKE, w, Some(Duration::from_nanos(end - now)));
        }
        if EXIT_STATE.compare_exchange(0, TIMED_OUT, SeqCst, SeqCst).is_ok() {
            diag::warn(format_args!(
                "no checkpoint candidate within DAO_EXIT_GRACE={:.0} s of {}: exiting with status {} without a checkpoint; the previous checkpoint stays current",
                GRACE_NS.load(Relaxed) as f64 * 1e-9,
                signal_name(sig),
                128 + sig
            ));
            // SAFETY: leaving at once, as the signal would have.
            unsafe { libc::_exit(128 + sig) }
        }
        return;
    }
}

fn futex_wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
    let ts = timeout.map(|d| libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long });
    let p = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: a futex wait on our own word with an optional relative timeout.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, expected, p) };
}

/// What a look finds requested: 0 nothing, [`REQ_DEADLINE`], [`REQ_SIGNAL`].
pub const REQ_DEADLINE: u8 = 2;
pub const REQ_SIGNAL: u8 = 3;

/// At a look of the main thread (`now`: monotonic ns, `n`: candidates
/// reached): a checkpoint requested by a signal (taken from the request),
/// the exit pending, or the deadline's last checkpoint due.
pub fn requested(now: u64, n: u64) -> u8 {
    note_look(now, n);
    if EXIT_REQ.load(SeqCst) != 0 {
        return REQ_SIGNAL;
    }
    if CKPT_REQ.swap(0, SeqCst) != 0 {
        let last = LAST_SIGNAL_CKPT_NS.load(SeqCst);
        if last == 0 || CKPT_AT_NS.load(SeqCst) >= last.saturating_add(DEBOUNCE_NS) {
            return REQ_SIGNAL;
        }
    }
    if deadline_due(now) {
        return REQ_DEADLINE;
    }
    0
}

/// The exit signal pending (0: none).
pub fn exit_signal() -> i32 {
    EXIT_REQ.load(SeqCst)
}

/// MPI: another rank received exit signal `sig` (the look's agreement):
/// this rank exits with it too.
pub fn exit_agreed(sig: i32) {
    if sig > 0 && EXIT_REQ.compare_exchange(0, sig, SeqCst, SeqCst).is_ok() {
        EXIT_AT_NS.store(now_ns(), SeqCst);
    }
}

/// A candidate begins the exit checkpoint: the grace period no longer
/// applies. False when the grace watcher is exiting already.
pub fn begin_exit() -> bool {
    EXIT_STATE.compare_exchange(0, CAUGHT, SeqCst, SeqCst).is_ok() || EXIT_STATE.load(SeqCst) == CAUGHT
}

/// A checkpoint for a signal begins now.
pub fn signal_checkpoint_begins() {
    LAST_SIGNAL_CKPT_NS.store(now_ns(), SeqCst);
}

/// A checkpoint for a signal or the deadline is under way: it is written
/// in the program (no fork to wait for) and never skipped.
pub fn urgent() -> bool {
    URGENT.load(Relaxed)
}
static URGENT: AtomicBool = AtomicBool::new(false);

pub fn set_urgent(on: bool) {
    URGENT.store(on, Relaxed);
}

// ---- the deadline ----

fn note_look(now: u64, n: u64) {
    let base = GAP_BASE_NS.swap(now, Relaxed);
    let base_n = GAP_BASE_N.swap(n, Relaxed);
    if base != 0 && n > base_n {
        let per = now.saturating_sub(base) / (n - base_n);
        GAP_NS.fetch_max(per, Relaxed);
    }
}

/// After a checkpoint (and at start): the time until the next look is not
/// a gap between candidates.
pub fn reset_gap() {
    GAP_BASE_NS.store(0, Relaxed);
}

/// A checkpoint took `s` seconds, from its start to its commit.
pub fn note_cost(s: f64) {
    if s.is_finite() && s > 0.0 {
        COST_NS.fetch_max((s * 1e9) as u64, Relaxed);
    }
}

/// A deadline is set and its last checkpoint not taken yet.
pub fn deadline_pending() -> bool {
    DEADLINE_NS.load(Relaxed) != u64::MAX && !DEADLINE_DONE.load(Relaxed)
}

/// Signals or a deadline are enabled: the looks must come often.
pub fn wants_looks() -> bool {
    CKPT_MASK.load(Relaxed) | EXIT_MASK.load(Relaxed) != 0 || deadline_pending()
}

/// The checkpoint cost assumed before one is measured: 1 s plus the
/// resident size at 200 MB/s.
fn cost_estimate_ns() -> u64 {
    match COST_NS.load(Relaxed) {
        0 => 1_000_000_000 + crate::stats::resident_bytes() * 5,
        c => c,
    }
}

fn deadline_due(now: u64) -> bool {
    if !deadline_pending() {
        return false;
    }
    let need = GAP_NS.load(Relaxed).saturating_add(cost_estimate_ns());
    now.saturating_add(need) >= DEADLINE_NS.load(Relaxed)
}

/// The deadline's checkpoint was taken (or attempted): no other.
pub fn deadline_taken() {
    if deadline_pending() {
        DEADLINE_DONE.store(true, Relaxed);
        if VERBOSE.load(Relaxed) {
            let left = DEADLINE_NS.load(Relaxed).saturating_sub(now_ns()) as f64 * 1e-9;
            diag::info(format_args!(
                "last checkpoint before the deadline ({}) taken {left:.1} s before it (longest gap between candidates {:.3} s, checkpoint cost {:.3} s)",
                DEADLINE_FROM.lock().unwrap_or_else(|e| e.into_inner()),
                GAP_NS.load(Relaxed) as f64 * 1e-9,
                cost_estimate_ns() as f64 * 1e-9
            ));
        }
    }
}

// ---- the program's own handlers (wrap.rs) ----

/// What the program last asked for with a signal dao keeps (explicitly
/// named): given back as the old action.
static PROGRAM_ACTS: Mutex<Vec<(i32, libc::sigaction)>> = Mutex::new(Vec::new());

/// The program calls `sigaction(sig, act, ..)` / `signal(sig, ..)` with a
/// new action (`act`, or only the handler for `signal`). Returns Some(old
/// action to report) when dao keeps the signal (the variable named it):
/// the program's action is then not installed. None: install it (the
/// program takes the signal back, with one warning, when it was dao's).
pub fn program_installs(sig: i32, act: Option<&libc::sigaction>) -> Option<libc::sigaction> {
    let b = bit(sig);
    if INSTALLED.load(SeqCst) & b == 0 {
        return None;
    }
    crate::libc_alloc::own(|| claim(sig, b, act))
}

fn claim(sig: i32, b: u64, act: Option<&libc::sigaction>) -> Option<libc::sigaction> {
    let mut acts = PROGRAM_ACTS.lock().unwrap_or_else(|e| e.into_inner());
    if EXPLICIT.load(SeqCst) & b != 0 {
        // SAFETY: an all-zero sigaction is SIG_DFL with no flags.
        let old = acts.iter().find(|(s, _)| *s == sig).map_or(unsafe { std::mem::zeroed() }, |(_, a)| *a);
        if let Some(a) = act {
            acts.retain(|(s, _)| *s != sig);
            acts.push((sig, *a));
            diag::warn_once(
                &format!("program handler {sig}"),
                format_args!("the program installs a handler for {}, which the DAO_*_SIGNALS variable names: dao's handler stays (the program's is not installed)", signal_name(sig)),
            );
        }
        return Some(old);
    }
    if act.is_some() {
        INSTALLED.fetch_and(!b, SeqCst);
        diag::warn_once(
            &format!("program handler {sig}"),
            format_args!(
                "the program installs its own handler for {}: it keeps it, and the signal no longer {} (name it in {} to give dao's handler precedence)",
                signal_name(sig),
                if EXIT_MASK.load(Relaxed) & b != 0 { "takes a checkpoint and exits" } else { "takes a checkpoint" },
                if EXIT_MASK.load(Relaxed) & b != 0 { "DAO_EXIT_SIGNALS" } else { "DAO_CHECKPOINT_SIGNALS" }
            ),
        );
    }
    None
}

/// In the forked background writer: these signals are ignored (it
/// finishes its file; it dies with the program).
pub fn in_writer_child() {
    let mut m = INSTALLED.load(Relaxed);
    while m != 0 {
        let sig = m.trailing_zeros() as i32;
        m &= m - 1;
        set_disposition(sig, libc::SIG_IGN);
    }
}

/// Around a fork: blocks the signals whose handler is dao's on the
/// calling thread and returns the mask to put back (after the fork, in
/// both processes; in the child once [`in_program_child`] or
/// [`in_writer_child`] has changed the dispositions). Without this a
/// signal that reaches the child before it resets them runs dao's handler
/// there: an exit signal is then recorded in a child that takes no
/// checkpoint, and the child goes on as if it had not been sent (a
/// program that forks and at once sends SIGTERM to its child then waits
/// for it forever).
pub fn block_for_fork(all: bool) -> libc::sigset_t {
    // SAFETY: building a signal set and changing this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        if all {
            libc::sigfillset(&mut set);
        } else {
            libc::sigemptyset(&mut set);
            let mut m = INSTALLED.load(SeqCst);
            while m != 0 {
                libc::sigaddset(&mut set, m.trailing_zeros() as i32);
                m &= m - 1;
            }
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    }
}

/// After the fork: the mask [`block_for_fork`] returned.
pub fn unblock_after_fork(old: &libc::sigset_t) {
    // SAFETY: putting back this thread's mask.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut()) };
}

/// In a child the program forked: the default action back (the child
/// takes no checkpoints and has no grace watcher).
pub fn in_program_child() {
    let mut m = INSTALLED.swap(0, Relaxed);
    CKPT_MASK.store(0, Relaxed);
    EXIT_MASK.store(0, Relaxed);
    crate::libc_alloc::own(|| {
        while m != 0 {
            let sig = m.trailing_zeros() as i32;
            m &= m - 1;
            set_disposition(sig, libc::SIG_DFL);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        assert_eq!(bit(libc::SIGTERM), 1 << 15);
        assert_eq!(bit(0), 0);
        assert_eq!(bit(64), 0);
    }
}
