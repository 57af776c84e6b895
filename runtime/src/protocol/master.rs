//! The master's side of a round: gather the team (blocking stops or
//! non-blocking check-ins), write, release.
use std::sync::atomic::{AtomicBool, Ordering::*};
use std::time::{Duration, Instant};

use dao_format::{WORKER_AT_BARRIER, WORKER_AT_CANDIDATE, WORKER_EXITED};

use super::handshake::Stop;
use super::{add_stop, NONBLOCKING, SLOTS, TEAM};
use crate::collect::Stopped;
use crate::diag;

/// Set when a round could not gather the team (timeout): no more
/// checkpoints inside regions for this run, with one warning.
static GIVEN_UP: AtomicBool = AtomicBool::new(false);

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
    let n = crate::omp::team::team_size() as usize;
    let (r, master_syncs) = TEAM.start(nb);
    let timeout = crate::config::omp_timeout();
    let deadline = Instant::now() + timeout;
    let mut stopped: Vec<Stopped> = Vec::with_capacity(n.saturating_sub(1));
    let mut claimed: Vec<usize> = Vec::new();
    let mut ok = true;
    #[allow(clippy::needless_range_loop)] // t is the thread number; an index past SLOTS panics, as before
    'threads: for t in 1..n {
        let s = &SLOTS[t];
        let mut spins = 0u32;
        loop {
            match TEAM.poll(&s.p, r, master_syncs, nb) {
                Some(Stop::CheckedIn) => {
                    let snap = s.snap.lock().unwrap_or_else(|e| e.into_inner()).take();
                    stopped.push(Stopped { thread: t as u32, state: WORKER_AT_CANDIDATE, snap, top: std::ptr::null_mut(), func: std::ptr::null() });
                    continue 'threads;
                }
                Some(Stop::Candidate) => {
                    stopped.push(Stopped { thread: t as u32, state: WORKER_AT_CANDIDATE, snap: None, top: s.p.top.load(Acquire), func: std::ptr::null() });
                    continue 'threads;
                }
                Some(Stop::Exited) => {
                    stopped.push(Stopped { thread: t as u32, state: WORKER_EXITED, snap: None, top: s.p.top.load(Acquire), func: s.func.load(Acquire) });
                    continue 'threads;
                }
                Some(Stop::Claimed) => {
                    claimed.push(t);
                    stopped.push(Stopped { thread: t as u32, state: WORKER_AT_BARRIER, snap: None, top: s.p.top.load(Acquire), func: std::ptr::null() });
                    continue 'threads;
                }
                None => {}
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
                        timeout.as_secs_f64()
                    ));
                    GIVEN_UP.store(true, Relaxed);
                    break 'threads;
                }
                std::thread::sleep(Duration::from_micros(20));
            }
        }
    }
    // every worker is accounted for: markers need not call in any more
    TEAM.gathered(nb);
    if ok && !crate::omp::tasks::quiescent() {
        // explicit tasks queued or running: a restart would lose them
        // (omp/tasks.rs); a later candidate takes the checkpoint
        ok = false;
        let n = crate::omp::tasks::deferred();
        if n == 1 {
            diag::warn(format_args!(
                "a checkpoint inside a parallel region was deferred: explicit tasks were queued or running ({} counted, and those of nogroup taskloops whose taskgroup has not ended, or created in this region by code not compiled with the dao pass); after a taskwait, a taskgroup or a barrier they are finished; it is taken at a later candidate where none are",
                crate::omp::tasks::in_flight().max(0)
            ));
        }
    }
    if ok {
        write(&stopped, t0.elapsed().as_secs_f64());
    }
    TEAM.release(r, nb, claimed.iter().map(|&t| &SLOTS[t].p));
    add_stop(&SLOTS[0], t0);
    ok
}
