//! The blocking round of `omp::with_team_stopped`, `omp::worker_stop`,
//! `omp::park`/`unpark` and the master's barrier, for one region step:
//! each thread reaches a candidate, then a barrier (a team barrier: it
//! completes when every thread has arrived). The master's candidate is
//! due: it gathers the team, saves, releases.
//!
//! Checked: the round always completes (no thread waits forever: loom
//! fails an execution that cannot make progress), the master saves a
//! worker only while it stands still (at its candidate, or inside the
//! barrier it has not left), and what the worker published before
//! stopping (its `top` frame pointer, plain memory) is read without a
//! data race.
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::*};
use loom::sync::Arc;

pub const RUNNING: u32 = 1;
pub const CANDIDATE: u32 = 2;
pub const PARKED: u32 = 3;
pub const CLAIMED: u32 = 4;

pub struct Slot {
    pub state: AtomicU32,
    pub round: AtomicU64,
    pub syncs: AtomicU64,
    /// The innermost frame the master saves (plain memory in the runtime:
    /// a relaxed atomic there, written before the SeqCst state store).
    pub top: UnsafeCell<u64>,
    /// The worker is executing program code (between stops).
    pub moving: AtomicBool,
}

pub struct Team {
    pub request: AtomicU8,
    pub round: AtomicU64,
    pub done: AtomicU64,
    pub master_syncs: AtomicU64,
    /// Threads that arrived at the barrier.
    pub arrived: AtomicU32,
    pub workers: Vec<Slot>,
    /// Checkpoints written (the master's save ran).
    pub saved: AtomicU32,
}

impl Team {
    pub fn new(workers: usize) -> Arc<Team> {
        Arc::new(Team {
            request: AtomicU8::new(0),
            round: AtomicU64::new(0),
            done: AtomicU64::new(0),
            master_syncs: AtomicU64::new(0),
            arrived: AtomicU32::new(0),
            workers: (0..workers)
                .map(|_| Slot { state: AtomicU32::new(RUNNING), round: AtomicU64::new(0), syncs: AtomicU64::new(0), top: UnsafeCell::new(0), moving: AtomicBool::new(true) })
                .collect(),
            saved: AtomicU32::new(0),
        })
    }

    fn team_size(&self) -> u32 {
        1 + self.workers.len() as u32
    }

    /// The libomp barrier: arrive, wait for everybody.
    fn barrier(&self) {
        self.arrived.fetch_add(1, AcqRel);
        while self.arrived.load(Acquire) < self.team_size() {
            loom::thread::yield_now();
        }
    }

    /// Worker `w`: a candidate (marker), then a barrier (a sync site).
    pub fn worker(&self, w: usize) {
        let s = &self.workers[w];
        // the marker: checks the request flag (one relaxed load)
        if self.request.load(Relaxed) != 0 {
            // worker_stop
            let r = self.round.load(Acquire);
            s.moving.store(false, SeqCst);
            s.top.with_mut(|p| unsafe { *p = 10 + w as u64 });
            s.round.store(r, Relaxed);
            s.state.store(CANDIDATE, SeqCst);
            while self.done.load(Acquire) < r {
                loom::thread::yield_now();
            }
            s.state.store(RUNNING, Release);
            s.moving.store(true, SeqCst);
        }
        // park before the barrier
        s.syncs.store(s.syncs.load(Relaxed) + 1, Relaxed);
        s.moving.store(false, SeqCst);
        s.top.with_mut(|p| unsafe { *p = 20 + w as u64 });
        s.state.store(PARKED, SeqCst);
        self.barrier();
        // unpark
        loop {
            match s.state.compare_exchange(PARKED, RUNNING, AcqRel, Acquire) {
                Ok(_) => break,
                Err(CLAIMED) => {
                    while s.state.load(Acquire) == CLAIMED {
                        loom::thread::yield_now();
                    }
                }
                Err(x) => panic!("unpark found state {x}"),
            }
        }
        s.moving.store(true, SeqCst);
    }

    /// The master: a due candidate (the gather round), then the barrier.
    pub fn master(&self) {
        // with_team_stopped
        let r = self.round.fetch_add(1, AcqRel) + 1;
        self.request.store(1, SeqCst);
        let master_syncs = self.master_syncs.load(Acquire);
        let mut claimed = Vec::new();
        for (w, s) in self.workers.iter().enumerate() {
            loop {
                match s.state.load(SeqCst) {
                    CANDIDATE if s.round.load(Acquire) == r => break,
                    PARKED if s.syncs.load(Acquire) > master_syncs && s.state.compare_exchange(PARKED, CLAIMED, AcqRel, Acquire).is_ok() => {
                        claimed.push(w);
                        break;
                    }
                    _ => loom::thread::yield_now(),
                }
            }
        }
        // the save: every worker stands still; read what it published
        for s in &self.workers {
            assert!(!s.moving.load(SeqCst), "the master saves a worker that is running program code");
            let top = s.top.with(|p| unsafe { *p });
            assert!(top >= 10, "a worker's top was not published");
        }
        self.saved.fetch_add(1, SeqCst);
        self.request.store(0, SeqCst);
        self.done.store(r, Release);
        for w in claimed {
            self.workers[w].state.store(PARKED, Release);
        }
        // the master's own barrier (its park is a no-op, its unpark counts)
        self.barrier();
        self.master_syncs.fetch_add(1, Release);
    }
}
