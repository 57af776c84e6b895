//! A worker's side of a round: stopping (blocking) or checking in
//! (non-blocking) at a marker, and the guard's slow path.
use std::time::Instant;

use super::{add_stop, backoff_wait, share, slot, SAVE_ALL, TEAM};
use crate::abi::DaoFrame;
use crate::omp;

/// A worker reached a marker and saw the request: stop until the round
/// ends (blocking), or check in and go on (non-blocking).
pub fn worker_stop(frame: *mut DaoFrame) {
    let t = omp::tid();
    let Some(s) = slot(t) else { return };
    if t <= 0 {
        return;
    }
    let Some((r, nb)) = TEAM.requested() else { return };
    let t0 = Instant::now();
    if nb {
        let checked = TEAM.check_in(&s.p, r, || {
            let snap = crate::collect::snapshot(t as u32, frame, SAVE_ALL.load(std::sync::atomic::Ordering::Relaxed));
            *s.snap.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap);
        });
        if checked {
            add_stop(s, t0);
        }
        return;
    }
    let _ = TEAM.stop(&s.p, frame, r, helping);
    add_stop(s, t0);
}

/// The slow path of a guard (`dao_omp_guard` was set): a worker that has
/// checked in for a round whose shared state is not saved yet waits (and
/// helps write the checkpoint meanwhile); anyone else goes on.
pub fn guard_wait() {
    let t = omp::tid();
    let Some(s) = slot(t) else { return };
    if t <= 0 {
        return;
    }
    let _ = TEAM.guard_wait(&s.p, |ready: &mut dyn FnMut() -> bool| {
        let t0 = Instant::now();
        let r = helping(ready);
        add_stop(s, t0);
        r
    });
}

/// A stopped worker's wait: it helps write the checkpoint (once, if the
/// master shares the writing) until `ready()`.
fn helping(ready: &mut dyn FnMut() -> bool) -> Result<(), std::convert::Infallible> {
    let mut helped = false;
    backoff_wait(|| {
        if !helped {
            helped = share::help();
        }
        ready()
    });
    Ok(())
}
