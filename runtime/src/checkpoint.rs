//! Writing one checkpoint: flush output, collect, stream to a temp file,
//! commit atomically, prune, report, and the crash-injection hooks.
//!
//! Error policy: a failed write (unwritable directory, ENOSPC, EIO, ...) is
//! reported once per distinct error, the temp file is removed, the previous
//! checkpoint stays current and the program continues: losing one
//! checkpoint is better than killing a long job that is otherwise healthy.
use std::io::{self, Seek, SeekFrom, Write};
use std::time::Instant;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use dao_format::{Header, Layout, Parts, RuntimeState, Writer, FLAG_HEAP_ALL, FLAG_SAVE_ALL};

use crate::abi::DaoFrame;
use crate::collect::{self, Collected};
use crate::diag;
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
    let t0 = Instant::now();
    stdio::flush_all();
    // the files the program holds open (files.rs), or why they cannot be
    // put back: then no checkpoint now
    if let Err(why) = crate::process::before_checkpoint() {
        diag::warn_once("files", format_args!("checkpoint not taken: {why}; the run continues, and checkpoints are taken again once it is closed"));
        crate::policy::rearm();
        if crate::mpi::coordinated() {
            mpi_give_up(s, "a file it holds open cannot be put back");
        }
        return;
    }
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
    let c = collect::collect_team(frame, workers, save_all, heap_all);
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
    if crate::mpi::coordinated() {
        let fields = stats_fields(&header, save_all, heap_all, &c, collect_s, rss, &at, round);
        return mpi_write(s, &dir, &header, &rt, &omp, &c, fields, crash_now);
    }
    if s.storage.is_some() {
        let parts = c.parts(&header, &rt, &omp);
        let fields = format!("\"writers\":1,{}", stats_fields(&header, save_all, heap_all, &c, collect_s, rss, &at, round));
        // a forked writer runs the (synchronous) engine: DAO_SNAPSHOT=fork
        let fork = crate::storage::forkable(s) && background_affordable(s, nonblocking_round, rss);
        let kill = kill_of(s, crash_now);
        return store_write(s, &parts, fields, t0, collect_s, crash_now, fork.then_some(kill));
    }
    // Background (DAO_ASYNC=auto, the default; wait, skip): a forked child writes
    // the file from its copy-on-write image; the program goes on.
    if background_affordable(s, nonblocking_round, rss) {
        let fields = stats_fields(&header, save_all, heap_all, &c, collect_s, rss, &at, round);
        let kill = kill_of(s, crash_now);
        let tmp = dir.path().join(format!(".{}.tmp", dao_format::CheckpointDir::file_name(header.seq)));
        let (keep, run_id) = (s.cfg.keep, s.run_id);
        let write = || write_in_child(&dir, &header, &rt, &omp, &c, kill, run_id, keep);
        match crate::background::start(s, header.seq, tmp, c.chain.len(), collect_s, t0, fields, None, write) {
            Ok(()) => {
                // DAO_CRASH_AFTER due at this one: the kill comes
                // once it is committed, as when writing in place
                if s.cfg.crash_after == Some(s.commits + 1) {
                    crate::background::finish(s);
                }
                return;
            }
            Err((e, _)) => diag::warn_once("background fork", format_args!("cannot start a background writer ({e}): checkpoints are written by the program (synchronously); this warning is shown once")),
        }
    }
    // Distributed saving (DAO_WRITERS=team), only inside a region. Between
    // regions writer threads could stand in for libomp's idle threads, but on MG.W (63 359 heap blocks, 57 MB)
    // that measured no faster than the master alone here (docs/results.md,
    // "Distributed saving"), so the master writes alone there.
    let team = s.cfg.team_writes && !workers.is_empty();
    let at_candidate = workers.iter().filter(|w| w.state == dao_format::WORKER_AT_CANDIDATE).count();
    let writers = AtomicU32::new(1);
    // time spent producing the bytes (the rest of write_s: flush, fsync, rename)
    let encode_s = std::cell::Cell::new(0.0f64);
    let t1 = Instant::now();
    let r = if team {
        let team_size = 1 + workers.len();
        write_distributed(&dir, &header, &rt, &omp, &c, crash_now, (team_size, at_candidate), &writers, &encode_s)
    } else {
        let kill_at = crash_now.then(|| {
            let total = encode(CountingSink::default(), &header, &rt, &omp, &c).map_or(0, |k| k.len);
            total / 2
        });
        dir.commit(header.seq, |w| {
            let t = Instant::now();
            let r = encode(CrashWriter { inner: w, written: 0, kill_at, writer_only: false }, &header, &rt, &omp, &c).map(drop);
            encode_s.set(t.elapsed().as_secs_f64());
            r
        })
    };
    let write_s = t1.elapsed().as_secs_f64();
    crate::background::returned(Some(write_s));
    match r {
        Ok(path) => {
            s.checkpoints += 1;
            s.commits += 1;
            s.next_seq += 1;
            crate::policy::rearm();
            let file_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
            if let Err(e) = dir.prune(s.run_id, s.cfg.keep) {
                diag::warn_once(&format!("prune {}", e.io()), &e);
            }
            if s.cfg.verbose {
                diag::info(format_args!(
                    "checkpoint {} written to {} ({} bytes, {} frames, collect {:.6} s, write {:.6} s)",
                    header.seq,
                    path.display(),
                    file_bytes,
                    c.chain.len(),
                    collect_s,
                    write_s
                ));
            }
            stats::append(
                s.cfg.stats.as_deref(),
                &format!(
                    "{{\"event\":\"checkpoint\",\"writers\":{},\"seq\":{},\"file\":{},\"file_bytes\":{},\"write_s\":{:.6},\"encode_s\":{:.6},{}}}",
                    writers.load(Relaxed),
                    header.seq,
                    stats::quote(&path.display().to_string()),
                    file_bytes,
                    write_s,
                    encode_s.get(),
                    stats_fields(&header, save_all, heap_all, &c, collect_s, rss, &at, round)
                ),
            );
            if s.cfg.crash_after == Some(s.commits) {
                if s.cfg.verbose {
                    diag::info(format_args!("DAO_CRASH_AFTER={}: killing the process", s.commits));
                }
                crate::diag::kill_self();
            }
        }
        Err(e) => {
            let key = write_error_key(&e);
            diag::warn_once(
                &key,
                format_args!("{e} (checkpointing continues; this warning is shown once)"),
            );
            crate::policy::rearm();
        }
    }
}

/// MPI: the collective look at a candidate (mpi.rs): the ranks agree
/// whether a checkpoint is due, check that they are all at this candidate,
/// arm the same countdown, and refuse a due checkpoint while a message may
/// be in flight (it is then owed to the next candidates).
pub fn mpi_look(frame: *mut DaoFrame, due: bool) -> bool {
    // the runtime's allocations go to glibc, not the program's heap
    crate::libc_alloc::own(|| mpi_look_own(frame, due))
}

fn mpi_look_own(frame: *mut DaoFrame, due: bool) -> bool {
    partner_progress(false);
    let site = site_name(frame);
    let n = crate::policy::candidates();
    let key = xxhash_rust::xxh3::xxh3_64(site.as_bytes()) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let l = crate::mpi::look(due, key, crate::policy::batch(), &format!("{site} (candidate {n})"));
    crate::policy::agree_batch(l.batch);
    if !l.due {
        return false;
    }
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
    // as mpi_write: a partner copy still in flight is completed first
    partner_progress(true);
    let seq = s.next_seq;
    let failed = crate::mpi::agree(false);
    s.next_seq += 1;
    diag::warn(format_args!("{}checkpoint {seq} is not committed on any rank: {why} (ranks {failed:?} failed)", crate::mpi::prefix()));
}

/// `ckpt.NNNNNN.mpi`: the MPI sidecar of a checkpoint (mpi.rs, `log_text`).
pub fn mpi_sidecar_name(seq: u64) -> String {
    format!("ckpt.{seq:06}.mpi")
}

/// Deletes the sidecars whose checkpoint is gone (after a prune).
pub fn prune_sidecars(dir: &dao_format::CheckpointDir) {
    let Ok(rd) = std::fs::read_dir(dir.path()) else { return };
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(num) = n.strip_prefix("ckpt.").and_then(|x| x.strip_suffix(".mpi")) {
            if !dir.path().join(format!("ckpt.{num}.dao")).exists() {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// MPI: one rank's part of a coordinated checkpoint, a two-phase commit.
/// The checkpoint and its sidecar (the MPI creation log) are written and
/// synced under temp names; the ranks agree (mpi.rs `agree`, a collective)
/// that every rank succeeded; only then does each rank rename its files
/// into place. A rank that failed makes the version fail everywhere (its
/// number is used up on every rank, so versions keep one numbering); the
/// previous version stays current. A second agreement acknowledges the
/// renames, so a rank that goes on knows that every rank has the version;
/// a crash between two ranks' renames leaves it on some ranks only: a
/// restart takes the newest version every rank has (mpi_restart.rs).
/// After the commit, the partner copy.
#[allow(clippy::too_many_arguments)]
fn mpi_write(s: &mut Session, dir: &dao_format::CheckpointDir, header: &Header, rt: &RuntimeState, omp: &dao_format::OmpState, c: &Collected, fields: String, crash_now: bool) {
    let seq = header.seq;
    // the previous partner copy, if still in flight, first
    let t0 = Instant::now();
    partner_progress(true);
    let partner_wait_s = t0.elapsed().as_secs_f64();
    let look_s = crate::mpi::take_collective_s();
    let t1 = Instant::now();
    let kill_at = crash_now.then(|| {
        let total = encode(CountingSink::default(), header, rt, omp, c).map_or(0, |k| k.len);
        total / 2
    });
    let ckpt = dir.prepare_file(seq, |f| {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        encode(CrashWriter { inner: &mut w, written: 0, kill_at, writer_only: false }, header, rt, omp, c)?;
        w.flush()
    });
    let side = dir.prepare_named(&mpi_sidecar_name(seq), |mut f| f.write_all(crate::mpi::log_text(seq).as_bytes()));
    let write_s = t1.elapsed().as_secs_f64();
    let mine = match (&ckpt, &side) {
        (Err(e), _) | (_, Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let t2 = Instant::now();
    let failed = crate::mpi::agree(mine.is_none());
    let agree_s = t2.elapsed().as_secs_f64();
    crate::mpi::take_collective_s();
    s.next_seq += 1;
    crate::policy::rearm();
    if !failed.is_empty() {
        drop((ckpt, side));
        if let Some(e) = mine {
            diag::warn_once(&format!("mpi write {e}"), format_args!("{}{e}: checkpoint {seq} is not committed on any rank (checkpointing continues; this warning is shown once)", crate::mpi::prefix()));
        } else if crate::mpi::rank() == 0 || failed.contains(&0) {
            diag::warn_once(
                "mpi failed elsewhere",
                format_args!("checkpoint {seq} is not committed on any rank: rank(s) {failed:?} could not write theirs; the previous checkpoint stays current (this warning is shown once)"),
            );
        }
        return;
    }
    let (Ok(ckpt), Ok(side)) = (ckpt, side) else { unreachable!("every rank succeeded") };
    let published = side.publish().and_then(|_| ckpt.publish());
    let path = match published {
        Ok(p) => Some(p),
        Err(e) => {
            // the others committed: a restart takes the previous version
            diag::warn(format_args!("{}{e}: checkpoint {seq} is committed on the other ranks only", crate::mpi::prefix()));
            None
        }
    };
    // the acknowledgement: once a rank goes on, every rank has renamed its
    // files (a crash from here on finds the version on every rank)
    let unpublished = crate::mpi::agree(path.is_some());
    if !unpublished.is_empty() && crate::mpi::rank() == 0 {
        diag::warn(format_args!("checkpoint {seq} is not in place on rank(s) {unpublished:?}: a restart takes the previous version"));
    }
    let agree_s = agree_s + crate::mpi::take_collective_s();
    s.checkpoints += 1;
    s.commits += 1;
    if let Err(e) = dir.prune(s.run_id, s.cfg.keep.max(2)) {
        diag::warn_once(&format!("prune {}", e.io()), &e);
    }
    prune_sidecars(dir);
    let file_bytes = path.as_ref().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
    let t3 = Instant::now();
    let partner = partner_copy(s, seq, path.as_deref());
    let partner_s = t3.elapsed().as_secs_f64();
    let flushed = flush_copy(s, seq, path.as_deref());
    if s.cfg.verbose {
        diag::info(format_args!(
            "{}checkpoint {seq} committed on every rank ({file_bytes} bytes here; write {write_s:.6} s, agreement {agree_s:.6} s, partner copy {partner_s:.6} s)",
            crate::mpi::prefix()
        ));
    }
    stats::append(
        s.cfg.stats.as_deref(),
        &format!(
            "{{\"event\":\"checkpoint\",\"writers\":1,\"seq\":{seq},\"file\":{},\"file_bytes\":{file_bytes},\"write_s\":{write_s:.6},\"mpi\":{{\"rank\":{},\"ranks\":{},\"look_s\":{look_s:.6},\"agree_s\":{agree_s:.6},\"partner_s\":{partner_s:.6},\"partner_wait_s\":{partner_wait_s:.6},\"partner_bytes\":{},\"flush\":{flushed}}},{fields}}}",
            stats::quote(&path.as_ref().map(|p| p.display().to_string()).unwrap_or_default()),
            crate::mpi::rank(),
            crate::mpi::size(),
            partner.unwrap_or(0)
        ),
    );
    if s.cfg.crash_after == Some(s.commits) {
        if s.cfg.verbose {
            diag::info(format_args!("DAO_CRASH_AFTER={}: killing the process", s.commits));
        }
        crate::diag::kill_self();
    }
}

/// A checkpoint and its sidecar as one message: seq, the two lengths, the bytes.
pub fn pack_copy(seq: u64, ckpt: &[u8], side: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(24 + ckpt.len() + side.len());
    v.extend_from_slice(&seq.to_le_bytes());
    v.extend_from_slice(&(ckpt.len() as u64).to_le_bytes());
    v.extend_from_slice(&(side.len() as u64).to_le_bytes());
    v.extend_from_slice(ckpt);
    v.extend_from_slice(side);
    v
}

/// The inverse of `pack_copy` (None for an empty or malformed message).
pub fn unpack_copy(v: &[u8]) -> Option<(u64, &[u8], &[u8])> {
    let word = |i: usize| -> Option<u64> { Some(u64::from_le_bytes(v.get(i * 8..i * 8 + 8)?.try_into().ok()?)) };
    let (seq, a, b) = (word(0)?, word(1)? as usize, word(2)? as usize);
    let ckpt = v.get(24..24 + a)?;
    let side = v.get(24 + a..24 + a + b)?;
    (v.len() == 24 + a + b).then_some((seq, ckpt, side))
}

/// Writes a copy (checkpoint and sidecar) into `dir`, sidecar first.
pub fn store_copy(dir: &dao_format::CheckpointDir, seq: u64, ckpt: &[u8], side: &[u8]) -> Result<std::path::PathBuf, dao_format::DirError> {
    let s = dir.prepare_named(&mpi_sidecar_name(seq), |mut f| f.write_all(side))?;
    let c = dir.prepare_file(seq, |mut f| f.write_all(ckpt))?;
    s.publish()?;
    c.publish()
}

/// MPI, partner copies (DAO_PARTNER): every rank sends its new checkpoint
/// to its holder and keeps its owner's in `partner_root/rank.OWNER`,
/// after the commit. `sync`: while the program waits; else (the default)
/// the transfer is started here and moved on by the next looks (and by
/// MPI during the program's own calls); when it is complete a thread
/// writes the copy. A copy still in flight is completed before the next
/// checkpoint and at MPI_Finalize. Returns the bytes received (sync) or
/// sent (asynchronous).
fn partner_copy(s: &Session, seq: u64, path: Option<&std::path::Path>) -> Option<u64> {
    let job = crate::mpi::job()?;
    if !job.partner || crate::mpi::size() < 2 {
        return None;
    }
    let dir = s.dir.as_ref()?;
    let mine = path
        .and_then(|p| {
            let c = std::fs::read(p).ok()?;
            let side = std::fs::read(dir.path().join(mpi_sidecar_name(seq))).ok()?;
            Some(pack_copy(seq, &c, &side))
        })
        .unwrap_or_default();
    let keep = (s.run_id, s.cfg.keep.max(2));
    if job.partner_sync {
        let got = crate::mpi::transfer(Some(job.holder), &mine, Some(job.owner));
        keep_copy(job, &got, keep);
        return Some(got.len() as u64);
    }
    let n = mine.len() as u64;
    *PARTNER.lock().unwrap_or_else(|e| e.into_inner()) = Some((crate::mpi::AsyncTransfer::start(job.holder, mine, job.owner), keep));
    Some(n)
}

/// The asynchronous partner copy in flight, with the retention of the
/// run; the thread writing the last one received.
#[allow(clippy::type_complexity)]
static PARTNER: Mutex<Option<(crate::mpi::AsyncTransfer, (u64, usize))>> = Mutex::new(None);
static PARTNER_WRITER: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);

/// Moves an asynchronous partner copy on (at looks), or completes it
/// (`block`: before a checkpoint, at MPI_Finalize, with the writing of
/// the copy received). Every rank calls it at the same points.
pub fn partner_progress(block: bool) {
    crate::libc_alloc::own(|| {
        let mut g = PARTNER.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((t, keep)) = g.as_mut() {
            if t.poll(block) {
                let got = t.received.take().unwrap_or_default();
                let keep = *keep;
                *g = None;
                drop(g);
                let Some(job) = crate::mpi::job() else { return };
                let mut w = PARTNER_WRITER.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(h) = w.take() {
                    let _ = h.join();
                }
                let spawned = std::thread::Builder::new().name("dao-partner".into()).spawn(move || {
                    crate::libc_alloc::own_thread();
                    keep_copy(job, &got, keep);
                });
                match spawned {
                    Ok(h) => *w = Some(h),
                    Err(e) => diag::warn_once("partner thread", format_args!("{}cannot start the thread that writes partner copies ({e})", crate::mpi::prefix())),
                }
            }
        }
        if block {
            if let Some(h) = PARTNER_WRITER.lock().unwrap_or_else(|e| e.into_inner()).take() {
                let _ = h.join();
            }
            flush_join();
        }
    })
}

/// The thread copying a version to DAO_FLUSH_DIR, if one was started.
static FLUSHER: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);

/// Waits for the flush in progress (before the next checkpoint, whose
/// prune could remove the file it reads; at MPI_Finalize; at exit).
pub fn flush_join() {
    if let Some(h) = FLUSHER.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = h.join();
    }
}

/// `DAO_FLUSH_DIR/rank.NNNN`: this rank's directory of the third level.
pub fn flush_dir_of(job: &crate::mpi::Job, rank: i32) -> Option<std::path::PathBuf> {
    job.flush_root.as_ref().map(|r| r.join(crate::mpi::rank_dir_name(rank)))
}

/// MPI, the third level (DAO_FLUSH_DIR): every DAO_FLUSH_EVERY-th version,
/// once committed on every rank, is copied (checkpoint and sidecar, temp
/// name, fsync, rename: `store_copy`) into `DAO_FLUSH_DIR/rank.NNNN` by a
/// thread while the program goes on; the newest two flushed versions of
/// the run are kept. No agreement is needed: a restart validates every
/// rank's flushed copy and the ranks take the newest version all of them
/// can restore (mpi_restart.rs), so a flush that only some ranks completed
/// is never used. Returns whether a flush was started.
fn flush_copy(s: &Session, seq: u64, path: Option<&std::path::Path>) -> bool {
    let Some(job) = crate::mpi::job() else { return false };
    let (Some(fdir), Some(src)) = (flush_dir_of(job, crate::mpi::rank()), path) else { return false };
    if seq % job.flush_every.max(1) != 0 {
        return false;
    }
    flush_join();
    let Some(side_src) = s.dir.as_ref().map(|d| d.path().join(mpi_sidecar_name(seq))) else { return false };
    let src = src.to_path_buf();
    let (run_id, stats_path, rank) = (s.run_id, s.cfg.stats.clone(), crate::mpi::rank());
    let spawned = std::thread::Builder::new().name("dao-flush".into()).spawn(move || {
        crate::libc_alloc::own_thread();
        let t0 = Instant::now();
        let r = (|| -> Result<u64, String> {
            let d = dao_format::CheckpointDir::open(&fdir).map_err(|e| e.to_string())?;
            let c = std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?;
            let side = std::fs::read(&side_src).map_err(|e| format!("{}: {e}", side_src.display()))?;
            store_copy(&d, seq, &c, &side).map_err(|e| e.to_string())?;
            let _ = d.prune(run_id, 2);
            prune_sidecars(&d);
            Ok(c.len() as u64)
        })();
        match r {
            Ok(bytes) => stats::append(
                stats_path.as_deref(),
                &format!("{{\"event\":\"flush\",\"seq\":{seq},\"rank\":{rank},\"bytes\":{bytes},\"flush_s\":{:.6}}}", t0.elapsed().as_secs_f64()),
            ),
            Err(e) => diag::warn_once("flush", format_args!("{}{e}: checkpoint {seq} is not flushed to {} (this warning is shown once)", crate::mpi::prefix(), fdir.display())),
        }
    });
    match spawned {
        Ok(h) => {
            *FLUSHER.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
            true
        }
        Err(e) => {
            diag::warn_once("flush thread", format_args!("{}cannot start the thread that flushes checkpoints ({e})", crate::mpi::prefix()));
            false
        }
    }
}

/// The directories of the other levels this rank writes: the partner
/// copies it holds (of its owner) and its flushed versions.
pub fn other_levels(job: &crate::mpi::Job) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    if job.partner && crate::mpi::size() > 1 {
        v.push(job.partner_root.join(crate::mpi::rank_dir_name(job.owner)));
    }
    v.extend(flush_dir_of(job, crate::mpi::rank()));
    v
}

/// At the end of a run: the partner copy and the flush in progress
/// complete, and the partner copies this rank holds and its flushed
/// versions are marked as those of a finished run (as DAO_DIR is), so a
/// later job that lost its own directories (all of them: a single rank
/// that lost its own is outvoted by the others' markers) starts fresh
/// instead of resuming a run that already ended.
pub fn levels_finished(run_id: u64) {
    partner_progress(true);
    let Some(job) = crate::mpi::job() else { return };
    for d in other_levels(job) {
        if d.exists() {
            if let Err(e) = dao_format::CheckpointDir::at(&d).mark_finished(run_id) {
                diag::warn_once("levels finished", format_args!("{}cannot mark the copies in {} finished: {e}", crate::mpi::prefix(), d.display()));
            }
        }
    }
}

/// Writes a partner copy received (`got`: `pack_copy`'s message) into
/// `partner_root/rank.OWNER` and keeps the run's newest (`keep`).
fn keep_copy(job: &crate::mpi::Job, got: &[u8], (run_id, keep): (u64, usize)) {
    let Some((q, ckpt, side)) = unpack_copy(got) else { return };
    let pdir = match dao_format::CheckpointDir::open(job.partner_root.join(crate::mpi::rank_dir_name(job.owner))) {
        Ok(d) => d,
        Err(e) => {
            diag::warn_once("partner dir", format_args!("{}{e}: no partner copies kept (this warning is shown once)", crate::mpi::prefix()));
            return;
        }
    };
    match store_copy(&pdir, q, ckpt, side) {
        Ok(_) => {
            let _ = pdir.prune(run_id, keep);
            prune_sidecars(&pdir);
        }
        Err(e) => diag::warn_once(&format!("partner {}", e.io()), format_args!("{}{e}: the partner copy of rank {} is not kept (this warning is shown once)", crate::mpi::prefix(), job.owner)),
    }
}

/// Whether this checkpoint is written by a forked writer: the policy wants
/// it (`background::wanted`) and the memory for the snapshot's copies is
/// there (else one warning, and it is written in place).
fn background_affordable(s: &Session, nonblocking_round: bool, rss: u64) -> bool {
    if !crate::background::wanted(s, nonblocking_round) {
        return false;
    }
    match crate::background::unaffordable(rss, crate::background::mem_available(s.cfg.mem_available)) {
        Some(why) => {
            diag::warn_once("background memory", format_args!("{why}: this checkpoint is written by the program (synchronously); this warning is shown once"));
            false
        }
        None => true,
    }
}

/// How a forked writer of this attempt is to die (DAO_CRASH_IN: the job,
/// DAO_CRASH_WRITER: itself), if at all.
fn kill_of(s: &Session, crash_now: bool) -> crate::background::Kill {
    if crash_now {
        crate::background::Kill::Job
    } else if s.cfg.crash_writer == Some(s.attempts) {
        crate::background::Kill::Writer
    } else {
        crate::background::Kill::None
    }
}

/// What a failed write warns once per: the I/O error, not the file.
fn write_error_key(e: &dao_format::DirError) -> String {
    format!("write {:?} {}", e.io().kind(), e.io())
}

/// The background writer's work (in the forked child, background.rs):
/// encode and commit the file, prune, and say how it went.
#[allow(clippy::too_many_arguments)]
fn write_in_child(
    dir: &dao_format::CheckpointDir,
    header: &Header,
    rt: &RuntimeState,
    omp: &dao_format::OmpState,
    c: &Collected,
    kill: crate::background::Kill,
    run_id: u64,
    keep: usize,
) -> crate::background::Report {
    let t = Instant::now();
    let kill_at = (kill != crate::background::Kill::None).then(|| {
        let total = encode(CountingSink::default(), header, rt, omp, c).map_or(0, |k| k.len);
        total / 2
    });
    let mut encode_s = 0.0;
    let r = dir.commit(header.seq, |w| {
        let te = Instant::now();
        let r = encode(CrashWriter { inner: w, written: 0, kill_at, writer_only: kill == crate::background::Kill::Writer }, header, rt, omp, c).map(drop);
        encode_s = te.elapsed().as_secs_f64();
        r
    });
    let write_s = t.elapsed().as_secs_f64();
    let mut rep = crate::background::Report { write_s, encode_s, ..Default::default() };
    match r {
        Ok(path) => {
            let n = std::fs::metadata(&path).map_or(0, |m| m.len());
            rep.result = Ok((path, n));
            if let Err(e) = dir.prune(run_id, keep) {
                rep.prune_warning = Some(e.to_string());
            }
        }
        Err(e) => rep.result = Err((write_error_key(&e), e.to_string())),
    }
    rep
}

/// DAO_STORE=engine: the checkpoint as a skeleton plus regions, handed to
/// the storage engine (storage.rs).
/// `fork`: written by a forked writer, dying as this says.
fn store_write(s: &mut Session, parts: &Parts<'_>, fields: String, t0: Instant, collect_s: f64, crash_now: bool, fork: Option<crate::background::Kill>) {
    if let Some(kill) = fork {
        // the writer builds the skeleton and the regions (its DAO_STATS
        // line gets their numbers and encode_s when it is settled)
        let p = crate::storage::Pending { seq: parts.header.seq, fields: fields.clone(), frames: parts.chain.len(), regions: 0, skeleton_bytes: 0, collect_s, pause_s: 0.0, copy_s: 0.0, wait_s: 0.0 };
        match crate::background::checkpoint_forked(s, parts, p, t0, kill) {
            Ok(()) => {
                // DAO_CRASH_AFTER due at this one: the kill comes once
                // it is committed, as when writing in place
                if s.cfg.crash_after == Some(s.commits + 1) {
                    crate::background::finish(s);
                }
                return;
            }
            Err(e) => diag::warn_once("background fork", format_args!("cannot start a background writer ({e}): checkpoints are written by the program (synchronously); this warning is shown once")),
        }
    }
    let t = Instant::now();
    let skeleton = match dao_format::encode_skeleton(parts) {
        Ok(b) => b,
        Err(e) => {
            diag::warn_once(
                &format!("skeleton {e}"),
                format_args!("checkpoint {} not written: {e} (checkpointing continues; this warning is shown once)", parts.header.seq),
            );
            crate::policy::rearm();
            return;
        }
    };
    let regions: Vec<dao_store::Region<'_>> =
        dao_format::skeleton_regions(parts).into_iter().map(|(addr, bytes)| dao_store::Region { addr, bytes }).collect();
    let encode_s = t.elapsed().as_secs_f64();
    let p = crate::storage::Pending {
        seq: parts.header.seq,
        fields: format!("{fields},\"encode_s\":{encode_s:.6}"),
        frames: parts.chain.len(),
        regions: regions.len(),
        skeleton_bytes: skeleton.len(),
        collect_s,
        pause_s: 0.0,
        copy_s: 0.0,
        wait_s: 0.0,
    };
    crate::storage::checkpoint(s, &regions, &skeleton, p, t0, crash_now);
    // DAO_ASYNC=auto compares the next gap with this write
    crate::background::returned(Some(t0.elapsed().as_secs_f64()));
}

/// The DAO_STATS fields of a checkpoint event common to both storages.
#[allow(clippy::too_many_arguments)]
fn stats_fields(h: &Header, save_all: bool, heap_all: bool, c: &Collected, collect_s: f64, rss: u64, at: &str, round: Option<(&str, f64)>) -> String {
    let round = round.map_or(String::new(), |(p, g)| format!("\"protocol\":\"{p}\",\"gather_s\":{g:.6},"));
    format!(
        "{round}\"threads\":{},\"mode\":\"{}\",\"heap_mode\":\"{}\",\"bytes\":{},\"roles\":{},\"heap_blocks\":{{\"total\":{},\"saved\":{}}},\"frames\":{},\"globals\":{},\"collect_s\":{:.6},\"rss_bytes\":{},\"at\":{}",
        h.threads,
        if save_all { "all" } else { "live" },
        if heap_all { "all" } else { "reachable" },
        c.bytes.json(),
        roles_json(c),
        c.heap_blocks_total,
        c.heap_blocks_saved,
        c.chain.len(),
        c.globals.len(),
        collect_s,
        rss,
        stats::quote(at)
    )
}

/// Bytes per role: the master's private state (its frames and thread-local
/// values), the workers' (theirs), and the shared state (globals and heap,
/// saved once, by the master).
fn roles_json(c: &Collected) -> String {
    let frames = |ch: &[dao_format::Frame<'_>]| -> u64 {
        ch.iter()
            .map(|f| f.slots.iter().map(|v| v.bytes.len() as u64).sum::<u64>() + f.stack_objects.iter().map(|o| o.bytes.len() as u64).sum::<u64>())
            .sum()
    };
    let tls = |t: &[dao_format::TlsValue<'_>]| -> u64 { t.iter().map(|v| v.bytes.len() as u64).sum() };
    let wf: u64 = c.workers.iter().map(|w| frames(&w.chain)).sum();
    let wt: u64 = c.workers.iter().map(|w| tls(&w.tls)).sum();
    // flang's threadprivate: the workers' copies, and the master's (its
    // copies are the original variables, saved among the globals)
    let wtp: u64 = c.workers.iter().flat_map(|w| w.tp.iter()).filter_map(|x| x.bytes.as_ref()).map(|b| b.len() as u64).sum();
    let mtp: u64 = c.globals.iter().filter(|g| crate::omp::tp::is_var(g.addr as usize)).map(|g| g.bytes.len() as u64).sum();
    format!(
        "{{\"master_frames\":{},\"master_tls\":{},\"master_tp\":{mtp},\"workers\":{},\"workers_frames\":{wf},\"workers_tls\":{wt},\"workers_tp\":{wtp},\"shared\":{}}}",
        frames(&c.chain),
        tls(&c.master_tls),
        c.workers.len(),
        c.bytes.globals.saturating_sub(tls(&c.master_tls) + wt + wtp + mtp) + c.bytes.heap
    )
}

fn encode<W: Write + Seek>(w: W, h: &Header, rt: &RuntimeState, omp: &dao_format::OmpState, c: &Collected) -> io::Result<W> {
    let mut wr = Writer::new(w, h)?;
    wr.runtime(rt)?;
    wr.chain(&c.chain)?;
    wr.threads(omp, &c.master_tls, &c.workers)?;
    wr.globals(&c.globals, &c.dead)?;
    wr.heap(&c.heap)?;
    wr.finish()
}

/// Writes the checkpoint with the team: the file is laid out first, then
/// the master, every worker stopped at a candidate and a writer thread for
/// each other team member claim its units (1 MiB checksum chunks) one at a
/// time, hash them and write them with positioned writes; every unit is
/// written by exactly one thread. The master then
/// writes the records, header and trailer (`Layout::finish`), and the
/// commit syncs and renames as always. With DAO_CRASH_IN, the thread that
/// claims the middle unit kills the process (a half-written temp file).
fn write_distributed(
    dir: &dao_format::CheckpointDir,
    header: &dao_format::Header,
    rt: &RuntimeState,
    omp: &dao_format::OmpState,
    c: &Collected,
    crash_now: bool,
    (team_size, at_candidate): (usize, usize),
    writers: &AtomicU32,
    encode_s: &std::cell::Cell<f64>,
) -> Result<std::path::PathBuf, dao_format::DirError> {
    dir.commit_file(header.seq, |f| {
        let t = Instant::now();
        let layout = Layout::new(c.parts(header, rt, omp))?;
        let units = layout.units();
        let kill_unit = crash_now.then_some(units / 2);
        let next = AtomicUsize::new(0);
        let digests: Vec<AtomicU64> = (0..units).map(|_| AtomicU64::new(0)).collect();
        let failed: Mutex<Option<io::Error>> = Mutex::new(None);
        let helpers = AtomicU32::new(0);
        let master = std::thread::current().id();
        let work = || {
            let mut wrote = false;
            loop {
                let i = next.fetch_add(1, Relaxed);
                if i >= units {
                    break;
                }
                if Some(i) == kill_unit {
                    crate::diag::kill_self();
                }
                match layout.write_unit(i, f) {
                    Ok(d) => digests[i].store(d, Relaxed),
                    Err(e) => {
                        failed.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                        next.store(units, Relaxed);
                        break;
                    }
                }
                wrote = true;
            }
            if wrote && std::thread::current().id() != master {
                helpers.fetch_add(1, Relaxed);
            }
        };
        // Team members waiting in a barrier or at the region's end are
        // inside libomp and cannot help: a writer thread stands in for each
        // (only for files of 4 units and more: a thread costs ~50 us).
        let extra = if units >= 4 { team_size.saturating_sub(1 + at_candidate).min(units - 1) } else { 0 };
        std::thread::scope(|sc| {
            for _ in 0..extra {
                // a failed spawn (EAGAIN) only means fewer writers
                let _ = std::thread::Builder::new().name("dao-writer".into()).spawn_scoped(sc, work);
            }
            crate::protocol::share_work(&work);
        });
        writers.store(1 + helpers.load(Relaxed), Relaxed);
        if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        // share_work returned: every work call has returned (its stores are
        // visible through the SeqCst exchange on JOB_USERS)
        let d: Vec<u64> = digests.into_iter().map(|a| a.into_inner()).collect();
        let r = layout.finish(&d, f);
        encode_s.set(t.elapsed().as_secs_f64());
        r
    })
}
/// Measures the encoded size (DAO_CRASH_IN needs it to stop half-way).
#[derive(Default)]
struct CountingSink {
    pos: u64,
    len: u64,
}

impl Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.pos += b.len() as u64;
        self.len = self.len.max(self.pos);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for CountingSink {
    fn seek(&mut self, p: SeekFrom) -> io::Result<u64> {
        self.pos = match p {
            SeekFrom::Start(n) => n,
            SeekFrom::End(d) => self.len.saturating_add_signed(d),
            SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
        };
        Ok(self.pos)
    }
}

/// Passes writes through; with `kill_at`, flushes what was written up to that
/// many bytes and SIGKILLs the process (DAO_CRASH_IN; in a background
/// writer, the program with it), or only the background writer
/// (`writer_only`, DAO_CRASH_WRITER).
struct CrashWriter<W: Write + Seek> {
    inner: W,
    written: u64,
    kill_at: Option<u64>,
    writer_only: bool,
}

impl<W: Write + Seek> Write for CrashWriter<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if let Some(k) = self.kill_at {
            if self.written + b.len() as u64 >= k {
                let part = (k - self.written.min(k)) as usize;
                self.inner.write_all(&b[..part])?;
                self.inner.flush()?;
                if self.writer_only {
                    crate::diag::kill_this_process();
                }
                crate::diag::kill_self();
            }
        }
        let n = self.inner.write(b)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write + Seek> Seek for CrashWriter<W> {
    fn seek(&mut self, p: SeekFrom) -> io::Result<u64> {
        self.inner.seek(p)
    }
}
