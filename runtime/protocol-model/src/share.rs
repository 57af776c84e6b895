//! `omp::share_work` / `omp::help`: the master publishes a job, runs it,
//! clears it and waits until no worker uses it; a stopped worker counts
//! itself in, loads the job, runs it if present, counts itself out.
//! Checked: a worker never touches the job after the master returned (the
//! job lives on the master's stack), and what workers wrote while running
//! it (the units' digests, plain memory) is visible to the master after
//! `share_work` returns, without a data race.
//!
//! The two fences make the Dekker pair explicit: SeqCst accesses alone
//! forbid the store-buffering outcome in the C++ model, but loom models
//! SeqCst accesses as AcqRel and finds it (both sides read the old value);
//! with a SeqCst fence between each side's write and read, the outcome is
//! excluded in loom too, and the runtime does the same.
use loom::cell::UnsafeCell;
use loom::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicUsize, Ordering::*};
use loom::sync::Arc;

pub struct Team {
    /// 0: no job; 1: the job is published.
    pub job: AtomicUsize,
    pub job_users: AtomicU32,
    /// Set when the master's share_work has returned (its job is gone).
    pub returned: AtomicBool,
    /// Units claimed (the job divides itself).
    pub next: AtomicUsize,
    /// One digest per unit, plain memory as in checkpoint.rs.
    pub digests: Vec<UnsafeCell<u64>>,
}

impl Team {
    pub fn new(units: usize) -> Arc<Team> {
        Arc::new(Team {
            job: AtomicUsize::new(0),
            job_users: AtomicU32::new(0),
            returned: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            digests: (0..units).map(|_| UnsafeCell::new(0)).collect(),
        })
    }

    /// The job: claim units until none are left, write each digest.
    pub fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Relaxed);
            if i >= self.digests.len() {
                return;
            }
            // SAFETY (model): unit i is claimed by exactly one thread
            self.digests[i].with_mut(|d| unsafe { *d = 100 + i as u64 });
        }
    }

    /// omp::share_work on the master.
    pub fn share_work(&self) {
        self.job.store(1, SeqCst);
        self.work();
        self.job.store(0, SeqCst);
        fence(SeqCst);
        while self.job_users.load(SeqCst) != 0 {
            loom::thread::yield_now();
        }
        self.returned.store(true, SeqCst);
    }

    /// omp::help on a stopped worker; true if it ran the job.
    pub fn help(&self) -> bool {
        if self.job.load(Relaxed) == 0 {
            return false;
        }
        self.job_users.fetch_add(1, SeqCst);
        fence(SeqCst);
        let j = self.job.load(SeqCst);
        if j != 0 {
            assert!(!self.returned.load(SeqCst), "a worker runs the job after share_work returned");
            self.work();
        }
        self.job_users.fetch_sub(1, SeqCst);
        j != 0
    }

    /// The master after share_work: reads every digest (layout.finish).
    pub fn digests_after(&self) -> Vec<u64> {
        // SAFETY (model): loom reports a race if a worker's write is not
        // ordered before this read
        self.digests.iter().map(|d| d.with(|p| unsafe { *p })).collect()
    }
}
