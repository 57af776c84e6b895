//! The current team as the runtime tracks it: the team size, the ICVs at
//! the fork, the OpenMP state a checkpoint records; the forks, joins and
//! region entries that move the depth and thread numbers of `region.rs`. The protocol part of each thread's slot (its state in a
//! checkpoint round) is in `crate::protocol`, which calls these around its
//! own work at every fork, region entry and exit.
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::*};

use dao_format::OmpState;

use super::region::{self, in_region, MAX_THREADS};
use super::{libomp, singles, tasks, threads, tls, tp};

/// Slots used since the last fork reset them (highest thread number + 1).
/// Written in `begin` before the thread's slot; read by the next fork,
/// after the join (libomp's join barrier orders the two).
static USED: AtomicUsize = AtomicUsize::new(0);
static TEAM_SIZE: AtomicU32 = AtomicU32::new(0);
/// The master's ICVs at the last fork (what a restart re-applies).
static FORK_ICVS: std::sync::Mutex<Option<OmpState>> = std::sync::Mutex::new(None);

/// Threads in the current team (0 before the master entered the region).
pub fn team_size() -> u32 {
    TEAM_SIZE.load(Acquire)
}

/// The OpenMP state recorded in a checkpoint taken now on the main thread.
pub fn state_for_checkpoint() -> OmpState {
    if in_region() {
        let mut s = FORK_ICVS.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default();
        s.team_size = TEAM_SIZE.load(Acquire);
        s.singles_won = singles::won();
        s.master_singles = singles::singles_of(0);
        s
    } else {
        libomp::icvs()
    }
}

/// Before an instrumented fork, on the thread that forks: Some(the number
/// of slots the last team used, to be reset) for the outermost fork on the
/// main thread.
pub fn fork() -> Option<usize> {
    if !threads::is_main_thread() {
        return None;
    }
    if region::deeper() != 0 {
        return None; // nested (diagnosed at compile time when it matters)
    }
    // only the slots a team has used since the last reset (a loop over
    // all 256 cost ~3,300 instructions per region)
    let used = USED.swap(0, Relaxed).min(MAX_THREADS);
    singles::reset(used);
    TEAM_SIZE.store(0, Relaxed);
    *FORK_ICVS.lock().unwrap_or_else(|e| e.into_inner()) = Some(libomp::icvs());
    Some(used)
}

/// After an instrumented fork returned (the region has joined).
pub fn join() {
    if !threads::is_main_thread() {
        return;
    }
    if region::shallower() == 1 {
        tasks::region_ended();
    }
    TEAM_SIZE.store(0, Release);
}

/// At entry of an outlined function, on every thread of the team: Some(its
/// thread number) if the runtime tracks it (a thread of the outermost
/// instrumented region, not the master of a nested team). Publishes its
/// threadprivate addresses and puts back its saved values and `single`
/// count (restart).
pub fn begin() -> Option<usize> {
    if region::depth() != 1 {
        return None;
    }
    let t = libomp::thread_num();
    let main = threads::is_main_thread();
    if t == 0 && !main {
        return None; // the master of a nested team
    }
    if usize::try_from(t).map_or(true, |t| t >= MAX_THREADS) {
        crate::diag::fatal(format_args!("a parallel region has more than {MAX_THREADS} threads; dao supports at most {MAX_THREADS}"));
    }
    region::set_tid(t);
    USED.fetch_max(t as usize + 1, Relaxed);
    if t > 0 {
        tls::worker_tls_enter(t as u32);
        tp::enter(t as u32);
    }
    singles::restore_singles(t as u32);
    Some(t as usize)
}

/// At entry of the outlined function on the main thread, after its slot:
/// the team's size.
pub fn begin_main() -> u32 {
    let n = libomp::num_threads().max(1) as u32;
    TEAM_SIZE.store(n, Release);
    n
}

/// At every return of an outlined function: the thread's number in the
/// region it leaves (-1: none).
pub fn leave() -> i32 {
    region::take_tid()
}
