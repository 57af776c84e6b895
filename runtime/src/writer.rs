//! The writers of a checkpoint's collected image (image.rs), chosen once
//! per checkpoint (`choose`) and run by `write`:
//!
//! - MPI, coordinated: the rank's part of a version committed with the
//!   other ranks, then its partner copy and flush (levels.rs);
//! - DAO_STORE=engine: the storage engine (storage.rs), by the program or
//!   by a forked writer running the synchronous engine (DAO_SNAPSHOT=fork);
//! - a single file by a forked copy-on-write writer (background.rs,
//!   DAO_ASYNC), the program going on;
//! - a single file by the program: alone, or with its team (DAO_WRITERS=team,
//!   inside a region: `write_distributed`).
//!
//! A forked writer that cannot be started falls back to the program's
//! write, with one warning. Error policy: a failed write (unwritable
//! directory, ENOSPC, EIO, ...) is reported once per distinct error, the
//! temp file is removed, the previous checkpoint stays current and the
//! program continues: losing one checkpoint is better than killing a long
//! job that is otherwise healthy.
use std::io;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use dao_format::Layout;

use crate::background::Kill;
use crate::collect::Stopped;
use crate::diag;
use crate::image::{CrashWriter, Image};
use crate::session::Session;
use crate::stats;

/// Who writes a checkpoint.
pub enum Writer {
    /// MPI: the two-phase commit and the other levels (levels.rs).
    Levels,
    /// DAO_STORE=engine; `Some`: by a forked writer, dying as this says.
    Engine(Option<Kill>),
    /// A forked copy-on-write writer, dying as `kill` says; `otherwise`
    /// when it cannot be started.
    Forked { kill: Kill, otherwise: InProgram },
    InProgram(InProgram),
}

/// A single file written by the program.
pub enum InProgram {
    /// By the master alone.
    Alone,
    /// With the team (`size` threads, `at_candidate` workers stopped at a
    /// candidate; the others get a writer thread each).
    Team { size: usize, at_candidate: usize },
}

/// The writer of this checkpoint. `workers`: the team stopped (empty
/// between regions); `nonblocking_round`: a non-blocking round, whose
/// checked-in workers run while the master forks; `rss`: the resident size
/// (the snapshot's worst case); `crash_now`: DAO_CRASH_IN is due.
pub fn choose(s: &mut Session, workers: &[Stopped], nonblocking_round: bool, rss: u64, crash_now: bool) -> Writer {
    if crate::mpi::coordinated() {
        return Writer::Levels;
    }
    if s.storage.is_some() {
        // a forked writer runs the (synchronous) engine: DAO_SNAPSHOT=fork
        let fork = crate::storage::forkable(s) && background_affordable(s, nonblocking_round, rss);
        return Writer::Engine(fork.then_some(kill_of(s, crash_now)));
    }
    // Distributed saving (DAO_WRITERS=team), only inside a region. Between
    // regions writer threads could stand in for libomp's idle threads, but on MG.W (63 359 heap blocks, 57 MB)
    // that measured no faster than the master alone here (docs/results.md,
    // "Distributed saving"), so the master writes alone there.
    let in_program = if s.cfg.team_writes && !workers.is_empty() {
        InProgram::Team { size: 1 + workers.len(), at_candidate: workers.iter().filter(|w| w.state == dao_format::WORKER_AT_CANDIDATE).count() }
    } else {
        InProgram::Alone
    };
    // Background (DAO_ASYNC=wait, skip; auto, the default, when it chooses
    // so: auto_mode.rs): a forked child writes the file from its
    // copy-on-write image; the program goes on.
    if background_affordable(s, nonblocking_round, rss) {
        return Writer::Forked { kill: kill_of(s, crash_now), otherwise: in_program };
    }
    Writer::InProgram(in_program)
}

/// Writes `img` as `w` says. The heap's part of the collection, if still
/// pending, is collected by a forked writer on its snapshot, else by the
/// program first (`Image::finish_heap`).
pub fn write(s: &mut Session, w: Writer, img: &mut Image) {
    match w {
        Writer::Levels => {
            img.finish_heap();
            crate::levels::write(s, img)
        }
        Writer::Engine(fork) => store_write(s, img, fork),
        Writer::Forked { kill, otherwise } => {
            if !forked(s, img, kill) {
                img.finish_heap();
                in_program(s, img, otherwise)
            }
        }
        Writer::InProgram(how) => {
            img.finish_heap();
            in_program(s, img, how)
        }
    }
}

/// A forked writer of the single file; false if it could not be started
/// (one warning).
fn forked(s: &mut Session, img: &mut Image, kill: Kill) -> bool {
    let seq = img.header.seq;
    let tmp = img.dir.path().join(format!(".{}.tmp", dao_format::CheckpointDir::file_name(seq)));
    let (keep, run_id) = (s.cfg.keep, s.run_id);
    let (frames, collect_s, t0, fields) = (img.c.chain.len(), img.collect_s, img.t0, img.fields.clone());
    let write = || write_in_child(img, kill, run_id, keep);
    match crate::background::start(s, seq, tmp, frames, collect_s, t0, fields, None, write) {
        Ok(()) => {
            // DAO_CRASH_AFTER due at this one: the kill comes
            // once it is committed, as when writing in place
            if s.cfg.crash_after == Some(s.commits + 1) {
                crate::background::finish(s);
            }
            true
        }
        Err((e, _)) => {
            diag::warn_once("background fork", format_args!("cannot start a background writer ({e}): checkpoints are written by the program (synchronously); this warning is shown once"));
            false
        }
    }
}

/// The single file written by the program (alone or with its team),
/// committed, pruned and reported.
fn in_program(s: &mut Session, img: &Image, how: InProgram) {
    let (dir, header, c) = (&img.dir, &img.header, &img.c);
    let writers = AtomicU32::new(1);
    // time spent producing the bytes (the rest of write_s: flush, fsync, rename)
    let encode_s = std::cell::Cell::new(0.0f64);
    let t1 = Instant::now();
    let r = match how {
        InProgram::Team { size, at_candidate } => write_distributed(img, (size, at_candidate), &writers, &encode_s),
        InProgram::Alone => {
            let kill_at = img.kill_at(img.crash_now);
            dir.commit(header.seq, |w| {
                let t = Instant::now();
                let r = img.encode(CrashWriter { inner: w, written: 0, kill_at, writer_only: false }).map(drop);
                encode_s.set(t.elapsed().as_secs_f64());
                r
            })
        }
    };
    let write_s = t1.elapsed().as_secs_f64();
    crate::background::returned(Some(write_s), img.t0.elapsed().as_secs_f64(), img.collect_s);
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
                    img.collect_s,
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
                    img.fields
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
fn kill_of(s: &Session, crash_now: bool) -> Kill {
    if crash_now {
        Kill::Job
    } else if s.cfg.crash_writer == Some(s.attempts) {
        Kill::Writer
    } else {
        Kill::None
    }
}

/// What a failed write warns once per: the I/O error, not the file.
fn write_error_key(e: &dao_format::DirError) -> String {
    format!("write {:?} {}", e.io().kind(), e.io())
}

/// The background writer's work (in the forked child, background.rs):
/// the heap's part of the collection if pending, encode and commit the
/// file, prune, and say how it went (with the DAO_STATS fields, now
/// complete).
fn write_in_child(img: &mut Image, kill: Kill, run_id: u64, keep: usize) -> crate::background::Report {
    img.finish_heap();
    let img = &*img;
    let dir = &img.dir;
    let t = Instant::now();
    let kill_at = img.kill_at(kill != Kill::None);
    let mut encode_s = 0.0;
    let r = dir.commit(img.header.seq, |w| {
        let te = Instant::now();
        let r = img.encode(CrashWriter { inner: w, written: 0, kill_at, writer_only: kill == Kill::Writer }).map(drop);
        encode_s = te.elapsed().as_secs_f64();
        r
    });
    let write_s = t.elapsed().as_secs_f64();
    let mut rep = crate::background::Report { write_s, encode_s, heap_collect_s: img.heap_collect_s, fields: Some(img.fields.clone()), ..Default::default() };
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
fn store_write(s: &mut Session, img: &mut Image, fork: Option<Kill>) {
    if let Some(kill) = fork {
        // the writer collects the heap's part if pending and builds the
        // skeleton and the regions (its DAO_STATS line gets their numbers,
        // encode_s and its fields when it is settled)
        let fields = format!("\"writers\":1,{}", img.fields);
        let p = crate::storage::Pending { seq: img.header.seq, fields, frames: img.c.chain.len(), regions: 0, skeleton_bytes: 0, collect_s: img.collect_s, pause_s: 0.0, copy_s: 0.0, wait_s: 0.0 };
        let t0 = img.t0;
        match crate::background::checkpoint_forked(s, img, p, t0, kill) {
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
    img.finish_heap();
    let img = &*img;
    let parts = &img.parts();
    let fields = format!("\"writers\":1,{}", img.fields);
    let (t0, collect_s) = (img.t0, img.collect_s);
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
    crate::storage::checkpoint(s, &regions, &skeleton, p, t0, img.crash_now);
    // DAO_ASYNC=auto compares the next gap with this write, and books its pause
    let pause_s = t0.elapsed().as_secs_f64();
    crate::background::returned(Some(pause_s), pause_s, collect_s);
}

/// Writes the checkpoint with the team: the file is laid out first, then
/// the master, every worker stopped at a candidate and a writer thread for
/// each other team member claim its units (1 MiB checksum chunks) one at a
/// time, hash them and write them with positioned writes; every unit is
/// written by exactly one thread. The master then
/// writes the records, header and trailer (`Layout::finish`), and the
/// commit syncs and renames as always. With DAO_CRASH_IN, the thread that
/// claims the middle unit kills the process (a half-written temp file).
fn write_distributed(img: &Image, (team_size, at_candidate): (usize, usize), writers: &AtomicU32, encode_s: &std::cell::Cell<f64>) -> Result<std::path::PathBuf, dao_format::DirError> {
    let crash_now = img.crash_now;
    img.dir.commit_file(img.header.seq, |f| {
        let t = Instant::now();
        let layout = Layout::new(img.parts())?;
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
