//! The store directory: naming, restore with fallback, chain garbage collection.
//!
//! Files are `store.NNNNNN.dst` (NNNNNN = sequence number, increasing over
//! the life of the directory). Each file's header says whether it is a full
//! checkpoint, an incremental one (parent = the previous checkpoint) or a
//! differential one (parent = its base), and the commit id of that parent,
//! so the chains are read from the files alone.
//!
//! Restore ([`StoreDir::restore_latest`]) tries the newest checkpoint first.
//! It checks every link of its chain (present, committed, every checksum,
//! parent id) before decoding anything; the first checkpoint whose whole
//! chain is good is rebuilt and returned, together with the newer ones that
//! could not be, each with the link that broke and why.
//!
//! Garbage collection ([`StoreDir::collectable`]) keeps the newest
//! `keep_chains` complete chains: every file at or after the `keep_chains`-th
//! newest *valid* full checkpoint stays; older files (and temp files left by
//! a killed writer) may go. No restorable state newer than that base needs
//! an older file, since every chain starts at its own base.
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::file::{self, FileHeader, Kind, Verified};
use crate::payload::{self, State};

/// A store directory.
#[derive(Clone, Debug)]
pub struct StoreDir {
    path: PathBuf,
}

/// A checkpoint that could not be rebuilt.
#[derive(Debug)]
pub struct Fallback {
    /// The checkpoint that was passed over.
    pub seq: u64,
    /// The link of its chain that failed (itself or an older file).
    pub broken_seq: u64,
    pub error: StoreError,
}

/// Result of a restore.
#[derive(Debug)]
pub struct Restored {
    pub seq: u64,
    pub kind: Kind,
    /// The files applied, base first.
    pub chain: Vec<u64>,
    pub state: State,
    /// Newer checkpoints passed over, newest first.
    pub fell_back: Vec<Fallback>,
    /// The restored file's header and commit id (what
    /// [`crate::Engine::resume`] needs to continue its chain).
    pub header: FileHeader,
    pub commit_id: u64,
}

fn seq_of(name: &str) -> Option<u64> {
    let n = name.strip_prefix("store.")?.strip_suffix(".dst")?;
    (!n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())).then(|| n.parse().ok())?
}

impl StoreDir {
    /// Opens `path`, creating it when missing.
    pub fn open(path: impl Into<PathBuf>) -> Result<StoreDir, StoreError> {
        let path = path.into();
        fs::create_dir_all(&path).map_err(|e| StoreError::io(&path, e))?;
        Ok(StoreDir { path })
    }

    /// Uses `path` as it is (reading only).
    pub fn at(path: impl Into<PathBuf>) -> StoreDir {
        StoreDir { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn file_name(seq: u64) -> String {
        format!("store.{seq:06}.dst")
    }

    pub fn file_path(&self, seq: u64) -> PathBuf {
        self.path.join(Self::file_name(seq))
    }

    /// Committed-looking files (by name), oldest first.
    pub fn list(&self) -> Result<Vec<(u64, PathBuf)>, StoreError> {
        let rd = fs::read_dir(&self.path).map_err(|e| StoreError::io(&self.path, e))?;
        let mut v: Vec<(u64, PathBuf)> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| seq_of(e.file_name().to_str()?).map(|s| (s, e.path())))
            .collect();
        v.sort();
        Ok(v)
    }

    /// Highest sequence number present (0 when none).
    pub fn max_seq(&self) -> u64 {
        self.list().ok().and_then(|v| v.last().map(|x| x.0)).unwrap_or(0)
    }

    /// Verifies file `seq` (no decompression).
    fn verify(&self, seq: u64) -> Result<(Verified, file::Mapped), StoreError> {
        let p = self.file_path(seq);
        let m = file::map(&p)?;
        let v = file::verify(&m).map_err(|e| e.with_file(&p))?;
        if v.header.seq != seq {
            return Err(StoreError::corrupt(&p, format!("header (sequence number {} in the file)", v.header.seq)));
        }
        Ok((v, m))
    }

    /// The chain of `seq`, base first, with every link verified; on failure
    /// the sequence number of the broken link and the error.
    fn chain_of(&self, seq: u64, memo: &mut HashMap<u64, Result<(FileHeader, u64), String>>) -> Result<Vec<u64>, (u64, StoreError)> {
        let mut chain = Vec::new();
        let mut cur = seq;
        let mut expect_id: Option<(u64, u64)> = None; // (child seq, parent id it expects)
        loop {
            let got = match memo.get(&cur) {
                Some(r) => r.clone(),
                None => {
                    let r = self.verify(cur).map(|(v, _)| (v.header, v.commit_id)).map_err(|e| e.to_string());
                    memo.insert(cur, r.clone());
                    r
                }
            };
            let (h, id) = match got {
                Ok(x) => x,
                Err(e) => {
                    let p = self.file_path(cur);
                    let err = if !p.exists() {
                        StoreError::BrokenLink { file: p, what: format!("file missing ({e})") }
                    } else {
                        StoreError::BrokenLink { file: p, what: e }
                    };
                    return Err((cur, err));
                }
            };
            if let Some((child, want)) = expect_id {
                if id != want {
                    return Err((
                        child,
                        StoreError::BrokenLink {
                            file: self.file_path(child),
                            what: format!("its parent {} has commit id {id:#x}, not {want:#x} (replaced?)", Self::file_name(cur)),
                        },
                    ));
                }
            }
            chain.push(cur);
            if h.kind == Kind::Full {
                break;
            }
            expect_id = Some((cur, h.parent_id));
            cur = h.parent_seq;
        }
        chain.reverse();
        Ok(chain)
    }

    /// Verifies file `seq` alone (header, every chunk checksum, the commit
    /// record; nothing is decompressed): its header and commit id.
    pub fn check(&self, seq: u64) -> Result<(FileHeader, u64), StoreError> {
        self.verify(seq).map(|(v, _)| (v.header, v.commit_id))
    }

    /// The chain of `seq`, base first, every link verified as by
    /// [`StoreDir::restore`] but nothing decoded (an error names the broken link).
    pub fn verified_chain(&self, seq: u64) -> Result<Vec<u64>, StoreError> {
        self.chain_of(seq, &mut HashMap::new()).map_err(|(_, e)| e)
    }

    /// Rebuilds the state of checkpoint `seq` (an error names the broken link).
    pub fn restore(&self, seq: u64) -> Result<Restored, StoreError> {
        let chain = self.chain_of(seq, &mut HashMap::new()).map_err(|(_, e)| e)?;
        self.apply_chain(seq, chain)
    }

    fn apply_chain(&self, seq: u64, chain: Vec<u64>) -> Result<Restored, StoreError> {
        let mut state: Option<State> = None;
        let mut last = None;
        for &s in &chain {
            let p = self.file_path(s);
            let (v, raw) = file::read(&p)?;
            let parsed = payload::parse(&raw, v.header.block_size as usize).map_err(|w| StoreError::corrupt(&p, format!("payload ({w})")))?;
            // A differential delta applies to its base, which is chain[0]
            // and therefore the state here.
            state = Some(
                parsed
                    .apply(if v.header.kind == Kind::Full { None } else { state }, v.header.block_size as usize)
                    .map_err(|w| StoreError::BrokenLink { file: p.clone(), what: w })?,
            );
            last = Some((v.header, v.commit_id));
        }
        let (header, commit_id) = last.expect("a chain has at least one file");
        Ok(Restored { seq, kind: header.kind, chain, state: state.unwrap_or_default(), fell_back: Vec::new(), header, commit_id })
    }

    /// Rebuilds the newest checkpoint whose chain is complete and valid.
    pub fn restore_latest(&self) -> Result<Restored, StoreError> {
        self.restore_latest_from(0)
    }

    /// [`StoreDir::restore_latest`] among the checkpoints numbered `first`
    /// or higher (the runtime's `finished` marker makes older ones stale;
    /// their files may still serve as links of a newer chain).
    pub fn restore_latest_from(&self, first: u64) -> Result<Restored, StoreError> {
        let mut memo = HashMap::new();
        let mut fell_back = Vec::new();
        for (seq, _) in self.list()?.into_iter().rev().filter(|(s, _)| *s >= first) {
            let r = self.chain_of(seq, &mut memo).and_then(|chain| {
                self.apply_chain(seq, chain).map_err(|e| (seq, e))
            });
            match r {
                Ok(mut r) => {
                    r.fell_back = fell_back;
                    return Ok(r);
                }
                Err((broken_seq, error)) => fell_back.push(Fallback { seq, broken_seq, error }),
            }
        }
        if let Some(f) = fell_back.into_iter().next() {
            // Nothing could be rebuilt: report the newest failure.
            return Err(f.error);
        }
        Err(StoreError::NothingToRestore { dir: self.path.clone() })
    }

    /// Files that garbage collection may delete while keeping the newest
    /// `keep_chains` (at least 1) complete chains; see the module docs.
    pub fn collectable(&self, keep_chains: usize) -> Result<Vec<PathBuf>, StoreError> {
        self.collectable_after(keep_chains, &|_| false)
    }

    /// [`StoreDir::collectable`] where the full checkpoints for which
    /// `trusted` says yes are counted as valid bases without reading them
    /// back: those this process committed itself (their commit records
    /// were written and fsynced from the checksums it computed; reading
    /// one back costs as much as writing it, on MG.A 460 MB at every full
    /// checkpoint). Other bases are verified as always.
    pub fn collectable_after(&self, keep_chains: usize, trusted: &dyn Fn(u64) -> bool) -> Result<Vec<PathBuf>, StoreError> {
        self.collect_plan(keep_chains, trusted).map(|(_, out)| out)
    }

    /// The cut of [`StoreDir::collectable_after`] (the oldest base kept,
    /// when `keep_chains` valid bases exist) and the files below it.
    fn collect_plan(&self, keep_chains: usize, trusted: &dyn Fn(u64) -> bool) -> Result<(Option<u64>, Vec<PathBuf>), StoreError> {
        let keep = keep_chains.max(1);
        let files = self.list()?;
        let mut bases_seen = 0usize;
        let mut cut: Option<u64> = None;
        let mut memo = HashMap::new();
        for (seq, _) in files.iter().rev() {
            if trusted(*seq) {
                bases_seen += 1;
                if bases_seen == keep {
                    cut = Some(*seq);
                    break;
                }
                continue;
            }
            let is_valid_base = self.verify(*seq).map(|(v, _)| v.header.kind == Kind::Full).unwrap_or(false);
            // A base counts only when it is itself valid; the chain built on
            // it may be damaged, but then newer bases were counted first.
            if is_valid_base && self.chain_of(*seq, &mut memo).is_ok() {
                bases_seen += 1;
                if bases_seen == keep {
                    cut = Some(*seq);
                    break;
                }
            }
        }
        let mut out = Vec::new();
        if let Some(cut) = cut {
            out.extend(files.into_iter().filter(|(s, _)| *s < cut).map(|(_, p)| p));
        }
        let rd = fs::read_dir(&self.path).map_err(|e| StoreError::io(&self.path, e))?;
        for e in rd.filter_map(|e| e.ok()) {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if n.starts_with(".store.") && n.ends_with(".dst.tmp") {
                out.push(e.path());
            }
        }
        out.sort();
        Ok((cut, out))
    }

    /// Deletes what [`StoreDir::collectable`] lists; returns the deleted paths.
    /// Call it only when no writer of this directory is between creating
    /// its temp file and committing (the engine calls it right after a commit).
    pub fn gc(&self, keep_chains: usize) -> Result<Vec<PathBuf>, StoreError> {
        self.gc_after(keep_chains, &|_| false)
    }

    /// [`StoreDir::gc`] trusting some bases (see [`StoreDir::collectable_after`]).
    pub fn gc_after(&self, keep_chains: usize, trusted: &dyn Fn(u64) -> bool) -> Result<Vec<PathBuf>, StoreError> {
        self.gc_cut_after(keep_chains, trusted).map(|(_, done)| done)
    }

    /// [`StoreDir::gc_after`], also returning its cut: the oldest base it
    /// kept when the directory holds `keep_chains` valid chains (every
    /// checkpoint older than the cut, in any format, is then garbage), None
    /// when it holds fewer.
    pub fn gc_cut_after(&self, keep_chains: usize, trusted: &dyn Fn(u64) -> bool) -> Result<(Option<u64>, Vec<PathBuf>), StoreError> {
        let (cut, files) = self.collect_plan(keep_chains, trusted)?;
        let mut done = Vec::new();
        for p in files {
            if fs::remove_file(&p).is_ok() {
                done.push(p);
            }
        }
        Ok((cut, done))
    }
}
