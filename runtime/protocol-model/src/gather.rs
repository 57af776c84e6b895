//! The blocking round, run on the runtime's own code (`handshake::Team`:
//! `start`, `poll`, `release` for the master as `protocol::with_team_stopped`
//! calls them; `requested`, `stop`, `park`, `unpark` for the worker as
//! `protocol::worker_stop`/`park`/`unpark` do), for one region step: each
//! thread reaches a candidate, then a barrier (a team barrier: it completes
//! when every thread has arrived). The master's candidate is due: it
//! gathers the team, saves, releases.
//!
//! Checked: the round always completes (no thread waits forever: loom
//! fails an execution that cannot make progress), the master saves a
//! worker only while it stands still (at its candidate, or inside the
//! barrier it has not left), and what the worker published before
//! stopping (its `top` frame pointer, and plain memory written before it)
//! is read without a data race.
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering::*};
use loom::sync::Arc;

use crate::handshake::{self, Stop};

/// The flags the compiled program reads.
pub struct Flags {
    pub request: AtomicU8,
    pub guard: AtomicU8,
}

impl handshake::Flags for Flags {
    fn request(&self) -> &AtomicU8 {
        &self.request
    }
    fn guard(&self) -> &AtomicU8 {
        &self.guard
    }
}

pub struct Slot {
    /// The runtime's slot.
    pub p: handshake::Slot<u64>,
    /// Plain memory the worker writes before it stops (its frame), which
    /// the master reads while saving.
    pub frame: UnsafeCell<u64>,
    /// Ghost: the worker is executing program code (between stops).
    pub moving: AtomicBool,
}

pub struct Team {
    pub team: handshake::Team<Flags>,
    /// Threads that arrived at the barrier.
    pub arrived: AtomicU32,
    pub workers: Vec<Slot>,
    /// Checkpoints written (the master's save ran).
    pub saved: AtomicU32,
}

/// The model's wait: loom explores a yielding spin.
fn spin(ready: &mut dyn FnMut() -> bool) -> Result<(), std::convert::Infallible> {
    while !ready() {
        loom::thread::yield_now();
    }
    Ok(())
}

/// The frame pointer worker `w` publishes at its candidate (`at` 10) or
/// barrier (`at` 20): a fake address, compared, never dereferenced.
fn frame(w: usize, at: usize) -> *mut u64 {
    (0x1000 * (at + w)) as *mut u64
}

impl Team {
    pub fn new(workers: usize) -> Arc<Team> {
        let team = handshake::Team::new(Flags { request: AtomicU8::new(0), guard: AtomicU8::new(0) });
        let workers = (0..workers)
            .map(|_| {
                // the worker has entered the region (dao_omp_begin)
                let p = handshake::Slot::new();
                team.enter(&p);
                Slot { p, frame: UnsafeCell::new(0), moving: AtomicBool::new(true) }
            })
            .collect();
        Arc::new(Team { team, arrived: AtomicU32::new(0), workers, saved: AtomicU32::new(0) })
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
        // the marker: checks the request flag (one relaxed load in the
        // compiled code), then protocol::worker_stop
        if self.team.flags.request.load(Relaxed) != 0 {
            if let Some((r, nb)) = self.team.requested() {
                assert!(!nb);
                s.moving.store(false, SeqCst);
                s.frame.with_mut(|p| unsafe { *p = 10 + w as u64 });
                let _ = self.team.stop(&s.p, frame(w, 10), r, spin);
                s.moving.store(true, SeqCst);
            }
        }
        // protocol::park before the barrier
        s.moving.store(false, SeqCst);
        s.frame.with_mut(|p| unsafe { *p = 20 + w as u64 });
        self.team.park(&s.p, frame(w, 20));
        self.barrier();
        // protocol::unpark
        if let Ok(Some(x)) = self.team.unpark(&s.p, spin) {
            panic!("unpark found state {x}");
        }
        s.moving.store(true, SeqCst);
    }

    /// The master: a due candidate (the gather round of
    /// protocol::with_team_stopped, without its timeout), then the barrier.
    pub fn master(&self) {
        let (r, ms) = self.team.start(false);
        let mut claimed = Vec::new();
        let mut tops = Vec::new();
        for s in &self.workers {
            loop {
                match self.team.poll(&s.p, r, ms, false) {
                    Some(Stop::Candidate) => break,
                    Some(Stop::Claimed) => {
                        claimed.push(&s.p);
                        break;
                    }
                    Some(x) => panic!("the master found {x:?} in a blocking round"),
                    None => loom::thread::yield_now(),
                }
            }
            tops.push(s.p.top.load(Acquire));
        }
        // the save: every worker stands still; read what it published
        for (w, (s, top)) in self.workers.iter().zip(tops).enumerate() {
            assert!(!s.moving.load(SeqCst), "the master saves a worker that is running program code");
            let f = s.frame.with(|p| unsafe { *p });
            assert!(f >= 10, "a worker's frame was not published");
            assert_eq!(top, frame(w, f as usize - w), "the top the master read is not the worker's frame");
        }
        self.saved.fetch_add(1, SeqCst);
        self.team.gathered(false);
        self.team.release(r, false, claimed);
        // the master's own barrier (its park is a no-op, its unpark counts)
        self.barrier();
        self.team.master_passed_barrier();
    }
}
