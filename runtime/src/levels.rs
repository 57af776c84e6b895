//! The storage levels of an MPI job's checkpoints (issue #17; the job's
//! files: runtime/README.md, "MPI jobs"):
//!
//! 1. local: each rank's part of a coordinated version in its own
//!    directory, committed in two phases with the other ranks (`write`);
//! 2. partner (DAO_PARTNER): a copy of each rank's newest versions kept by
//!    another rank, its holder, sent after the commit, synchronously or
//!    while the program goes on (`partner_copy`, `partner_progress`);
//! 3. flushed (DAO_FLUSH_DIR): every DAO_FLUSH_EVERY-th version copied
//!    into a shared directory by a thread (`flush_copy`).
//!
//! A restart (mpi/restart.rs) takes the newest version every rank can
//! restore from any level; the copies travel as `pack_copy` messages and
//! are written back with `store_copy`.
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::Instant;

use crate::diag;
use crate::image::{CrashWriter, Image};
use crate::mpi::sidecar_name as mpi_sidecar_name;
use crate::session::Session;
use crate::stats;

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
/// synced under temp names; the ranks agree (mpi `agree`, a collective)
/// that every rank succeeded; only then does each rank rename its files
/// into place. A rank that failed makes the version fail everywhere (its
/// number is used up on every rank, so versions keep one numbering); the
/// previous version stays current. A second agreement acknowledges the
/// renames, so a rank that goes on knows that every rank has the version;
/// a crash between two ranks' renames leaves it on some ranks only: a
/// restart takes the newest version every rank has (mpi/restart.rs).
/// After the commit, the partner copy.
pub fn write(s: &mut Session, img: &Image) {
    let (dir, fields) = (&img.dir, &img.fields);
    let seq = img.header.seq;
    // the previous partner copy, if still in flight, first
    let t0 = Instant::now();
    partner_progress(true);
    let partner_wait_s = t0.elapsed().as_secs_f64();
    let look_s = crate::mpi::take_collective_s();
    let t1 = Instant::now();
    let kill_at = img.kill_at(img.crash_now);
    let ckpt = dir.prepare_file(seq, |f| {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        img.encode(CrashWriter { inner: &mut w, written: 0, kill_at, writer_only: false })?;
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
/// can restore (mpi/restart.rs), so a flush that only some ranks completed
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
pub fn finished(run_id: u64) {
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
