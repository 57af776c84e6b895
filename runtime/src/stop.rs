//! Taking a checkpoint where a candidate made one due, and what a batch
//! system's request asks around it (batch.rs): a checkpoint for a signal
//! or for the deadline is written by the program (no fork to wait for,
//! never skipped), and after an exit signal's the program waits for the
//! commit (a background writer still running included), records the stop
//! in `DAO_DIR/stopped` (for `dao run`), and exits with 128 + the signal:
//! under MPI every rank does so at the same candidate (the look agreed on
//! the signal), after MPI_Finalize, so that `mpirun` ends with that status.
use std::time::Instant;

use crate::policy::{TRIGGER_DEADLINE, TRIGGER_SIGNAL};
use crate::{batch, diag, policy, session};

/// The checkpoint due at `frame` (the main thread's candidate).
pub fn take(frame: *mut crate::abi::DaoFrame) {
    let trigger = policy::trigger();
    let exit = batch::exit_signal();
    if exit != 0 && !batch::begin_exit() {
        // the grace period ended first: the watcher is exiting
        return;
    }
    if trigger == TRIGGER_SIGNAL {
        batch::signal_checkpoint_begins();
    }
    batch::set_urgent(trigger == TRIGGER_SIGNAL || trigger == TRIGGER_DEADLINE || exit != 0);
    let before = committed();
    let t0 = Instant::now();
    crate::checkpoint::take(frame);
    // in the program: the whole cost; forked: the pause (the writer's
    // elapsed time is noted when it reports, background.rs)
    batch::note_cost(t0.elapsed().as_secs_f64());
    if trigger == TRIGGER_DEADLINE {
        batch::deadline_taken();
    }
    batch::set_urgent(false);
    policy::clear_trigger();
    if exit != 0 {
        exit_after(exit, before);
    }
}

/// Checkpoints committed so far in the run (settled ones).
fn committed() -> u64 {
    session::with(|s| s.checkpoints).unwrap_or(0)
}

/// After the exit signal's checkpoint: wait for the commit, say what
/// happened, leave with 128 + `sig`.
fn exit_after(sig: i32, before: u64) -> ! {
    let name = crate::config::signal_name(sig);
    crate::libc_alloc::own(|| {
        session::with(|s| {
            crate::storage::finish(s);
            crate::background::finish(s);
        });
        let mpi = crate::mpi::coordinated();
        if mpi {
            crate::levels::partner_progress(true);
        }
        let (now, seq, dir) = session::with(|s| (s.checkpoints, s.next_seq.saturating_sub(1), s.dir.as_ref().map(|d| d.path().to_path_buf()))).unwrap_or((0, 0, None));
        let status = 128 + sig;
        if now > before {
            diag::info(format_args!("{}{name}: checkpoint {seq} committed; exiting with status {status}", crate::mpi::prefix()));
        } else {
            diag::warn(format_args!("{}{name}: the checkpoint at this candidate was not committed; exiting with status {status}, the previous checkpoint stays current", crate::mpi::prefix()));
        }
        if let Some(d) = dir {
            let text = format!("signal {sig}\nstatus {status}\ncheckpoint {}\npid {}\n", if now > before { seq } else { 0 }, std::process::id());
            let _ = std::fs::write(d.join("stopped"), text);
        }
        if mpi {
            crate::mpi::finalize_for_exit();
        }
    });
    // SAFETY: leaving as the signal would have: no atexit handler (the run
    // is not finished), no stdio flush (flushed at the checkpoint).
    unsafe { libc::_exit(128 + sig) }
}
