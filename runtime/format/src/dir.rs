//! The checkpoint directory: naming, atomic commit, retention, fallback
//! selection and the `finished` marker.
//!
//! Files are `ckpt.NNNNNN.dao` (NNNNNN = sequence number; a fresh run starts
//! after the highest number present, so names sort by age). A checkpoint is
//! committed by writing `.ckpt.NNNNNN.dao.tmp`, fsyncing it, renaming it into
//! place and fsyncing the directory: a crash at any point leaves either the
//! old set of checkpoints or the new one, never a half-written `ckpt.*.dao`
//! (a torn file can still appear after a disk fault; [`CheckpointDir::latest_valid`]
//! validates and falls back). The `finished` file records the run id of the
//! last run that ended normally; its checkpoints are not resumed. The
//! `started` file ([`Started`]) records where a fresh run's standard output
//! and error began, so that a run stopped before its first checkpoint can
//! be started again without its output written twice.
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{DirError, FormatError};

/// Checkpoints of the current run kept by [`CheckpointDir::prune`] by default.
pub const DEFAULT_KEEP: usize = 2;
const FINISHED: &str = "finished";
const STARTED: &str = "started";

/// Where a run that started fresh (resumed no checkpoint) found its
/// standard streams: `DAO_DIR/started`. A later fresh start of the same
/// job, when that run neither finished nor left a checkpoint (it was
/// stopped before its first one), cuts each stream that is still the same
/// regular file back to the recorded offset, as a restart cuts it back to
/// its checkpoint's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Started {
    pub run_id: u64,
    pub streams: Vec<StreamStart>,
}

/// One standard stream at a fresh start: its descriptor, the identity of
/// the regular file it wrote to, and its offset then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamStart {
    pub fd: i32,
    pub dev: u64,
    pub ino: u64,
    pub offset: i64,
}

impl Started {
    /// The file's text: `run <hex id>`, then `fd <n> <dev> <ino> <offset>`
    /// per stream.
    pub fn encode(&self) -> String {
        let mut s = format!("run {:016x}\n", self.run_id);
        for x in &self.streams {
            s.push_str(&format!("fd {} {} {} {}\n", x.fd, x.dev, x.ino, x.offset));
        }
        s
    }

    /// Parses [`Started::encode`]'s text; `None` when the run line is
    /// missing or a stream line is malformed (a torn file is ignored, not
    /// half applied).
    pub fn parse(text: &str) -> Option<Started> {
        let mut out = Started::default();
        let mut run = None;
        for l in text.lines() {
            if let Some(id) = l.strip_prefix("run ") {
                run = Some(u64::from_str_radix(id.trim(), 16).ok()?);
            } else if let Some(rest) = l.strip_prefix("fd ") {
                let f: Vec<&str> = rest.split_whitespace().collect();
                let [fd, dev, ino, off] = f[..] else { return None };
                let offset: i64 = off.parse().ok()?;
                if offset < 0 {
                    return None;
                }
                out.streams.push(StreamStart { fd: fd.parse().ok()?, dev: dev.parse().ok()?, ino: ino.parse().ok()?, offset });
            } else if !l.trim().is_empty() {
                return None;
            }
        }
        out.run_id = run?;
        Some(out)
    }
}

/// A checkpoint directory.
#[derive(Clone, Debug)]
pub struct CheckpointDir {
    path: PathBuf,
}

/// A checkpoint that was passed over, and why.
#[derive(Debug)]
pub struct Skipped {
    pub path: PathBuf,
    pub error: FormatError,
}

/// Result of [`CheckpointDir::latest_valid`].
#[derive(Debug, Default)]
pub struct Latest {
    /// The newest valid checkpoint of an unfinished run: its path and bytes
    /// (already validated; decode them with [`crate::decode`]).
    /// The file and its bytes, mapped read-only (a restart of a large
    /// checkpoint then costs no copy into fresh, zeroed pages).
    pub found: Option<(PathBuf, Blob)>,
    /// Newer checkpoints that were invalid, newest first.
    pub skipped: Vec<Skipped>,
}

/// Parses `ckpt.NNNNNN.dao` into NNNNNN.
fn seq_of(name: &str) -> Option<u64> {
    let n = name.strip_prefix("ckpt.")?.strip_suffix(".dao")?;
    if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

fn fsync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

impl CheckpointDir {
    /// Opens `path`, creating it (and its parents) when missing.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, DirError> {
        let path = path.into();
        fs::create_dir_all(&path).map_err(|source| DirError::Open { dir: path.clone(), source })?;
        Ok(CheckpointDir { path })
    }

    /// Uses `path` as it is (for reading; nothing is created).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        CheckpointDir { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `ckpt.NNNNNN.dao`
    pub fn file_name(seq: u64) -> String {
        format!("ckpt.{seq:06}.dao")
    }

    /// Checkpoint files present, oldest first.
    pub fn list(&self) -> Result<Vec<(u64, PathBuf)>, DirError> {
        let rd = fs::read_dir(&self.path).map_err(|source| DirError::List { dir: self.path.clone(), source })?;
        let mut v: Vec<(u64, PathBuf)> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name();
                seq_of(name.to_str()?).map(|s| (s, e.path()))
            })
            .collect();
        v.sort();
        Ok(v)
    }

    /// Highest sequence number present (0 when none).
    pub fn max_seq(&self) -> u64 {
        self.list().ok().and_then(|v| v.last().map(|x| x.0)).unwrap_or(0)
    }

    /// Atomically creates `ckpt.<seq>.dao` with the bytes `write` produces.
    /// On any error the temp file is removed and the directory is unchanged.
    pub fn commit<F>(&self, seq: u64, write: F) -> Result<PathBuf, DirError>
    where
        F: FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
    {
        self.commit_file(seq, |f| {
            let mut w = BufWriter::with_capacity(1 << 20, f);
            write(&mut w)?;
            w.flush()
        })
    }

    /// Like [`CheckpointDir::commit`], for writers that use positioned
    /// writes (a [`crate::Layout`] written by several threads): `write`
    /// gets the open temp file (read-write, empty).
    pub fn commit_file<F>(&self, seq: u64, write: F) -> Result<PathBuf, DirError>
    where
        F: FnOnce(&File) -> io::Result<()>,
    {
        self.prepare_file(seq, write)?.publish()
    }

    /// The first phase of a commit (a two-phase commit across processes:
    /// MPI ranks): `write` fills `.ckpt.<seq>.dao.tmp`, which is synced;
    /// [`Prepared::publish`] renames it into place, [`Prepared::discard`]
    /// (or dropping it) removes it. On any error the temp file is removed.
    pub fn prepare_file<F>(&self, seq: u64, write: F) -> Result<Prepared, DirError>
    where
        F: FnOnce(&File) -> io::Result<()>,
    {
        let name = Self::file_name(seq);
        self.prepare_named(&name, write)
    }

    /// [`CheckpointDir::prepare_file`] for a file of another name in this
    /// directory (a sidecar of a checkpoint: `ckpt.<seq>.mpi`).
    pub fn prepare_named<F>(&self, name: &str, write: F) -> Result<Prepared, DirError>
    where
        F: FnOnce(&File) -> io::Result<()>,
    {
        let tmp = self.path.join(format!(".{name}.tmp"));
        let dst = self.path.join(name);
        let result = (|| {
            let f = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&tmp)?;
            write(&f)?;
            f.sync_all()
        })();
        match result {
            Ok(()) => Ok(Prepared { dir: self.path.clone(), name: name.to_string(), tmp, dst, done: false }),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(DirError::Write { dir: self.path.clone(), file: name.to_string(), source: e })
            }
        }
    }

    /// Keeps the newest `keep` checkpoints of run `run_id` (at least one) and
    /// deletes every older checkpoint file and every stale temp file.
    /// Returns the deleted paths.
    pub fn prune(&self, run_id: u64, keep: usize) -> Result<Vec<PathBuf>, DirError> {
        let keep = keep.max(1);
        let files = self.list()?;
        let mut kept = 0usize;
        let mut oldest_kept = u64::MAX;
        for (seq, p) in files.iter().rev() {
            if kept == keep {
                break;
            }
            if file_run_id(p) == Some(run_id) {
                kept += 1;
                oldest_kept = *seq;
            }
        }
        let mut deleted = Vec::new();
        if kept == 0 {
            return Ok(deleted);
        }
        for (seq, p) in &files {
            if *seq < oldest_kept && fs::remove_file(p).is_ok() {
                deleted.push(p.clone());
            }
        }
        if let Ok(rd) = fs::read_dir(&self.path) {
            for e in rd.filter_map(|e| e.ok()) {
                let n = e.file_name();
                let n = n.to_string_lossy();
                if n.starts_with('.') && n.ends_with(".tmp") && fs::remove_file(e.path()).is_ok() {
                    deleted.push(e.path());
                }
            }
        }
        Ok(deleted)
    }

    /// The newest valid checkpoint of an unfinished run, with the newer
    /// invalid ones it passed over. Scanning stops at the first checkpoint
    /// of a finished run, and at any checkpoint at or below the sequence
    /// number the `finished` marker covers (it and everything older are
    /// stale: a run that started fresh past them and finished, even
    /// without writing a checkpoint, must not bring them back).
    pub fn latest_valid(&self) -> Result<Latest, DirError> {
        let finished = self.finished_run();
        let covered = self.finished_through();
        let mut out = Latest::default();
        for (seq, p) in self.list()?.into_iter().rev() {
            if covered.is_some_and(|c| seq <= c) {
                break;
            }
            let name = p.display().to_string();
            let bytes = match Blob::open(&p) {
                Ok(b) => b,
                Err(source) => {
                    out.skipped.push(Skipped { error: FormatError::Io { file: name, source }, path: p });
                    continue;
                }
            };
            match crate::read::decode(&bytes) {
                Ok(c) if Some(c.header.run_id) == finished => break,
                Ok(_) => {
                    out.found = Some((p, bytes));
                    break;
                }
                Err(e) => out.skipped.push(Skipped { error: e.with_file(&name), path: p }),
            }
        }
        Ok(out)
    }

    /// Atomically records `run_id` as finished, together with the highest
    /// sequence number now in the directory (or already covered): every
    /// checkpoint up to it is stale from now on.
    pub fn mark_finished(&self, run_id: u64) -> Result<(), DirError> {
        self.mark_finished_after(run_id, 0)
    }

    /// [`CheckpointDir::mark_finished`], covering at least sequence number
    /// `other` too: the storage engine's files (`store.NNNNNN.dst`, same
    /// numbering) are not listed by this crate, so the runtime passes their
    /// highest number.
    pub fn mark_finished_after(&self, run_id: u64, other: u64) -> Result<(), DirError> {
        let tmp = self.path.join(format!(".{FINISHED}.tmp"));
        let dst = self.path.join(FINISHED);
        let highest = self.list().ok().and_then(|l| l.last().map(|(s, _)| *s)).unwrap_or(0).max(other);
        let through = highest.max(self.finished_through().unwrap_or(0));
        let r = (|| {
            let mut f = File::create(&tmp)?;
            writeln!(f, "run {run_id:016x}")?;
            writeln!(f, "through {through}")?;
            f.sync_all()?;
            fs::rename(&tmp, &dst)?;
            fsync_dir(&self.path)
        })();
        r.map_err(|source| {
            let _ = fs::remove_file(&tmp);
            DirError::Write { dir: self.path.clone(), file: FINISHED.into(), source }
        })
    }

    /// The `started` record of the last fresh run, if any (and readable).
    pub fn started(&self) -> Option<Started> {
        Started::parse(&fs::read_to_string(self.path.join(STARTED)).ok()?)
    }

    /// Replaces the `started` record (written under a temp name and renamed:
    /// a process killed meanwhile leaves the old record or the new one). Not
    /// fsynced: a record lost to a power failure only means the output of a
    /// run stopped before its first checkpoint is not cut back.
    pub fn record_started(&self, s: &Started) -> Result<(), DirError> {
        let tmp = self.path.join(format!(".{STARTED}.tmp"));
        let r = fs::write(&tmp, s.encode()).and_then(|()| fs::rename(&tmp, self.path.join(STARTED)));
        r.map_err(|source| {
            let _ = fs::remove_file(&tmp);
            DirError::Write { dir: self.path.clone(), file: STARTED.into(), source }
        })
    }

    /// Run id recorded by the `finished` marker, if any.
    pub fn finished_run(&self) -> Option<u64> {
        let s = fs::read_to_string(self.path.join(FINISHED)).ok()?;
        let line = s.lines().find_map(|l| l.strip_prefix("run "))?;
        u64::from_str_radix(line.trim(), 16).ok()
    }

    /// Highest sequence number the `finished` marker covers, if recorded.
    pub fn finished_through(&self) -> Option<u64> {
        let s = fs::read_to_string(self.path.join(FINISHED)).ok()?;
        s.lines().find_map(|l| l.strip_prefix("through ")).and_then(|v| v.trim().parse().ok())
    }
}

/// A checkpoint written and synced under its temp name, not yet in place
/// ([`CheckpointDir::prepare_file`]). Dropped unpublished, the temp file
/// is removed.
#[derive(Debug)]
pub struct Prepared {
    dir: PathBuf,
    name: String,
    tmp: PathBuf,
    dst: PathBuf,
    done: bool,
}

impl Prepared {
    /// The second phase: renames the file into place and syncs the directory.
    pub fn publish(mut self) -> Result<PathBuf, DirError> {
        self.done = true;
        let r = fs::rename(&self.tmp, &self.dst).and_then(|()| fsync_dir(&self.dir));
        match r {
            Ok(()) => Ok(self.dst.clone()),
            Err(source) => {
                let _ = fs::remove_file(&self.tmp);
                Err(DirError::Write { dir: self.dir.clone(), file: self.name.clone(), source })
            }
        }
    }

    /// Gives the checkpoint up: removes the temp file.
    pub fn discard(self) {}

    /// The temp file.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Run id of a checkpoint file, from its (validated) header.
fn file_run_id(p: &Path) -> Option<u64> {
    use std::io::Read;
    let mut b = [0u8; crate::wire::HEADER_LEN];
    File::open(p).ok()?.read_exact(&mut b).ok()?;
    crate::read::read_header(&b).ok().map(|h| h.run_id)
}

/// A checkpoint file's bytes: a read-only memory map (an empty file, which
/// cannot be mapped, is an empty vector).
#[derive(Debug)]
pub enum Blob {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Blob {
    #[allow(unsafe_code)]
    pub fn open(p: &Path) -> std::io::Result<Blob> {
        let f = File::open(p)?;
        if f.metadata()?.len() == 0 {
            return Ok(Blob::Owned(Vec::new()));
        }
        // SAFETY: the file is a committed checkpoint, never modified in
        // place (commits write a new file and rename it); a concurrent
        // truncation by another process would make reads fault, which the
        // checksums cannot prevent, but nothing in dao truncates committed
        // files.
        Ok(Blob::Mapped(unsafe { memmap2::Mmap::map(&f)? }))
    }
}

impl std::ops::Deref for Blob {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Blob::Mapped(m) => m,
            Blob::Owned(v) => v,
        }
    }
}
