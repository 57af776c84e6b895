//! The non-blocking checkpoint round (`omp::with_team_stopped` with
//! `DAO_PROTOCOL=nonblocking`, `omp::worker_stop`, `omp::guard_wait`,
//! `omp::park`/`unpark`/`end`): a worker checks in at a marker by writing a
//! snapshot of its private state and KEEPS RUNNING; a guard before shared
//! writes (and before every lock acquisition) holds a worker that has
//! checked in until the master has saved, so the shared data the master
//! saves is exactly what the team wrote up to the workers' cuts. A worker
//! waiting in a barrier the master has not reached is saved in place
//! (claimed, as in the blocking round of [`crate::gather`]); a worker that
//! has left the region (EXITED) is saved at its end.
//!
//! # States and operations (the runtime's names)
//!
//! Shared: `request` (`dao_omp_request`, the flag markers test), `guard`
//! (`dao_omp_guard`, the flag the pass's guards test), `round` (`ROUND`),
//! `done` (`DONE`), `master_syncs` (`MASTER_SYNCS`, barriers the master
//! has passed). Per worker ([`Slot`], `omp::Slot`): `state` (RUNNING,
//! PARKED, CLAIMED, EXITED), `syncs` (barriers entered), `checked` (the
//! round it has checked in for, 0 = none), `snap` (its snapshot: plain
//! memory here, stricter than the runtime's mutex), `frame` (its stack,
//! what the master reads in place: `top` and the frames it points to).
//! Program data: `x`, plain memory cells written by workers and read by
//! the master's save.
//!
//! Master, at its due candidate (the initiator), [`Team::master`]:
//! 1. `r = round.fetch_add(1, AcqRel) + 1`; `guard.store(1, SeqCst)`;
//!    `request.store(1, SeqCst)`; `ms = master_syncs.load(Acquire)`;
//! 2. gather, per worker, spinning until one of: `checked.load(SeqCst) ==
//!    r` (saved from its snapshot); `state.load(SeqCst) == EXITED` (saved at
//!    the region's end); `state == PARKED && syncs.load(Acquire) > ms &&
//!    CAS(state, PARKED -> CLAIMED, AcqRel, Acquire)` (saved in place,
//!    inside a barrier the master has not reached); then
//!    `request.store(0, SeqCst)` (the runtime clears the request as soon as
//!    every worker is accounted for);
//! 3. save: read the snapshots, the claimed/exited workers' frames, `x`;
//! 4. release: `request.store(0, SeqCst)`; `done.store(r, Release)`;
//!    `guard.store(0, Release)`; each claimed slot `state.store(PARKED,
//!    Release)`.
//!
//! Then it goes on with its program; after each barrier,
//! `master_syncs.fetch_add(1, Release)`.
//!
//! Worker, [`Team::worker`]:
//! - marker: `if request.load(Relaxed) != 0` (the code), then in
//!   `worker_stop`: `if request.load(Acquire) == 0 { return }`; `r =
//!   round.load(Acquire)`; `if checked.load(Relaxed) != r { write snap;
//!   checked.store(r, SeqCst) }`; it goes on (no waiting);
//! - guard: `if guard.load(Acquire) != 0 { c = checked.load(Relaxed); if
//!   c != 0 { spin while done.load(Acquire) < c } }`. [`Step::Write`] is a
//!   guard and a store; [`Step::Guard`] and [`Step::Store`] place them
//!   apart, as the pass does (one guard covers the stores up to the next
//!   marker or barrier); [`Step::Lock`] runs the guard before acquiring;
//! - barrier: `syncs.store(syncs + 1, Relaxed)`; `state.store(PARKED,
//!   SeqCst)`; arrive and wait for the team; leave with CAS PARKED ->
//!   RUNNING (AcqRel, Acquire), spinning while CLAIMED;
//! - end of the region: `state.store(EXITED, SeqCst)`.
//!
//! libomp's barrier is an arrival counter per barrier instance (AcqRel
//! RMW, Acquire loads); locks are spin locks (CAS false -> true Acquire,
//! store false Release). Not modelled: distributed saving (workers waiting
//! at a guard help write the file: [`crate::share`]), the timeout that
//! abandons a round, and the master's own shared writes.
//!
//! # The programs
//!
//! A model is a [`Config`]: one program per worker (a list of [`Step`]s,
//! then the end of the region) and the master's ([`MStep`]s, then the
//! join). Every store `x[cell] |= bit` sets a bit of its own, so the data
//! is the set of stores that happened, whatever their order. A worker's
//! private state `acc` (a register in the real program: the sum of the bits
//! it stored) and its position go to `frame` before every step and at its
//! end, and to `snap` when it checks in.
//!
//! # What is checked
//!
//! - (a) no deadlock: no reachable state in which every unfinished thread
//!   waits and none of the conditions can become true (the model panics
//!   with "deadlock", see "Bounds"); in every complete execution, each
//!   round completed and every worker exited;
//! - (b) no data race on `x`, `snap` or `frame` (loom's causality check on
//!   plain memory): the master reads a snapshot only after its check-in, a
//!   frame only while its worker stands still (claimed or exited), the
//!   data only while no worker can write it;
//! - (c) the save is a consistent cut: each worker is saved at a position
//!   (after the marker it checked in at, at the barrier it was claimed in,
//!   or at its end), the private state saved is the one of that position,
//!   and every data cell holds exactly the bits stored by the steps before
//!   the saved positions ([`Config::cut`]): a pre-cut store, even one made
//!   after the round started, is in the save; a post-cut store is not. A
//!   worker is claimed only inside a barrier that has not completed (a
//!   ghost check on the barrier's arrival counter, a relaxed load that adds
//!   no synchronization), so redoing that barrier on restart matches the
//!   master.
//!
//! The tests (`tests/nonblocking.rs`) record the outcomes of the complete
//! executions (how each worker was saved, where) and require each expected
//! one to occur, so no assertion holds vacuously. [`Fault`] selects a
//! deliberately broken variant; the negative tests show that the model
//! fails with each.
//!
//! # Bounds
//!
//! Every test has a preemption bound (3; 2 for the model with two
//! workers, whose bound 3 takes many minutes). Waits are bounded too:
//! loom explores a spin loop that yields fully when one thread spins, but
//! two threads spinning at once make it alternate between them without
//! end while the thread they wait for is never scheduled
//! (tokio-rs/loom#53), so a model with three threads does not finish. A
//! wait here spins with `yield_now` like the runtime, and after
//! [`SPIN_BOUND`] failed checks:
//! - if every other unfinished thread waits too and each has failed at
//!   least [`STUCK_CHECKS`] checks since the last time a thread began to
//!   wait or finished (every write a thread makes comes before one of
//!   those, so nothing was written since; and loom makes a load after a
//!   yield return a store newer than one seen before it, so the checks
//!   read the latest values), no condition can become true: the model
//!   panics with "deadlock";
//! - otherwise another thread could go on and loom is only starving it:
//!   the waiting thread is abandoned (it stops where it stands, as if never
//!   scheduled again), and so, in turn, is every thread that waits for it.
//!
//! Every execution is then a prefix of a real one, so whatever it finds (a
//! data race, a failed assertion) is real. Nothing is lost by cutting a
//! wait short: a failed check only reads (a load, a failed CAS), so the
//! execution in which the waiting thread checks fewer times, and not while
//! the others are still on their way, makes the same writes in the same
//! order and is explored as well; the checks it skips could only have
//! added happens-before edges (acquire loads), so it is, if anything, the
//! stricter one. The checks that need a finished execution (rounds
//! completed, workers exited, the outcomes the tests expect) are made on
//! the complete executions. The deadlock test (`fault_unguarded_lock`)
//! shows that a real deadlock is still reported.
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering::*};
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic as ghost;
use std::sync::Mutex as GhostMutex;

pub use crate::handshake::Fault;
use crate::handshake::{self, Stop, EXITED, PARKED};

/// After this many failed checks a wait either reports a deadlock or gives
/// up (abandons its thread), see "Bounds".
pub const SPIN_BOUND: usize = 2;
/// Failed checks every waiting thread must have made, since the last time
/// a thread began to wait or finished, for the model to call it a
/// deadlock.
pub const STUCK_CHECKS: usize = 2;

/// A step of a worker's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A marker (a candidate): checks in when a round is requested.
    Marker,
    /// A guard (`if guard { guard_wait() }`), as the pass places it: it
    /// covers the stores after it up to the next marker or barrier.
    Guard,
    /// A shared write `x[cell] |= bit` that an earlier guard covers.
    Store { cell: usize, bit: u64 },
    /// A guarded shared write: `Guard` then `Store`.
    Write { cell: usize, bit: u64 },
    /// Acquire lock `l` (guarded: the guard runs first).
    Lock(usize),
    /// Release lock `l`.
    Unlock(usize),
    /// A team barrier (a sync site: park, wait, unpark).
    Barrier,
}

/// A step of the master's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MStep {
    /// A due candidate: the master runs a round.
    Round,
    /// A team barrier (then `master_syncs += 1`).
    Barrier,
    /// Test scaffolding, no runtime counterpart: wait until worker `w` is
    /// parked (to start a round while it waits in a barrier).
    WaitParked(usize),
}

/// A model: the programs and the variant.
#[derive(Clone, Debug)]
pub struct Config {
    pub workers: Vec<Vec<Step>>,
    pub master: Vec<MStep>,
    pub cells: usize,
    pub locks: usize,
    pub fault: Fault,
}

/// How the master saved a worker in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum How {
    /// From the snapshot it wrote at a marker (it kept running).
    Snapshot,
    /// In place, inside a barrier (CLAIMED).
    Claimed,
    /// At the end of the region (EXITED).
    Exited,
}

/// A worker as saved in one round: how, and at which position of its
/// program (the index of the step it resumes at).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Saved {
    pub how: How,
    pub pos: usize,
}

/// The result of one execution.
#[derive(Clone, Debug)]
pub struct Execution {
    /// Each round's save, in order (the rounds the master completed).
    pub rounds: Vec<Vec<Saved>>,
    /// Every thread ran to its end (no wait was abandoned).
    pub complete: bool,
    /// The master claimed (saved in place) a worker that had checked in.
    pub claimed_checked_in: bool,
}

/// The flags the compiled program reads (`dao_omp_request`,
/// `dao_omp_guard`) and the variant.
pub struct Flags {
    pub request: AtomicU8,
    pub guard: AtomicU8,
    pub fault: Fault,
}

impl handshake::Flags for Flags {
    fn request(&self) -> &AtomicU8 {
        &self.request
    }
    fn guard(&self) -> &AtomicU8 {
        &self.guard
    }
    fn fault(&self) -> Fault {
        self.fault
    }
}

pub struct Slot {
    /// The runtime's slot (state, top, round, syncs, checked).
    pub p: handshake::Slot<u64>,
    /// The snapshot of the worker's private state (position, acc).
    pub snap: UnsafeCell<u64>,
    /// The worker's stack: its position and acc, written as it runs.
    pub frame: UnsafeCell<u64>,
    /// Ghost (outside loom): the round the worker checked in for.
    ghost_checked: ghost::AtomicU64,
}

pub struct Team {
    pub config: Config,
    /// The runtime's protocol state (request and guard flags, round, done,
    /// master_syncs), run by the runtime's code (`handshake.rs`).
    pub team: handshake::Team<Flags>,
    pub workers: Vec<Slot>,
    /// Shared program data (plain memory).
    pub x: Vec<UnsafeCell<u64>>,
    pub locks: Vec<AtomicBool>,
    /// libomp's barriers: arrivals per barrier instance.
    pub arrived: Vec<AtomicU32>,
    waits: GhostMutex<Waits>,
    /// Ghost: the master claimed a worker that had checked in (saved in
    /// place although it has a snapshot).
    claimed_checked_in: ghost::AtomicBool,
}

/// A wait gave up: its thread stops here (module doc, "Bounds").
#[derive(Debug)]
pub struct Abandoned;

/// What a thread is doing, for the bounded waits (ghost state, outside
/// loom: it adds no synchronization and no interleavings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doing {
    Running,
    /// Waiting at `site`: `fails` failed checks since the wait generation
    /// `generation`.
    Waiting { site: &'static str, generation: u64, fails: usize },
    Finished,
}

/// The bounded waits (module doc, "Bounds"): what each thread is doing.
struct Waits {
    doing: Vec<Doing>,
    generation: u64,
    abandoned: bool,
}

fn pack(pos: usize, acc: u64) -> u64 {
    ((pos as u64) << 32) | acc
}

fn unpack(v: u64) -> (usize, u64) {
    ((v >> 32) as usize, v & 0xffff_ffff)
}

impl Config {
    /// The private state (acc) of worker `w` at position `pos`.
    pub fn acc_at(&self, w: usize, pos: usize) -> u64 {
        self.workers[w][..pos]
            .iter()
            .map(|s| match s {
                Step::Write { bit, .. } | Step::Store { bit, .. } => *bit,
                _ => 0,
            })
            .sum()
    }

    /// Cell `cell` as it must be saved with every worker at its saved
    /// position (the master writes no data).
    pub fn cut(&self, cell: usize, saved: &[Saved]) -> u64 {
        let mut v = 0;
        for (w, s) in saved.iter().enumerate() {
            for step in &self.workers[w][..s.pos] {
                if let Step::Write { cell: c, bit } | Step::Store { cell: c, bit } = step {
                    if *c == cell {
                        v |= bit;
                    }
                }
            }
        }
        v
    }
}

/// Thread ids for the waits: the master is 0, worker `w` is `w + 1`.
const MASTER: usize = 0;

impl Team {
    pub fn new(config: Config) -> Arc<Team> {
        let barriers = config.master.iter().filter(|s| **s == MStep::Barrier).count();
        for p in &config.workers {
            assert_eq!(p.iter().filter(|s| **s == Step::Barrier).count(), barriers, "every thread meets the same barriers");
        }
        let team = handshake::Team::new(Flags { request: AtomicU8::new(0), guard: AtomicU8::new(0), fault: config.fault });
        Arc::new(Team {
            workers: config
                .workers
                .iter()
                .map(|_| {
                    // every worker has entered the region (dao_omp_begin)
                    let p = handshake::Slot::new();
                    team.enter(&p);
                    Slot {
                    p,
                    snap: UnsafeCell::new(0),
                    frame: UnsafeCell::new(0),
                    ghost_checked: ghost::AtomicU64::new(0),
                }
                })
                .collect(),
            team,
            x: (0..config.cells).map(|_| UnsafeCell::new(0)).collect(),
            locks: (0..config.locks).map(|_| AtomicBool::new(false)).collect(),
            arrived: (0..barriers).map(|_| AtomicU32::new(0)).collect(),
            claimed_checked_in: ghost::AtomicBool::new(false),
            waits: GhostMutex::new(Waits { doing: vec![Doing::Running; config.workers.len() + 1], generation: 0, abandoned: false }),
            config,
        })
    }

    fn team_size(&self) -> u32 {
        1 + self.workers.len() as u32
    }

    /// Thread `me` spins (yielding) until `ready()`; a bounded wait.
    fn wait(&self, me: usize, site: &'static str, mut ready: impl FnMut() -> bool) -> Result<(), Abandoned> {
        {
            let mut g = self.waits.lock().unwrap();
            g.generation += 1;
            let generation = g.generation;
            g.doing[me] = Doing::Waiting { site, generation, fails: 0 };
        }
        let mut fails = 0;
        loop {
            if ready() {
                self.waits.lock().unwrap().doing[me] = Doing::Running;
                return Ok(());
            }
            fails += 1;
            let mut g = self.waits.lock().unwrap();
            let now = g.generation;
            if let Doing::Waiting { generation, fails: f, .. } = &mut g.doing[me] {
                if *generation == now {
                    *f += 1;
                } else {
                    *generation = now;
                    *f = 1;
                }
            }
            if fails > SPIN_BOUND {
                let stuck = |d: &Doing| match d {
                    Doing::Waiting { generation, fails, .. } => *generation == now && *fails >= STUCK_CHECKS,
                    Doing::Running => false,
                    Doing::Finished => true,
                };
                if !g.abandoned && g.doing.iter().all(stuck) {
                    let sites: Vec<_> = g.doing.iter().map(|d| format!("{d:?}")).collect();
                    drop(g);
                    panic!("deadlock: every thread waits and none can go on: {}", sites.join(", "));
                }
                g.abandoned = true;
                g.doing[me] = Doing::Finished;
                return Err(Abandoned);
            }
            drop(g);
            thread::yield_now();
        }
    }

    /// Thread `me` has finished (it writes nothing more).
    fn finish(&self, me: usize) {
        let mut g = self.waits.lock().unwrap();
        // it may have written since the others' last checks
        g.generation += 1;
        g.doing[me] = Doing::Finished;
    }

    /// Thread `me` arrives at barrier instance `k` (1-based), waits for
    /// the team.
    fn barrier_wait(&self, me: usize, k: u64) -> Result<(), Abandoned> {
        let a = &self.arrived[k as usize - 1];
        a.fetch_add(1, AcqRel);
        self.wait(me, "barrier", || a.load(Acquire) == self.team_size())
    }

    /// The guard the compiler inserts before a shared write.
    fn guard(&self, me: usize, s: &Slot) -> Result<(), Abandoned> {
        // the compiled code's inline test, then dao_omp_guard_wait
        if self.team.guard_flag() {
            self.team.guard_wait(&s.p, |ready: &mut dyn FnMut() -> bool| self.wait(me, "guard", ready))?;
        }
        Ok(())
    }

    /// A marker (the worker's candidate); `pos`: where its snapshot
    /// resumes.
    fn marker(&self, s: &Slot, pos: usize, acc: u64) {
        // the marker's fast path (in the code), then protocol::worker_stop
        if self.team.flags.request.load(Relaxed) != 0 {
            let Some((r, nb)) = self.team.requested() else { return };
            assert!(nb, "a blocking round in the non-blocking model");
            if self.team.check_in(&s.p, r, || s.snap.with_mut(|p| unsafe { *p = pack(pos, acc) })) {
                s.ghost_checked.store(r, ghost::Ordering::Relaxed);
            }
        }
    }

    /// Worker `w` runs its program, then leaves the region.
    pub fn worker(&self, w: usize) -> Result<(), Abandoned> {
        let me = w + 1;
        let s = &self.workers[w];
        let mut acc = 0;
        for (pc, step) in self.config.workers[w].iter().enumerate() {
            s.frame.with_mut(|p| unsafe { *p = pack(pc, acc) });
            match *step {
                Step::Marker => self.marker(s, pc + 1, acc),
                Step::Guard => self.guard(me, s)?,
                Step::Store { cell, bit } => {
                    self.x[cell].with_mut(|p| unsafe { *p |= bit });
                    acc += bit;
                }
                Step::Write { cell, bit } => {
                    self.guard(me, s)?;
                    self.x[cell].with_mut(|p| unsafe { *p |= bit });
                    acc += bit;
                }
                Step::Lock(l) => {
                    if self.config.fault != Fault::UnguardedLock {
                        self.guard(me, s)?;
                    }
                    self.wait(me, "lock", || self.locks[l].compare_exchange(false, true, Acquire, Relaxed).is_ok())?;
                }
                Step::Unlock(l) => self.locks[l].store(false, Release),
                Step::Barrier => {
                    self.team.park(&s.p, std::ptr::null_mut());
                    let n = s.p.syncs.load(Relaxed);
                    self.barrier_wait(me, n)?;
                    if let Some(x) = self.team.unpark(&s.p, |ready: &mut dyn FnMut() -> bool| self.wait(me, "claimed", ready))? {
                        panic!("unpark found state {x}");
                    }
                }
            }
        }
        s.frame.with_mut(|p| unsafe { *p = pack(self.config.workers[w].len(), acc) });
        self.team.end(&s.p, std::ptr::null_mut());
        self.finish(me);
        Ok(())
    }

    /// One round at the master's due candidate; returns how each worker
    /// was saved (after checking the save).
    fn round(&self) -> Result<Vec<Saved>, Abandoned> {
        // 1. request
        let (r, ms) = self.team.start(true);
        // 2. gather
        let mut hows = Vec::new();
        for s in &self.workers {
            let mut how = None;
            self.wait(MASTER, "gather", || {
                how = match self.team.poll(&s.p, r, ms, true) {
                    None => return false,
                    Some(Stop::CheckedIn) => Some(How::Snapshot),
                    Some(Stop::Exited) => Some(How::Exited),
                    Some(Stop::Claimed) => Some(How::Claimed),
                    Some(Stop::Candidate) => panic!("a blocking stop in a non-blocking round"),
                };
                true
            })?;
            let how = how.unwrap();
            if how == How::Claimed && s.ghost_checked.load(ghost::Ordering::Relaxed) == r {
                self.claimed_checked_in.store(true, ghost::Ordering::Relaxed);
            }
            if how == How::Claimed {
                // ghost check (a relaxed load adds no synchronization): the
                // barrier the worker waits in has not completed
                let k = s.p.syncs.load(Relaxed);
                assert!(self.arrived[k as usize - 1].load(Relaxed) < self.team_size(), "claimed a worker inside barrier {k}, which has completed");
            }
            hows.push(how);
        }
        // every worker is accounted for: markers need not call in any more
        self.team.gathered(true);
        // 3. save: the workers' states, then the data
        let mut saved = Vec::new();
        for (w, (s, how)) in self.workers.iter().zip(hows).enumerate() {
            let (pos, acc) = match how {
                How::Snapshot => unpack(s.snap.with(|p| unsafe { *p })),
                How::Claimed | How::Exited => unpack(s.frame.with(|p| unsafe { *p })),
            };
            let prog = &self.config.workers[w];
            match how {
                How::Snapshot => assert!(pos >= 1 && prog[pos - 1] == Step::Marker, "worker {w}: snapshot at {pos}, not after a marker"),
                How::Claimed => assert_eq!(prog.get(pos), Some(&Step::Barrier), "worker {w} claimed at {pos}, not at a barrier"),
                How::Exited => assert_eq!(pos, prog.len(), "worker {w} exited before its end"),
            }
            assert_eq!(acc, self.config.acc_at(w, pos), "worker {w}: private state saved at {pos} is torn");
            saved.push(Saved { how, pos });
        }
        for (c, cell) in self.x.iter().enumerate() {
            let v = cell.with(|p| unsafe { *p });
            assert_eq!(v, self.config.cut(c, &saved), "x[{c}] is not the cut of {saved:?}");
        }
        // 4. release
        self.team.release(r, true, self.workers.iter().zip(&saved).filter(|(_, sv)| sv.how == How::Claimed).map(|(s, _)| &s.p));
        Ok(saved)
    }

    /// The master runs its program, pushing each round's save.
    pub fn master(&self, rounds: &mut Vec<Vec<Saved>>) -> Result<(), Abandoned> {
        for step in &self.config.master {
            match *step {
                MStep::Round => rounds.push(self.round()?),
                MStep::Barrier => {
                    let k = self.team.master_syncs.load(Relaxed) + 1;
                    self.barrier_wait(MASTER, k)?;
                    self.team.master_passed_barrier();
                }
                MStep::WaitParked(w) => self.wait(MASTER, "scaffolding", || self.workers[w].p.state.load(SeqCst) == PARKED)?,
            }
        }
        // the join: the master writes nothing more
        self.finish(MASTER);
        Ok(())
    }
}

/// One execution: spawn the workers, run the master, join (the region's
/// end). In a complete execution, checks that every round completed and
/// every worker exited.
pub fn run(config: &Config) -> Execution {
    let team = Team::new(config.clone());
    let handles: Vec<_> = (0..config.workers.len())
        .map(|w| {
            let t = team.clone();
            thread::spawn(move || t.worker(w).is_ok())
        })
        .collect();
    let mut rounds = Vec::new();
    let mut complete = team.master(&mut rounds).is_ok();
    for h in handles {
        complete &= h.join().unwrap();
    }
    if complete {
        let n = config.master.iter().filter(|s| **s == MStep::Round).count() as u64;
        assert_eq!(rounds.len() as u64, n);
        assert_eq!(team.team.done.load(SeqCst), n, "a round did not complete");
        for s in &team.workers {
            assert_eq!(s.p.state.load(SeqCst), EXITED);
        }
    }
    Execution { rounds, complete, claimed_checked_in: team.claimed_checked_in.load(ghost::Ordering::Relaxed) }
}
