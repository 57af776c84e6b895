//! Explicit tasks in flight: created and not yet finished.
//!
//! A checkpoint inside a parallel region is only correct where no task is
//! queued or running: a restart rebuilds the threads' stacks, not libomp's
//! task queues, so a task pending at the checkpoint would never run after
//! the restart (a marker right after a `single nowait` that created tasks
//! is such a place). The pass routes every `__kmpc_omp_task_alloc` to
//! `dao_omp_task_new` (counted here as created), makes every task entry of
//! the module end with `dao_omp_task_done` (finished), and routes
//! `__kmpc_taskloop` / `_5` to `dao_omp_taskloop*`: the taskloop's pattern
//! task is never run as itself (uncounted there), and the tasks libomp
//! copies from it are not counted at all: without `nogroup` the taskloop
//! waits for them before it returns; with `nogroup` (clang always passes
//! it, inside its own `__kmpc_taskgroup` .. `__kmpc_end_taskgroup` unless
//! the program said `nogroup`) they are finished at the end of the
//! innermost taskgroup the creating thread is in (`__kmpc_taskgroup` and
//! `__kmpc_end_taskgroup` are routed to `dao_omp_taskgroup` /
//! `dao_omp_end_taskgroup` to know it), or, outside any, when the region
//! ends: until then no checkpoint is taken inside that team.
//!
//! `protocol::with_team_stopped` asks [`quiescent`] once the team is
//! gathered (no thread can create a task then: every one is stopped or, in
//! a non-blocking round, runs behind the guards) and abandons the round
//! when tasks are in flight; the checkpoint is taken at a later candidate.
//! Tasks created in code not compiled with the pass but linked statically
//! into the program (`dao cc`/`dao fc` link with
//! `--wrap=__kmpc_omp_task_alloc`: entry.rs `__wrap___kmpc_omp_task_alloc`)
//! are not counted and have no trampoline: one inside an instrumented region
//! makes that region untracked until it ends, like a `nogroup` taskloop
//! outside a taskgroup, with one warning. Tasks created by shared
//! libraries are not seen.
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::*};

static IN_FLIGHT: AtomicI64 = AtomicI64::new(0);
/// `nogroup` taskloops outside any taskgroup: until the region ends.
static UNTRACKED: AtomicBool = AtomicBool::new(false);
/// `nogroup` taskloops inside a taskgroup that has not ended.
static IN_GROUPS: AtomicI64 = AtomicI64::new(0);

thread_local! {
    /// This thread's open taskgroups, innermost last: the `nogroup`
    /// taskloops started in each.
    static GROUPS: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}
/// Rounds abandoned because tasks were in flight (for the stats).
static DEFERRED: AtomicU64 = AtomicU64::new(0);

/// A task was allocated by instrumented code.
pub fn created() {
    IN_FLIGHT.fetch_add(1, SeqCst);
}

/// An instrumented task's entry returned (or a taskloop's pattern task,
/// which never runs, was handed to libomp).
pub fn finished() {
    IN_FLIGHT.fetch_sub(1, SeqCst);
}

/// A `nogroup` taskloop: its tasks may outlive the call, uncounted, until
/// the end of the innermost open taskgroup of this thread (or the region).
pub fn untracked() {
    let in_group = GROUPS.with(|g| g.borrow_mut().last_mut().map(|n| *n += 1).is_some());
    if in_group {
        IN_GROUPS.fetch_add(1, SeqCst);
    } else {
        UNTRACKED.store(true, SeqCst);
    }
}

/// A task was allocated by code not compiled with the pass (`psource`:
/// libomp's location string of the call, `;file;function;line;col;;`):
/// inside an instrumented region, no checkpoint in it until it ends.
pub fn uninstrumented(psource: Option<String>) {
    if !super::region::region_open() {
        return; // outside a region a task runs, or is waited for, before the next marker
    }
    UNTRACKED.store(true, SeqCst);
    let at = psource
        .and_then(|s| {
            let f: Vec<&str> = s.split(';').collect();
            (f.len() > 3 && f[1] != "unknown").then(|| format!(" ({}:{}, in {})", f[1], f[3], f[2]))
        })
        .unwrap_or_default();
    crate::diag::warn_once(
        "uninstrumented tasks",
        format_args!("explicit tasks are created by code not compiled with the dao pass{at}: dao cannot tell when they finish, so no checkpoint is taken inside a parallel region where such a task was created, until the region ends (this warning is shown once)"),
    );
}

/// `__kmpc_taskgroup` on this thread.
pub fn group_begin() {
    GROUPS.with(|g| g.borrow_mut().push(0));
}

/// `__kmpc_end_taskgroup` returned on this thread: the taskloops started in
/// the group have finished.
pub fn group_end() {
    if let Some(n) = GROUPS.with(|g| g.borrow_mut().pop()) {
        IN_GROUPS.fetch_sub(n, SeqCst);
    }
}

/// The outermost region ended: every task of its team has finished.
pub fn region_ended() {
    UNTRACKED.store(false, SeqCst);
    IN_GROUPS.store(0, SeqCst);
}

/// No instrumented task is queued or running (and no untracked one may be).
pub fn quiescent() -> bool {
    IN_FLIGHT.load(SeqCst) <= 0 && IN_GROUPS.load(SeqCst) <= 0 && !UNTRACKED.load(SeqCst)
}

/// How many tasks are in flight now.
pub fn in_flight() -> i64 {
    IN_FLIGHT.load(SeqCst)
}

/// Count a round given up for tasks in flight; the number so far.
pub fn deferred() -> u64 {
    DEFERRED.fetch_add(1, Relaxed) + 1
}

/// Rounds given up for tasks in flight in this run.
pub fn deferred_rounds() -> u64 {
    DEFERRED.load(Relaxed)
}
