//! When a candidate becomes a checkpoint.
//!
//! The hot path is in the instrumented code, not here: at every marker the
//! pass emits `if (--dao_poll <= 0) dao_candidate(frame)` (a relaxed atomic
//! load/store pair, one compare; the spills of live values sit on the taken
//! branch). The runtime *arms* `dao_poll` with the number of candidates
//! until it wants to look again:
//! - checkpointing off (DAO_DIR unset or unusable): `i64::MAX`, never;
//! - DAO_EVERY=n: exactly the candidates left until the next multiple of n;
//! - DAO_PLACEMENT: exactly the candidates left until the next chosen
//!   instance (placement.rs), a count that never runs out after the last;
//! - DAO_PROFILE: 1, every candidate calls in to be measured (profile.rs);
//! - an interval (DAO_INTERVAL, DAO_MTBF): a count calibrated from the last
//!   period so that the clock is read about every `CHECK_PERIOD` (so a
//!   checkpoint is at most that late), never more than 16x the last count.
//!
//! The number of candidates reached is exact at any moment:
//! `COUNTED + (ARMED - dao_poll)`; it is saved in every checkpoint, so a
//! restarted run with DAO_EVERY=n checkpoints at the same candidates as an
//! uninterrupted one. Markers run on one thread (the main thread) for now;
//! the counters are atomics only so that the accesses are well defined.
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};

use crate::config::Policy;

/// The main thread's countdown: the instrumented code's thread-local
/// `dao_tls_poll`, whose address the emitted `main` hands to dao_main (only
/// the main thread's countdown is ever armed; workers' stay at INT64_MAX).
/// A private cell until then.
static FALLBACK: AtomicI64 = AtomicI64::new(i64::MAX);
static POLL: std::sync::atomic::AtomicPtr<AtomicI64> = std::sync::atomic::AtomicPtr::new(&FALLBACK as *const AtomicI64 as *mut AtomicI64);

/// Installs the main thread's countdown (from dao_main, before anything is armed).
///
/// # Safety
/// `p` must be the calling (main) thread's `dao_tls_poll`, valid for the
/// whole run, and accessed only atomically.
pub unsafe fn set_poll_cell(p: *mut i64) {
    if !p.is_null() {
        // SAFETY: per the contract; i64 and AtomicI64 have the same layout.
        let cell = unsafe { AtomicI64::from_ptr(p) };
        cell.store(FALLBACK.load(Relaxed), Relaxed);
        POLL.store(cell as *const AtomicI64 as *mut AtomicI64, std::sync::atomic::Ordering::Release);
    }
}

fn dao_poll() -> &'static AtomicI64 {
    // SAFETY: POLL points to FALLBACK or to the main thread's live TLS cell.
    unsafe { &*POLL.load(Relaxed) }
}

/// Checkpointing is enabled (DAO_DIR set and usable).
pub static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Candidates counted up to the last arming.
static COUNTED: AtomicU64 = AtomicU64::new(0);
/// What dao_poll was last armed with.
static ARMED: AtomicI64 = AtomicI64::new(i64::MAX);
static EVERY: AtomicU64 = AtomicU64::new(0);
/// DAO_PLACEMENT / DAO_PROFILE is the policy.
static PLACED: AtomicBool = AtomicBool::new(false);
static PROFILING: AtomicBool = AtomicBool::new(false);
static INTERVAL_NS: AtomicU64 = AtomicU64::new(u64::MAX);
static NEXT_DUE_NS: AtomicU64 = AtomicU64::new(u64::MAX);
/// Interval policy: candidates per clock read, and when the clock was read.
static BATCH: AtomicI64 = AtomicI64::new(1);
static LAST_LOOK_NS: AtomicU64 = AtomicU64::new(0);
/// MPI: a checkpoint was due at the last look but could not be taken
/// there (a message in flight): every candidate looks, and the first that
/// can take one does.
static OWED: AtomicBool = AtomicBool::new(false);
/// How often an interval policy reads the clock (at most), in ns: 1 ms,
/// or what `set_check_period` says (MPI: every look is a collective).
static CHECK_PERIOD_NS: AtomicU64 = AtomicU64::new(1_000_000);

/// MPI: an interval policy looks every `ms` milliseconds (each look costs
/// a collective; a checkpoint is then at most that late).
pub fn set_check_period(ms: u64) {
    CHECK_PERIOD_NS.store(ms.max(1) * 1_000_000, Relaxed);
}

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
        Policy::Placement => PLACED.store(true, Relaxed),
        Policy::Profile => {
            // Active without DAO_DIR: candidates are measured, not saved.
            PROFILING.store(true, Relaxed);
            ACTIVE.store(true, Relaxed);
            arm();
        }
    }
    rearm();
}

/// Turns checkpointing on (after the session is set up) and arms the countdown.
pub fn activate() {
    ACTIVE.store(true, Relaxed);
    LAST_LOOK_NS.store(now_ns(), Relaxed);
    arm();
}

/// Candidates reached so far (exact).
pub fn candidates() -> u64 {
    let armed = ARMED.load(Relaxed);
    if armed == i64::MAX {
        return COUNTED.load(Relaxed);
    }
    COUNTED.load(Relaxed) + (armed - dao_poll().load(Relaxed)).max(0) as u64
}

/// Sets the count (at restart, from the checkpoint) and re-arms.
pub fn set_candidates(n: u64) {
    COUNTED.store(n, Relaxed);
    arm();
}

fn set_poll(n: i64) {
    ARMED.store(n, Relaxed);
    dao_poll().store(n, Relaxed);
}

/// Arms dao_poll for the next look.
fn arm() {
    if !ACTIVE.load(Relaxed) {
        set_poll(i64::MAX);
        return;
    }
    if PROFILING.load(Relaxed) || OWED.load(Relaxed) {
        return set_poll(1);
    }
    // signals or a deadline (batch.rs): a look about every CHECK_PERIOD
    // whatever the policy, where the requests are read
    let looks = crate::batch::wants_looks() || crate::auto_mode::measuring();
    if PLACED.load(Relaxed) {
        // After the last chosen instance: keep counting, never call in.
        let c = COUNTED.load(Relaxed);
        let d = crate::placement::next_after(c).map_or(i64::MAX / 2, |k| (k - c) as i64);
        return set_poll(if looks { d.min(BATCH.load(Relaxed)) } else { d });
    }
    let n = match EVERY.load(Relaxed) {
        0 => BATCH.load(Relaxed),
        e if looks => ((e - COUNTED.load(Relaxed) % e) as i64).min(BATCH.load(Relaxed)),
        e => (e - COUNTED.load(Relaxed) % e) as i64,
    };
    set_poll(n.max(1));
}

/// No checkpoint from now on in this process (a child the program forked:
/// it would write the parent's DAO_DIR).
pub fn disable() {
    DISABLED.store(true, Relaxed);
    set_poll(i64::MAX);
}
static DISABLED: AtomicBool = AtomicBool::new(false);

/// Starts a new interval (after a checkpoint, at start and at restart).
pub fn rearm() {
    let i = INTERVAL_NS.load(Relaxed);
    NEXT_DUE_NS.store(now_ns().saturating_add(i), Relaxed);
    crate::batch::reset_gap();
}

/// Called from dao_candidate when dao_poll ran out: counts the candidates
/// since the last arming, says whether a checkpoint is due, and re-arms.
pub fn candidate_due() -> bool {
    let n = candidates();
    COUNTED.store(n, Relaxed);
    if DISABLED.load(Relaxed) {
        set_poll(i64::MAX);
        return false;
    }
    let now = now_ns();
    let every = EVERY.load(Relaxed);
    let profiling = PROFILING.load(Relaxed);
    // DAO_ASYNC=auto times a background writer's span (background.rs)
    let measuring = crate::auto_mode::measuring();
    if measuring {
        crate::auto_mode::look(now, n);
    }
    if (every == 0 && !PLACED.load(Relaxed)) || crate::batch::wants_looks() || measuring {
        // calibrate the candidates per look to about CHECK_PERIOD
        let last = LAST_LOOK_NS.swap(now, Relaxed);
        let elapsed = now.saturating_sub(last).max(1);
        let b = BATCH.load(Relaxed);
        let scaled = (b as u128 * CHECK_PERIOD_NS.load(Relaxed) as u128 / elapsed as u128) as i64;
        BATCH.store(scaled.clamp(1, b.saturating_mul(16).max(1)), Relaxed);
    }
    let due = match every {
        _ if profiling => false,
        _ if PLACED.load(Relaxed) => crate::placement::is_chosen(n),
        0 => now >= NEXT_DUE_NS.load(Relaxed),
        e => n % e == 0,
    };
    let due = due || OWED.swap(false, Relaxed);
    let request = if profiling { 0 } else { crate::batch::requested(now, n) };
    let trigger = match request {
        0 if due => TRIGGER_POLICY,
        0 => 0,
        r => r,
    };
    TRIGGER.fetch_max(trigger, Relaxed);
    arm();
    trigger != 0
}

/// What made a checkpoint due, by precedence (MPI: the ranks' largest
/// wins): the policy, the deadline, a signal, dao_checkpoint_now.
pub const TRIGGER_POLICY: u8 = 1;
pub const TRIGGER_DEADLINE: u8 = crate::batch::REQ_DEADLINE;
pub const TRIGGER_SIGNAL: u8 = crate::batch::REQ_SIGNAL;
pub const TRIGGER_FORCED: u8 = 4;
static TRIGGER: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The trigger of the checkpoint being taken (set at the look that made
/// it due; `set_trigger` for MPI's agreed one and forced checkpoints).
pub fn trigger() -> u8 {
    TRIGGER.load(Relaxed)
}

pub fn set_trigger(t: u8) {
    TRIGGER.store(t, Relaxed);
}

/// After a checkpoint (taken or not): the next starts without a trigger.
pub fn clear_trigger() {
    TRIGGER.store(0, Relaxed);
}

/// DAO_STATS's `"trigger"` of a checkpoint: `interval`, `every`,
/// `placement`, `signal`, `deadline` or `forced`.
pub fn trigger_name(t: u8) -> &'static str {
    match t {
        TRIGGER_SIGNAL => "signal",
        TRIGGER_DEADLINE => "deadline",
        TRIGGER_FORCED => "forced",
        _ if PLACED.load(Relaxed) => "placement",
        _ if EVERY.load(Relaxed) != 0 => "every",
        _ => "interval",
    }
}

/// MPI: the checkpoint due at this look is owed to the next candidates.
pub fn owe() {
    OWED.store(true, Relaxed);
    arm();
}

/// The countdown an interval policy would arm next (candidates per look).
pub fn batch() -> i64 {
    BATCH.load(Relaxed)
}

/// MPI: every rank arms the same countdown (the ranks' looks happen at the
/// same candidates; each rank calibrates its own, the smallest is used).
pub fn agree_batch(b: i64) {
    if (EVERY.load(Relaxed) == 0 && !PLACED.load(Relaxed)) || crate::batch::wants_looks() {
        BATCH.store(b.max(1), Relaxed);
        arm();
    }
}
