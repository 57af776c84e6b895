//! The task driver: the trampoline's body ([`run_task`]) snapshots the
//! task, runs its executions (dual: the replica here and as a libomp task
//! queued with priority; serial: one after the other in place), compares
//! their results until two agree, and commits the agreed one.
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::counters::{self, C};
use super::exec::{catch, run_exec, Outcome};
use super::{faults, signals};
use crate::config::{Config, TaskFt};
use crate::omp::libomp::{self, Ident, TaskEntry};

/// Executions of one task before the program gives up on it.
pub const MAX_RUNS: usize = 6;

static ON: AtomicBool = AtomicBool::new(false);
static SERIAL: AtomicBool = AtomicBool::new(false);

/// Set up from the configuration, at program start (before any task).
pub fn setup(cfg: &Config) {
    let Some(mode) = cfg.task_ft else {
        if cfg.task_faults.is_some() {
            crate::diag::warn("DAO_TASK_FAULTS is ignored without DAO_TASK_FT=dual or serial");
        }
        return;
    };
    faults::configure(cfg.task_faults);
    signals::install_handlers(catch);
    SERIAL.store(mode == TaskFt::Serial, Relaxed);
    ON.store(true, Relaxed);
}

pub fn enabled() -> bool {
    ON.load(Relaxed)
}

/// The `task_ft` line of DAO_STATS and the stderr summary, at exit (when
/// fault-tolerant tasks are on).
pub fn summary(stats: Option<&std::path::Path>) {
    if !enabled() {
        return;
    }
    counters::report(stats);
}

/// `ident_t` for the runtime's own task calls.
static IDENT: Ident = Ident::new(c";dao;dao_ft_task;0;0;;");

fn omp() -> &'static libomp::Tasks {
    libomp::tasks().unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT=dual: libomp's task functions are not in the process"))
}

/// `&IDENT` as libomp's calls take it.
fn ident() -> *const std::ffi::c_void {
    &IDENT as *const Ident as *const std::ffi::c_void
}

/// A task's state between its executions: what a replica task needs.
struct Job {
    replica: TaskEntry,
    size: usize,
    shsize: usize,
    /// The descriptor's private part (`libomp::task_private`), before any
    /// execution.
    private: Vec<u8>,
    /// The shareds block, before any execution.
    shareds: Vec<u8>,
}

/// What a replica task finds in its descriptor (`libomp::set_task_slot`).
struct Slot {
    job: *const Job,
    first_two: bool,
    out: Option<Outcome>,
}

/// Queue one more execution of `job` as a libomp task; its outcome lands
/// in `slot` by the next taskwait.
///
/// # Safety
/// `slot` and `job` outlive that taskwait.
unsafe fn spawn(gtid: i32, job: &Job, slot: *mut Slot) {
    let o = omp();
    // SAFETY: libomp's task allocation, tied with a priority, sizes of the
    // original task.
    let t = unsafe { (o.alloc)(ident(), gtid, libomp::TASK_TIED_WITH_PRIORITY, job.size, job.shsize, replica_entry as TaskEntry as *const std::ffi::c_void) };
    // SAFETY: t is a fresh descriptor of job.size bytes (>= its header)
    // whose shareds block has job.shsize bytes, not queued yet.
    unsafe {
        libomp::set_task_state(t, &job.private, &job.shareds);
        // the priority 1, so that with OMP_MAX_TASK_PRIORITY > 0 (config.rs
        // sets it) libomp queues the replica in the team's priority list,
        // which every thread looks at before its own deque: an idle thread,
        // or one between two tasks, takes it rather than the creator after
        // its own execution
        libomp::set_task_slot(t, slot as *mut std::ffi::c_void, 1);
        (o.queue)(ident(), gtid, t);
    }
}

/// The routine of a replica task.
unsafe extern "C" fn replica_entry(gtid: i32, t: *mut u8) -> i32 {
    // SAFETY: spawn put the slot there; it lives until the creator's taskwait.
    unsafe {
        let slot = &mut *(libomp::task_slot(t) as *mut Slot);
        let job = &*slot.job;
        // a replica task must not find its slot pointer or priority as
        // data: restore the snapshot's two words
        libomp::clear_task_slot(t, &job.private);
        slot.out = Some(run_exec(job.replica, gtid, t, job.size, job.shsize, slot.first_two, false));
    }
    0
}

/// The trampoline's body: run `entry` once, or (DAO_TASK_FT=dual) the
/// replica until two executions agree, and commit.
///
/// # Safety
/// libomp's contract of a task entry; `entry`/`replica` the pass's pair for
/// a descriptor of `size` bytes with `shsize` bytes of shareds.
pub unsafe fn run_task(gtid: i32, task: *mut u8, entry: TaskEntry, replica: TaskEntry, in_place: TaskEntry, size: usize, shsize: usize) {
    if !enabled() || size < libomp::TASK_DESC_SIZE {
        // SAFETY: the task as libomp would run it.
        unsafe { entry(gtid, task) };
        return;
    }
    C.tasks.fetch_add(1, Relaxed);
    // SAFETY: the descriptor's bytes and shareds block (contract above).
    let job = unsafe {
        let sh = libomp::task_shareds(task);
        Job {
            replica,
            size,
            shsize,
            private: libomp::task_private(task, size),
            shareds: if sh.is_null() { Vec::new() } else { std::slice::from_raw_parts(sh, shsize).to_vec() },
        }
    };
    if SERIAL.load(Relaxed) {
        // SAFETY: the task's descriptor and its snapshot (contract above).
        unsafe { run_serial(gtid, task, &job, in_place) };
        return;
    }
    let mut slot = Slot { job: &job, first_two: true, out: None };
    // SAFETY: slot and job live until the taskwait below.
    unsafe { spawn(gtid, &job, &mut slot) };
    // SAFETY: the original descriptor, before anything else touches it.
    let a = unsafe { run_exec(replica, gtid, task, size, shsize, true, false) };
    // SAFETY: libomp's taskwait in the task that queued the replica task.
    unsafe { (omp().taskwait)(ident(), gtid) };
    let b = slot.out.take().unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT: a replica task did not run by the taskwait"));
    if a.thread != b.thread {
        C.other_thread.fetch_add(1, Relaxed);
    }
    // faults are counted per injected execution
    let injected = a.injected as u64 + b.injected as u64;
    let mut outs = vec![a, b];
    let agree = |o: &[Outcome]| -> Option<usize> {
        for i in 0..o.len() {
            for j in i + 1..o.len() {
                if let (Some(x), Some(y)) = (&o[i].buf, &o[j].buf) {
                    if x == y {
                        return Some(i);
                    }
                }
            }
        }
        None
    };
    let first = agree(&outs);
    if first.is_none() {
        C.detected.fetch_add(injected, Relaxed);
        if outs.iter().all(|o| o.buf.is_some()) {
            C.mismatches.fetch_add(1, Relaxed);
        }
    } else {
        C.benign.fetch_add(injected, Relaxed);
    }
    let mut pick = first;
    while pick.is_none() {
        if outs.len() >= MAX_RUNS {
            crate::diag::fatal(format_args!(
                "DAO_TASK_FT: {} executions of a task gave no two equal results ({} crashed); stopping rather than writing an unconfirmed result",
                outs.len(),
                outs.iter().filter(|o| o.buf.is_none()).count()
            ));
        }
        C.reruns.fetch_add(1, Relaxed);
        let mut slot = Slot { job: &job, first_two: false, out: None };
        // SAFETY: as above.
        unsafe {
            spawn(gtid, &job, &mut slot);
            (omp().taskwait)(ident(), gtid);
        }
        outs.push(slot.out.take().unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT: a replica task did not run by the taskwait")));
        pick = agree(&outs);
        if pick.is_some() {
            C.corrected.fetch_add(injected, Relaxed);
        }
    }
    let buf = outs[pick.unwrap()].buf.as_ref().unwrap();
    // a checked-in worker of a non-blocking round writes no shared data
    // until the master has saved it (the guards' rule)
    crate::protocol::guard_wait();
    // SAFETY: the addresses the replica wrote (twice, equally).
    unsafe { buf.commit() };
}

/// Serial mode: executions one after the other on this thread, in place;
/// each one's writes are undone unless its result equals an earlier one's
/// (then memory holds the agreed result).
///
/// # Safety
/// `task` is the live descriptor `job` was taken from.
unsafe fn run_serial(gtid: i32, task: *mut u8, job: &Job, in_place: TaskEntry) {
    let mut outs: Vec<Outcome> = Vec::new();
    loop {
        if !outs.is_empty() {
            // the next execution starts from the task's state at creation
            // SAFETY: the descriptor and its shareds block (contract above).
            unsafe { libomp::set_task_state(task, &job.private, &job.shareds) };
        }
        if outs.len() >= 2 {
            C.reruns.fetch_add(1, Relaxed);
        }
        // SAFETY: the descriptor, as libomp would run it.
        let o = unsafe { run_exec(in_place, gtid, task, job.size, job.shsize, outs.len() < 2, true) };
        let agrees = o.trace.as_ref().is_some_and(|t| outs.iter().any(|p| p.trace.as_ref() == Some(t)));
        if !agrees {
            if let Some(u) = &o.undo {
                // SAFETY: the spans it wrote.
                unsafe { u.undo() };
            }
        }
        outs.push(o);
        if outs.len() == 2 {
            let injected = outs[0].injected as u64 + outs[1].injected as u64;
            if agrees {
                C.benign.fetch_add(injected, Relaxed);
            } else {
                C.detected.fetch_add(injected, Relaxed);
                if outs.iter().all(|o| o.trace.is_some()) {
                    C.mismatches.fetch_add(1, Relaxed);
                }
            }
        }
        if agrees {
            if outs.len() > 2 {
                C.corrected.fetch_add(outs[0].injected as u64 + outs[1].injected as u64, Relaxed);
            }
            return;
        }
        if outs.len() >= MAX_RUNS {
            crate::diag::fatal(format_args!(
                "DAO_TASK_FT: {} executions of a task gave no two equal results ({} crashed); stopping rather than keeping an unconfirmed result",
                outs.len(),
                outs.iter().filter(|o| o.trace.is_none()).count()
            ));
        }
    }
}
