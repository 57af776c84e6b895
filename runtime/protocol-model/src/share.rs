//! `protocol::share_work` / `help`, run on the runtime's own code
//! (`handshake::Share`): the master publishes a job, runs it, clears it and
//! waits until no worker uses it; a stopped worker counts itself in, loads
//! the job, runs it if present, counts itself out. Checked: a worker never
//! touches the job after the master returned (the job lives on the
//! master's stack), and what workers wrote while running it (the units'
//! digests, plain memory) is visible to the master after `share_work`
//! returns, without a data race.
//!
//! The handshake has a SeqCst fence between each side's write and read:
//! SeqCst accesses alone forbid the store-buffering outcome in the C++
//! model, but loom models SeqCst accesses as AcqRel and finds it (both
//! sides read the old value); with the fences the outcome is excluded in
//! loom too.
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use loom::sync::Arc;

use crate::handshake;

/// The job the master publishes (the runtime's holds the closure to run;
/// here the work is [`Team::work`], and `id` is read to touch the job).
pub struct Job {
    pub id: u64,
}

pub struct Team {
    /// The runtime's `JOB` / `JOB_USERS`.
    pub share: handshake::Share<Job>,
    /// Set when the master's share_work has returned (its job is gone).
    pub returned: AtomicBool,
    /// Units claimed (the job divides itself).
    pub next: AtomicUsize,
    /// One digest per unit, plain memory as in checkpoint.rs.
    pub digests: Vec<UnsafeCell<u64>>,
}

/// The model's wait: loom explores a yielding spin.
fn spin(ready: &mut dyn FnMut() -> bool) -> Result<(), std::convert::Infallible> {
    while !ready() {
        loom::thread::yield_now();
    }
    Ok(())
}

impl Team {
    pub fn new(units: usize) -> Arc<Team> {
        Arc::new(Team {
            share: handshake::Share::new(),
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

    /// protocol::share_work on the master (the job on its stack).
    pub fn share_work(&self) {
        let job = Job { id: 7 };
        let _ = self.share.share(&job, || self.work(), spin);
        self.returned.store(true, SeqCst);
    }

    /// protocol::share::help on a stopped worker; true if it ran the job.
    pub fn help(&self) -> bool {
        self.share.help(|j| {
            assert!(!self.returned.load(SeqCst), "a worker runs the job after share_work returned");
            assert_eq!(j.id, 7);
            self.work();
        })
    }

    /// The master after share_work: reads every digest (layout.finish).
    pub fn digests_after(&self) -> Vec<u64> {
        // SAFETY (model): loom reports a race if a worker's write is not
        // ordered before this read
        self.digests.iter().map(|d| d.with(|p| unsafe { *p })).collect()
    }
}
