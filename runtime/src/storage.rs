//! DAO_STORE=engine: checkpoints kept by the storage engine (dao-store)
//! instead of one dao-format file each.
//!
//! A checkpoint becomes two things (docs/design.md section 10, "Wiring"):
//! - its *regions*: every byte payload the collection found (slots, stack
//!   objects, globals, thread-local values, saved heap blocks, of every
//!   thread of the team), keyed by address, plus the heap allocator's
//!   metadata under `dao_format::META_KEY`; the same object has the same
//!   key in the next checkpoint (address-preserving restart), which is what
//!   lets the engine store only the blocks that changed;
//! - its *skeleton*: the dao-format checkpoint with every payload replaced
//!   by a reference (`dao_format::encode_skeleton`), the engine's metadata
//!   blob.
//!
//! The engine's commit is the commit point. Synchronous (`DAO_ASYNC=off`):
//! the program waits for hash + compress + write + fsync + commit.
//! Asynchronous (`wait`, `skip`): the program waits for the copy into the
//! staging arena; the flush runs on the engine's thread, and its result is
//! settled before the next checkpoint is taken (`wait`: the program waits
//! for it; `skip`: a candidate that comes while it runs is skipped) and at
//! normal exit, before the run is marked finished. Settling a committed
//! checkpoint is when it counts: DAO_STATS line, the run's checkpoint count,
//! DAO_CRASH_AFTER (so with async flush the kill comes after the commit is
//! durable, at the next checkpoint or at exit). A failed checkpoint warns
//! once per distinct error; the previous checkpoint stays current and the
//! engine's chain continues from the last committed one.
//!
//! DAO_CRASH_IN=k makes the engine's writer stage SIGKILL the process before
//! it writes the middle chunk of checkpoint k's file (`Fault` at
//! `fault::MIDDLE`): a temp file, never a visible checkpoint.
use std::time::Instant;

use dao_store::fault::{Action, Fault, Stage, MIDDLE};
use dao_store::{AsyncEngine, AsyncPolicy, Committed, Engine, FlushState, Region, Staged, StoreConfig, StoreError};

use crate::diag;
use crate::session::Session;
use crate::stats;

/// (One per run: the size difference of the variants does not matter.)
#[allow(clippy::large_enum_variant)]
enum Backend {
    Sync(Engine),
    Async(AsyncEngine),
}

/// The storage engine of this run.
pub struct Storage {
    backend: Backend,
    cfg: StoreConfig,
    /// The checkpoint staged and still flushing (async).
    pending: Option<Pending>,
    /// Seconds the program waited for the previous flush before this
    /// checkpoint (async `wait`), part of its pause.
    waited_s: f64,
    /// The process that opened the engine (a forked child that exits
    /// must not wait for a flush thread it does not have).
    pid: u32,
}

/// What is known of a checkpoint when it is handed to the engine; its
/// DAO_STATS line is completed by the commit.
pub struct Pending {
    pub seq: u64,
    /// `"threads":..` to `"at":..` of the DAO_STATS line (no braces).
    pub fields: String,
    pub frames: usize,
    pub regions: usize,
    pub skeleton_bytes: usize,
    pub collect_s: f64,
    /// Time the program was stopped for this checkpoint (collection,
    /// skeleton, the engine call: the whole write when synchronous, the
    /// staging copy when asynchronous, plus any wait for the previous flush).
    pub pause_s: f64,
    /// Async: the staging copy and the wait for the previous flush.
    pub copy_s: f64,
    pub wait_s: f64,
}

fn kill_hook() {
    crate::diag::kill_self()
}

impl Storage {
    /// Opens the engine on `dir`. `restored`: the store checkpoint this run
    /// resumed, whose chain the next checkpoint continues (incremental and
    /// adaptive modes). `next_seq`: the lowest number the next checkpoint
    /// may get (numbers are shared with the single-file checkpoints).
    pub fn open(dir: &std::path::Path, cfg: StoreConfig, restored: Option<&dao_store::Restored>, next_seq: u64) -> Result<Storage, StoreError> {
        let mut e = Engine::open(dir, cfg.clone())?;
        if let Some(r) = restored {
            e.resume(r);
        }
        e.skip_to(next_seq);
        let backend = match cfg.async_policy {
            AsyncPolicy::Off => Backend::Sync(e),
            p => Backend::Async(AsyncEngine::new(e, p)?),
        };
        Ok(Storage { backend, cfg, pending: None, waited_s: 0.0, pid: std::process::id() })
    }

    /// The number the next checkpoint gets.
    pub fn next_seq(&self) -> u64 {
        match &self.backend {
            Backend::Sync(e) => e.next_seq(),
            Backend::Async(a) => a.next_seq(),
        }
    }

    fn flush_name(&self) -> &'static str {
        match self.cfg.async_policy {
            AsyncPolicy::Off => "sync",
            AsyncPolicy::Wait => "wait",
            AsyncPolicy::Skip => "skip",
        }
    }
}

/// The session's storage engine (`Session::storage`: DAO_STORE=engine),
/// if any.
pub fn engine(storage: &mut Option<Box<dyn std::any::Any + Send>>) -> Option<&mut Storage> {
    storage.as_mut().and_then(|b| b.downcast_mut::<Storage>())
}

/// Before a checkpoint (from checkpoint::take, before the team is
/// gathered): settles the checkpoint still flushing, waiting for it under
/// `DAO_ASYNC=wait`. Returns false when the candidate is to be skipped
/// (`skip`, and the flush still runs).
pub fn before_checkpoint(s: &mut Session) -> bool {
    let Some(st) = engine(&mut s.storage) else { return true };
    st.waited_s = 0.0;
    let Backend::Async(a) = &mut st.backend else { return true };
    let t = Instant::now();
    let r = match st.cfg.async_policy {
        AsyncPolicy::Skip => match a.poll() {
            FlushState::Flushing => return false,
            FlushState::Idle => None,
            FlushState::Done(r) => Some(r),
        },
        _ => a.wait(),
    };
    st.waited_s = t.elapsed().as_secs_f64();
    if let Some(r) = r {
        settle_result(s, r);
    }
    true
}

/// At normal exit: waits for the flush in flight and settles it (before
/// the run is marked finished: a checkpoint committed after the marker
/// would carry a higher number and be resumed).
pub fn finish(s: &mut Session) {
    let Some(st) = engine(&mut s.storage).filter(|st| st.pid == std::process::id()) else { return };
    if let Backend::Async(a) = &mut st.backend {
        if let Some(r) = a.wait() {
            settle_result(s, r);
        }
    }
}

fn settle_result(s: &mut Session, r: Result<Committed, StoreError>) {
    let Some(p) = engine(&mut s.storage).and_then(|st| st.pending.take()) else { return };
    settle_committed(s, p, r);
}

fn settle_committed(s: &mut Session, p: Pending, r: Result<Committed, StoreError>) {
    let (flush, snapshot) = engine(&mut s.storage).map_or(("sync", "none"), |st| (st.flush_name(), if st.flush_name() == "sync" { "none" } else { "copy" }));
    settle(s, p, r.as_ref().map(Done::from).map_err(|e| (format!("store {}", error_key(e)), e.to_string())), flush, snapshot, "");
}

/// What a committed checkpoint did: the engine's [`Committed`], or what a
/// forked writer reported of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    pub seq: u64,
    pub kind: &'static str,
    pub parent: Option<u64>,
    pub path: std::path::PathBuf,
    pub file_bytes: u64,
    pub total_bytes: u64,
    pub stored_bytes: u64,
    pub raw_bytes: u64,
    pub hash_s: f64,
    /// Hashing + writing (the engine's whole call).
    pub write_s: f64,
    pub sync_s: f64,
    pub collected: usize,
    /// The engine's GC cut ([`Committed::kept_from`]).
    pub kept_from: Option<u64>,
    /// A forked writer that built the skeleton and the regions itself:
    /// their number, the skeleton's bytes and the time it took (else 0).
    pub regions: usize,
    pub skeleton_bytes: usize,
    pub encode_s: f64,
}

impl From<&Committed> for Done {
    fn from(c: &Committed) -> Done {
        Done {
            seq: c.seq,
            kind: kind_name(c.kind),
            parent: c.parent,
            path: c.path.clone(),
            file_bytes: c.file_bytes,
            total_bytes: c.total_bytes,
            stored_bytes: c.stored_region_bytes,
            raw_bytes: c.raw_bytes,
            hash_s: c.hash_time.as_secs_f64(),
            write_s: (c.hash_time + c.write_time).as_secs_f64(),
            sync_s: c.sync_time.as_secs_f64(),
            collected: c.collected.len(),
            kept_from: c.kept_from,
            regions: 0,
            skeleton_bytes: 0,
            encode_s: 0.0,
        }
    }
}

impl Done {
    /// One line of whitespace-free fields (a forked writer's report).
    pub fn encode(&self) -> String {
        format!(
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            self.kind,
            self.parent.map_or("-".to_string(), |q| q.to_string()),
            self.file_bytes,
            self.total_bytes,
            self.stored_bytes,
            self.raw_bytes,
            self.hash_s,
            self.write_s,
            self.sync_s,
            self.collected,
            self.seq,
            self.kept_from.map_or("-".to_string(), |q| q.to_string()),
            self.regions,
            self.skeleton_bytes,
            self.encode_s
        )
    }

    /// [`Done::encode`]'s line back, with the file's path.
    pub fn decode(line: &str, path: std::path::PathBuf) -> Option<Done> {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() != 15 {
            return None;
        }
        let kind = ["full", "incremental", "differential"].into_iter().find(|k| *k == f[0])?;
        Some(Done {
            seq: f[10].parse().ok()?,
            kind,
            parent: if f[1] == "-" { None } else { Some(f[1].parse().ok()?) },
            path,
            file_bytes: f[2].parse().ok()?,
            total_bytes: f[3].parse().ok()?,
            stored_bytes: f[4].parse().ok()?,
            raw_bytes: f[5].parse().ok()?,
            hash_s: f[6].parse().ok()?,
            write_s: f[7].parse().ok()?,
            sync_s: f[8].parse().ok()?,
            collected: f[9].parse().ok()?,
            kept_from: if f[11] == "-" { None } else { Some(f[11].parse().ok()?) },
            regions: f[12].parse().ok()?,
            skeleton_bytes: f[13].parse().ok()?,
            encode_s: f[14].parse().ok()?,
        })
    }
}

/// A checkpoint's outcome is known: count it, report it, and kill the
/// process if DAO_CRASH_AFTER says so; or warn about the failure, once
/// per key. `flush`: the DAO_STATS `store.flush` (sync, or the policy);
/// `snapshot`: none, copy or fork; `extra`: more fields of the line
/// (`,"background":{..}` for a forked writer).
pub fn settle(s: &mut Session, p: Pending, r: Result<Done, (String, String)>, flush: &str, snapshot: &str, extra: &str) {
    match r {
        Ok(mut c) => {
            s.checkpoints += 1;
            s.commits += 1;
            s.next_seq = s.next_seq.max(c.seq + 1);
            if let (Some(cut), Some(dir)) = (c.kept_from, s.dir.as_ref()) {
                c.collected += collect_single_files(dir, cut);
            }
            if s.cfg.verbose {
                diag::info(format_args!(
                    "checkpoint {} written to {} ({}{}, {} of {} bytes stored, file {} bytes, {} frames, pause {:.6} s{})",
                    c.seq,
                    c.path.display(),
                    c.kind,
                    c.parent.map(|q| format!(" of {q}")).unwrap_or_default(),
                    c.stored_bytes,
                    c.total_bytes,
                    c.file_bytes,
                    p.frames,
                    p.pause_s,
                    if snapshot == "fork" { format!(", background write {:.6} s", c.write_s) } else { String::new() }
                ));
            }
            stats::append(
                s.cfg.stats.as_deref(),
                &format!(
                    "{{\"event\":\"checkpoint\",\"seq\":{},\"file\":{},\"file_bytes\":{},\"write_s\":{:.6},{},\"storage\":\"engine\",\"store\":{{\"kind\":\"{}\",\"parent\":{},\"flush\":\"{flush}\",\"snapshot\":\"{snapshot}\",\"regions\":{},\"live_bytes\":{},\"stored_bytes\":{},\"raw_bytes\":{},\"skeleton_bytes\":{},\"hash_s\":{:.6},\"sync_s\":{:.6},\"pause_s\":{:.6},\"copy_s\":{:.6},\"wait_s\":{:.6},\"collected\":{}}}{extra}}}",
                    c.seq,
                    stats::quote(&c.path.display().to_string()),
                    c.file_bytes,
                    c.write_s,
                    p.fields,
                    c.kind,
                    c.parent.map_or("null".to_string(), |q| q.to_string()),
                    p.regions,
                    c.total_bytes,
                    c.stored_bytes,
                    c.raw_bytes,
                    p.skeleton_bytes,
                    c.hash_s,
                    c.sync_s,
                    p.pause_s,
                    p.copy_s,
                    p.wait_s,
                    c.collected
                ),
            );
            if s.cfg.crash_after == Some(s.commits) {
                if s.cfg.verbose {
                    diag::info(format_args!("DAO_CRASH_AFTER={}: killing the process", s.commits));
                }
                crate::diag::kill_self();
            }
        }
        Err((key, e)) => {
            diag::warn_once(
                &key,
                format_args!("checkpoint {}: {e}; the previous checkpoint stays current (checkpointing continues; this warning is shown once)", p.seq),
            );
        }
    }
}

/// Single-file checkpoints (`ckpt.NNNNNN.dao`: DAO_STORE=file, or a
/// release before the engine was the default) numbered below `cut`, the
/// oldest base the engine's GC kept: the store then holds its
/// `DAO_KEEP_CHAINS` complete chains, all newer, so a restart would never
/// choose them. Returns how many were deleted.
fn collect_single_files(dir: &dao_format::CheckpointDir, cut: u64) -> usize {
    let Ok(files) = dir.list() else { return 0 };
    files.iter().filter(|(q, p)| *q < cut && std::fs::remove_file(p).is_ok()).count()
}

/// The error without what varies from one checkpoint to the next (file
/// names), so that a repeated failure warns once.
pub fn error_key(e: &StoreError) -> String {
    match e {
        StoreError::Io { source, .. } => format!("io {:?} {source}", source.kind()),
        // not the chunk: an error is warned about once whichever chunk
        // meets it (with O_DIRECT writes in flight, which one does varies)
        StoreError::Pipeline { stage, what } => {
            let what = what.strip_prefix("chunk ").and_then(|r| r.split_once(": ")).map_or(what.as_str(), |(_, e)| e);
            format!("pipeline {stage} {what}")
        }
        other => other.to_string(),
    }
}

pub fn kind_name(k: dao_store::Kind) -> &'static str {
    match k {
        dao_store::Kind::Full => "full",
        dao_store::Kind::Incremental => "incremental",
        dao_store::Kind::Differential => "differential",
    }
}

/// Hands one checkpoint (collected, its skeleton encoded) to the engine.
/// `p.pause_s` holds the time spent so far; the engine call and the wait
/// before it are added. `crash_now`: DAO_CRASH_IN is for this checkpoint.
pub fn checkpoint(s: &mut Session, regions: &[Region<'_>], skeleton: &[u8], mut p: Pending, t0: Instant, crash_now: bool) {
    let Some(st) = engine(&mut s.storage) else { return };
    let fault = crash_now.then_some(Fault { stage: Stage::Write, at_chunk: MIDDLE, action: Action::Hook(kill_hook) });
    p.wait_s = st.waited_s;
    // (checkpoint, result) pairs to settle now
    let mut done: Vec<(Pending, Result<Committed, StoreError>)> = Vec::new();
    match &mut st.backend {
        Backend::Sync(e) => {
            e.set_fault(fault);
            let r = e.checkpoint(regions, skeleton);
            e.set_fault(None);
            p.pause_s = t0.elapsed().as_secs_f64() + p.wait_s;
            s.next_seq = e.next_seq();
            done.push((p, r));
        }
        Backend::Async(a) => {
            a.set_fault(fault);
            let r = a.checkpoint(regions, skeleton);
            a.set_fault(None);
            s.next_seq = a.next_seq();
            match r {
                Ok(Staged::Started { copy, previous, .. }) => {
                    p.copy_s = copy.as_secs_f64();
                    p.pause_s = t0.elapsed().as_secs_f64() + p.wait_s;
                    // the previous one was settled before this one was
                    // taken (before_checkpoint); settle a late report anyway
                    let older = st.pending.replace(p);
                    if let (Some(o), Some(r)) = (older, previous) {
                        done.push((o, r));
                    }
                }
                Ok(Staged::Skipped) => {}
                Err(e) => done.push((p, Err(e))),
            }
        }
    }
    crate::policy::rearm();
    for (p, r) in done {
        settle_committed(s, p, r);
    }
}


/// Why this run's forked writer would be light on the CPU, if it would
/// (`Engine::light_writer`: O_DIRECT, no codec): `DAO_ASYNC=auto`'s prior.
pub fn light_writer(s: &Session) -> Option<&'static str> {
    match s.storage.as_ref()?.downcast_ref::<Storage>().map(|st| &st.backend) {
        Some(Backend::Sync(e)) => e.light_writer(),
        _ => None,
    }
}

/// Whether this run's engine may be run by a forked writer: it is
/// synchronous (DAO_SNAPSHOT=fork, the default).
pub fn forkable(s: &mut Session) -> bool {
    sync_engine(s).is_some()
}

/// The run's engine when it is synchronous (a forked writer runs it:
/// background.rs).
pub fn sync_engine(s: &mut Session) -> Option<&mut Engine> {
    match engine(&mut s.storage).map(|st| &mut st.backend) {
        Some(Backend::Sync(e)) => Some(e),
        _ => None,
    }
}

/// The fault that makes a forked writer die half-way through its file:
/// the job (`job`: DAO_CRASH_IN) or itself alone (DAO_CRASH_WRITER).
pub fn crash_fault(job: bool) -> Fault {
    Fault { stage: Stage::Write, at_chunk: MIDDLE, action: Action::Hook(if job { kill_hook } else { kill_writer_hook }) }
}

fn kill_writer_hook() {
    crate::diag::kill_this_process()
}
