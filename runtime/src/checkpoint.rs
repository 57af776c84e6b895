//! Taking one checkpoint: whether one can be taken here (the call chain,
//! the files the program holds open, an MPI job's agreement), then what it
//! saves (flush output, collect), handed as one image (image.rs) to the
//! writer chosen for it (writer.rs: in the program, forked, by the team,
//! or an MPI job's levels, levels.rs). Also the MPI look at a candidate.
use std::time::Instant;

use dao_format::{Header, RuntimeState, FLAG_HEAP_ALL, FLAG_SAVE_ALL};

use crate::abi::DaoFrame;
use crate::collect;
use crate::diag;
use crate::image::{self, Image};
use crate::session::{self, Session};
use crate::stats;
use crate::stdio;

/// Writes a checkpoint of the chain ending at `frame` (on the main thread);
/// inside a parallel region, of every thread of the team (protocol/master.rs gathers
/// them first and releases them after).
pub fn take(frame: *mut DaoFrame) {
    // The storage engine with async flush: settle (wait for, or skip
    // because of) the checkpoint still flushing, before the team is stopped.
    // A background writer still running: settled first (DAO_ASYNC=wait
    // waits for it; skip skips this candidate while it runs).
    if !session::with(|s| crate::storage::before_checkpoint(s) && crate::background::before_checkpoint(s)).unwrap_or(true) {
        return;
    }
    if crate::omp::in_region() {
        let gathered = crate::protocol::with_team_stopped(true, |workers, gather_s| {
            let protocol = if crate::protocol::nonblocking() { "nonblocking" } else { "blocking" };
            session::with(|s| take_in(s, frame, workers, Some((protocol, gather_s))));
        });
        if !gathered {
            crate::policy::rearm();
            // the other ranks are writing this version: it fails everywhere
            if crate::mpi::coordinated() {
                session::with(|s| mpi_give_up(s, "its OpenMP team could not be gathered"));
            }
        }
    } else {
        session::with(|s| take_in(s, frame, &[], None));
    }
}

/// Checks that the chain ending at `top` can be rebuilt by a restart: its
/// outermost frame is the program's main (run through dao_main), and every
/// direct call site on it calls the function of the next frame. A call that
/// goes through code not compiled with the pass (another translation unit
/// without markers, a library callback) breaks the jump path: such a
/// checkpoint would restart wrongly, so it is refused with the reason.
pub fn chain_problem(top: *mut DaoFrame) -> Option<String> {
    let mut frames = Vec::new();
    let mut f = top;
    while let Some(fv) = crate::desc::FrameView::read(f) {
        f = fv.parent;
        frames.push(fv);
    }
    frames.reverse();
    let root = frames.first()?;
    let root_name = crate::desc::name(root.func.name);
    if root_name != "main" {
        return Some(format!(
            "the outermost instrumented function on the call chain is '{root_name}', not main: main (or a function between main and '{root_name}') was not compiled with the dao pass"
        ));
    }
    for w in frames.windows(2) {
        let (parent, child) = (&w[0], &w[1]);
        let Some(site) = parent.func.sites().get((parent.site as usize).wrapping_sub(1)) else { continue };
        if site.callee.is_null() {
            continue;
        }
        let callee = crate::desc::name(site.callee);
        let child_name = crate::desc::name(child.func.name);
        if callee != child_name {
            let at = crate::desc::opt_name(site.loc).map(|l| format!(" at {l}")).unwrap_or_default();
            return Some(format!(
                "'{}' calls '{callee}'{at}, but the next instrumented frame is '{child_name}': '{callee}' (or something it calls on the way) was not compiled with the dao pass; compile it with `dao cc`/`dao fc`",
                crate::desc::name(parent.func.name)
            ));
        }
    }
    None
}

/// "function#site (file:line)" of the candidate that takes the checkpoint.
pub(crate) fn site_name(top: *mut DaoFrame) -> String {
    let Some(fv) = crate::desc::FrameView::read(top) else { return String::new() };
    let loc = fv
        .func
        .sites()
        .get((fv.site as usize).wrapping_sub(1))
        .and_then(|s| crate::desc::opt_name(s.loc))
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    format!("{}#{}{loc}", crate::desc::name(fv.func.name), fv.site)
}

/// `round`: inside a region, the protocol and the gathering time (s).
fn take_in(s: &mut Session, frame: *mut DaoFrame, workers: &[crate::collect::Stopped], round: Option<(&str, f64)>) {
    // the runtime's code: what it allocates through `malloc` (threads it
    // starts) is glibc's, not the program's (libc_alloc::in_runtime)
    crate::libc_alloc::own(|| take_own(s, frame, workers, round))
}

fn take_own(s: &mut Session, frame: *mut DaoFrame, workers: &[crate::collect::Stopped], round: Option<(&str, f64)>) {
    let Some(dir) = s.dir.clone() else { return };
    if let Some(why) = chain_problem(frame) {
        diag::warn_once("chain", format_args!("checkpoint refused: {why}; the run continues without checkpoints at this point"));
        if crate::mpi::coordinated() {
            mpi_give_up(s, "its call chain cannot be rebuilt");
        }
        return;
    }
    // the exception state of the thread taking the checkpoint (not yet
    // that of the workers of a team: a worker standing at a candidate
    // inside a catch handler is not detected; docs/design.md section 20)
    if let Some(why) = crate::cxx::exception_in_flight() {
        diag::warn_once("cxx-exception", format_args!("checkpoint not taken: {why}; checkpoints are taken again at later candidates"));
        crate::policy::rearm();
        if crate::mpi::coordinated() {
            mpi_give_up(s, "a C++ exception is in flight");
        }
        return;
    }
    let t0 = Instant::now();
    stdio::flush_all();
    // the files the program holds open (files/), or why they cannot be
    // put back: then no checkpoint now
    if let Err(why) = crate::process::before_checkpoint() {
        diag::warn_once("files", format_args!("checkpoint not taken: {why}; the run continues, and checkpoints are taken again once it is closed"));
        crate::policy::rearm();
        if crate::mpi::coordinated() {
            mpi_give_up(s, "a file it holds open cannot be put back");
        }
        return;
    }
    // the offload devices' mapped ranges, copied back (offload/): `target
    // ... nowait` tasks waited for, or (inside a region) the checkpoint
    // deferred; a construct dao does not model stops the run
    let t_dev = Instant::now();
    let dead = if s.cfg.save_all { Vec::new() } else { crate::offload::dead_ranges(frame) };
    let devices = match crate::offload::before_checkpoint(&dead) {
        Ok(d) => d,
        Err(crate::offload::Refusal::Defer(why)) => {
            diag::warn_once("offload-tasks", format_args!("checkpoint not taken: {why}; checkpoints are taken again at later candidates"));
            crate::policy::rearm();
            if crate::mpi::coordinated() {
                mpi_give_up(s, "OpenMP target tasks are in flight");
            }
            return;
        }
        Err(crate::offload::Refusal::Fatal(why)) => diag::fatal(why),
    };
    let dev_s = t_dev.elapsed().as_secs_f64();
    // a refused candidate is not an attempt (DAO_CRASH_IN counts attempts)
    s.attempts += 1;
    let rt = RuntimeState {
        candidates: crate::policy::candidates(),
        checkpoints: s.checkpoints + 1,
        stdout_offset: stdio::offset(1),
        stderr_offset: stdio::offset(2),
    };
    let (save_all, heap_all) = (s.cfg.save_all, s.cfg.heap_all || s.cfg.save_all);
    let rss = stats::resident_bytes();
    let at = site_name(frame);
    // the heap's part is collected by the writer (writer.rs): in the
    // program before it writes, or by a forked writer on its snapshot
    let c = collect::collect_team_deferred(frame, workers, save_all, heap_all);
    let omp = crate::omp::state_for_checkpoint();
    let collect_s = t0.elapsed().as_secs_f64();
    let header = Header {
        flags: if save_all { FLAG_SAVE_ALL } else { 0 } | if heap_all { FLAG_HEAP_ALL } else { 0 },
        binary_hash: s.ident.hash,
        binary_size: s.ident.size,
        image_base: s.ident.image_base,
        run_id: s.run_id,
        seq: s.next_seq,
        threads: 1 + c.workers.iter().filter(|w| w.state != dao_format::WORKER_IDLE).count() as u32,
        pid: std::process::id(),
        timestamp: session::unix_time(),
    };
    let crash_now = s.cfg.crash_in == Some(s.attempts);
    let nonblocking_round = round.is_some_and(|(p, _)| p == "nonblocking");
    let writer = crate::writer::choose(s, workers, nonblocking_round, rss, crash_now);
    // DAO_ASYNC=auto's decision and why
    let tail = crate::background::take_choice().unwrap_or_default();
    let stats_in = image::StatsIn { save_all, heap_all, rss, at, round: round.map(|(p, g)| (p.to_string(), g)), tail, device_copy_s: dev_s };
    let mut img = Image { dir, header, rt, omp, c, devices, fields: String::new(), t0, collect_s, crash_now, stats_in, heap_collect_s: 0.0, heap_by_writer: false };
    if !s.cfg.heap_scan_writer {
        img.finish_heap();
    }
    img.refresh_fields();
    crate::writer::write(s, writer, &mut img);
}

/// MPI: the collective look at a candidate (mpi, collectives.rs): the ranks agree
/// whether a checkpoint is due, check that they are all at this candidate,
/// arm the same countdown, and refuse a due checkpoint while a message may
/// be in flight (it is then owed to the next candidates).
pub fn mpi_look(frame: *mut DaoFrame, due: bool) -> bool {
    // the runtime's allocations go to glibc, not the program's heap
    crate::libc_alloc::own(|| mpi_look_own(frame, due))
}

fn mpi_look_own(frame: *mut DaoFrame, due: bool) -> bool {
    crate::levels::partner_progress(false);
    let site = site_name(frame);
    let n = crate::policy::candidates();
    let key = xxhash_rust::xxh3::xxh3_64(site.as_bytes()) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let l = crate::mpi::look(due, key, crate::policy::batch(), &format!("{site} (candidate {n})"), crate::policy::trigger() as i64, crate::batch::exit_signal() as i64);
    crate::policy::agree_batch(l.batch);
    // one rank's signal is every rank's (batch.rs): the same trigger, the
    // same exit, at this candidate
    crate::batch::exit_agreed(l.exit_signal as i32);
    if !l.due {
        return false;
    }
    crate::policy::set_trigger(l.trigger as u8);
    if let Some(why) = l.refused {
        let unfollowed = crate::mpi::unfollowed_call().is_some() || why.contains("does not follow");
        if crate::mpi::rank() == 0 {
            diag::warn_once(
                &format!("mpi refused {}", why.split(' ').next_back().unwrap_or("")),
                format_args!(
                    "{}checkpoint due at {site} not taken: {why}{} (this warning is shown once)",
                    crate::mpi::prefix(),
                    if unfollowed { "" } else { "; the next candidate where none is takes it" }
                ),
            );
        }
        if !unfollowed {
            crate::policy::owe();
        }
        return false;
    }
    true
}

/// MPI: this rank cannot write the version the others are writing (`why`):
/// it takes part in the commit agreement with a failure, so the version is
/// committed nowhere.
fn mpi_give_up(s: &mut Session, why: &str) {
    // as levels::write: a partner copy still in flight is completed first
    crate::levels::partner_progress(true);
    let seq = s.next_seq;
    let failed = crate::mpi::agree(false);
    s.next_seq += 1;
    diag::warn(format_args!("{}checkpoint {seq} is not committed on any rank: {why} (ranks {failed:?} failed)", crate::mpi::prefix()));
}
