//! MPI: which checkpoint a restarted job resumes (issue #17). Every rank
//! must resume the same version, one that every rank has and can validate:
//!
//! 1. each rank finds its newest valid version at most `bound` (the file
//!    decodes with its checksums, its sidecar parses and names this rank
//!    and job size), and the newest valid copy it holds of its owner's;
//! 2. a rank's proposal is its own newest, or the copy its holder keeps of
//!    it when that is newer (a lost or damaged local checkpoint); the job
//!    takes the smallest proposal (a collective minimum), v;
//! 3. a rank without a valid v of its own gets the copy from its holder
//!    (point to point) and writes it back into its directory;
//! 4. the ranks agree that all of them have v (another minimum); if not,
//!    bound = v - 1 and again: the job falls back together, one version at
//!    a time, each rank naming the files that failed. No version at all: a
//!    fresh start on every rank.
//!
//! The third level (DAO_FLUSH_DIR, a shared directory, every k-th
//! version): a rank's newest valid flushed version counts in its proposal
//! too, and in step 3 a rank that still lacks v after the partner copy
//! takes it from there. So a job whose node-local directories are all gone
//! (its own checkpoints and the partner copies) resumes from the newest
//! version every rank flushed.
//!
//! Files newer than v are removed on every rank (and from the partner
//! copies and the flushed ones): they belong to a timeline the restart
//! abandons, and a later crash must never combine them with the new run's
//! files.
use std::path::{Path, PathBuf};

use dao_format::{decode, Blob, CheckpointDir};

use crate::diag;
use crate::mpi::{self, Log};

/// A version every rank resumes: this rank's file, its bytes and its MPI log.
pub struct Chosen {
    pub seq: u64,
    pub path: PathBuf,
    pub blob: Blob,
    pub log: Log,
}

/// Checks one version in `dir` (this rank's directory, a copy held for
/// `rank`, or its flushed copy): the checkpoint decodes, is not of a run
/// that either finished marker names (DAO_DIR's; DAO_FLUSH_DIR's for a
/// flushed copy), and its sidecar is intact and names `rank` and the
/// job's size.
fn validate(dir: &Path, seq: u64, rank: i32, finished: [Option<u64>; 2]) -> Result<(Blob, Log), String> {
    let p = dir.join(CheckpointDir::file_name(seq));
    let name = p.display().to_string();
    let blob = Blob::open(&p).map_err(|e| format!("{name}: {e}"))?;
    let c = decode(&blob).map_err(|e| e.with_file(&name).to_string())?;
    if finished.contains(&Some(c.header.run_id)) {
        return Err(format!("{name} belongs to a run that finished"));
    }
    drop(c);
    let sp = dir.join(mpi::sidecar_name(seq));
    let text = std::fs::read_to_string(&sp).map_err(|e| format!("{}: {e}", sp.display()))?;
    let log = mpi::parse_log(&text).map_err(|e| format!("{}: {e}", sp.display()))?;
    if log.seq != seq || log.rank != rank || log.size != mpi::size() {
        return Err(format!("{}: written for checkpoint {} of rank {} of {}, not {seq} of rank {rank} of {}", sp.display(), log.seq, log.rank, log.size, mpi::size()));
    }
    Ok((blob, log))
}

/// Versions present in `dir` above `floor`, newest first.
fn versions(dir: &Path, floor: u64) -> Vec<u64> {
    let mut v: Vec<u64> = CheckpointDir::at(dir).list().map(|l| l.into_iter().map(|(q, _)| q).filter(|&q| q > floor).collect()).unwrap_or_default();
    v.reverse();
    v
}

/// The newest valid version at most `bound` (0: none); failures go to `bad`.
fn newest_valid(dir: &Path, bound: u64, floor: u64, rank: i32, finished: [Option<u64>; 2], bad: &mut Vec<String>) -> u64 {
    for q in versions(dir, floor).into_iter().filter(|&q| q <= bound) {
        match validate(dir, q, rank, finished) {
            Ok(_) => return q,
            Err(e) => {
                if !bad.contains(&e) {
                    bad.push(e)
                }
            }
        }
    }
    0
}

/// Removes versions newer than `seq` (and their sidecars) from `dir`.
fn drop_newer(dir: &Path, seq: u64) {
    for q in versions(dir, seq) {
        let _ = std::fs::remove_file(dir.join(CheckpointDir::file_name(q)));
        let _ = std::fs::remove_file(dir.join(mpi::sidecar_name(q)));
    }
}

/// The version the job resumes (collective: every rank calls it), or None
/// for a fresh start.
pub fn choose(dir: &CheckpointDir) -> Option<Chosen> {
    let job = mpi::job().expect("the MPI job is set up before the restart");
    let me = mpi::rank();
    let pre = mpi::prefix();
    let own = dir.path();
    let floor = dir.finished_through().unwrap_or(0);
    let finished = dir.finished_run();
    let held_dir = job.partner_root.join(mpi::rank_dir_name(job.owner));
    // copies of a finished run (its marker there) are stale too
    let held_cd = CheckpointDir::at(&held_dir);
    let (held_floor, held_finished) = (held_cd.finished_through().unwrap_or(0), held_cd.finished_run());
    // the third level: versions covered by either finished marker are stale
    let flush_dir = crate::levels::flush_dir_of(job, me);
    let flush_cd = flush_dir.as_ref().map(CheckpointDir::at);
    let flush_floor = floor.max(flush_cd.as_ref().and_then(|d| d.finished_through()).unwrap_or(0));
    let flush_finished = flush_cd.as_ref().and_then(|d| d.finished_run());
    let mut bad: Vec<String> = Vec::new();
    let mut bound = u64::MAX;
    let mut newest_own: Option<u64> = None;
    // this rank's first proposal: its newest restorable version, from any level
    let mut newest_any: Option<u64> = None;
    let mut reported: Vec<String> = Vec::new();
    loop {
        let mine = newest_valid(own, bound, floor, me, [finished, None], &mut bad);
        newest_own.get_or_insert(mine);
        // copies are validated for their owner's rank
        let held = if job.partner { newest_valid(&held_dir, bound, held_floor, job.owner, [None, held_finished], &mut Vec::new()) } else { 0 };
        let helds = mpi::allgather(held as i64);
        let by_holder = helds.get(job.holder as usize).copied().unwrap_or(0).max(0) as u64;
        let flushed = flush_dir.as_deref().map_or(0, |d| newest_valid(d, bound, flush_floor, me, [finished, flush_finished], &mut bad));
        let proposal = if by_holder > floor { mine.max(by_holder) } else { mine }.max(flushed);
        newest_any.get_or_insert(proposal);
        let v = mpi::min_u64(proposal);
        for e in bad.drain(..) {
            if !reported.contains(&e) {
                diag::warn(format_args!("{pre}{e}: not restorable"));
                reported.push(e);
            }
        }
        if v == 0 {
            if newest_own.unwrap_or(0) > 0 {
                diag::warn(format_args!("{pre}starting from scratch: some rank has no checkpoint that it or its partner can restore"));
            }
            return None;
        }
        let mut have = validate(own, v, me, [finished, None]);
        if let Err(e) = &have {
            if versions(own, floor).contains(&v) && !reported.contains(e) {
                diag::warn(format_args!("{pre}{e}: not restorable"));
                reported.push(e.clone());
            }
        }
        // partner copies back to the ranks that lack v
        let needs = mpi::allgather(have.is_err() as i64);
        let owner_needs = job.partner && needs.get(job.owner as usize) == Some(&1) && job.owner != me;
        let need = job.partner && have.is_err() && job.holder != me;
        let copy = if owner_needs {
            match validate(&held_dir, v, job.owner, [None, held_finished]).and_then(|x| if v > held_floor { Ok(x) } else { Err(format!("{} is covered by the finished marker there", held_dir.display())) }) {
                Ok(_) => {
                    let c = std::fs::read(held_dir.join(CheckpointDir::file_name(v))).unwrap_or_default();
                    let side = std::fs::read(held_dir.join(mpi::sidecar_name(v))).unwrap_or_default();
                    crate::levels::pack_copy(v, &c, &side)
                }
                Err(e) => {
                    diag::warn(format_args!("{pre}the partner copy of rank {}'s checkpoint {v} is not restorable either: {e}", job.owner));
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        let got = mpi::transfer(owner_needs.then_some(job.owner), &copy, need.then_some(job.holder));
        if need {
            match crate::levels::unpack_copy(&got) {
                Some((q, c, side)) if q == v => match crate::levels::store_copy(dir, v, c, side) {
                    Ok(p) => {
                        have = validate(own, v, me, [finished, None]);
                        if have.is_ok() {
                            diag::warn(format_args!("{pre}{} rebuilt from the partner copy kept by rank {}", p.display(), job.holder));
                        }
                    }
                    Err(e) => diag::warn(format_args!("{pre}cannot write the partner copy back: {e}")),
                },
                _ => {}
            }
        }
        // the third level, when neither this rank's own file nor the
        // partner copy could give it v
        if have.is_err() {
            if let Some(fd) = flush_dir.as_deref().filter(|_| v > flush_floor) {
                if validate(fd, v, me, [finished, flush_finished]).is_ok() {
                    let c = std::fs::read(fd.join(CheckpointDir::file_name(v))).unwrap_or_default();
                    let side = std::fs::read(fd.join(mpi::sidecar_name(v))).unwrap_or_default();
                    match crate::levels::store_copy(dir, v, &c, &side) {
                        Ok(p) => {
                            have = validate(own, v, me, [finished, None]);
                            if have.is_ok() {
                                diag::warn(format_args!("{pre}{} rebuilt from the flushed copy in {}", p.display(), fd.display()));
                            }
                        }
                        Err(e) => diag::warn(format_args!("{pre}cannot write the flushed copy back: {e}")),
                    }
                }
            }
        }
        let all = mpi::min_u64(have.is_ok() as u64);
        if all == 1 {
            let (blob, log) = have.expect("validated");
            if newest_own.is_some_and(|n| n > v) || newest_any.is_some_and(|n| n > v) || bound != u64::MAX {
                diag::warn(format_args!("{pre}falling back to checkpoint {v}, the newest that every rank can restore"));
            }
            drop_newer(own, v);
            if job.partner {
                drop_newer(&held_dir, v);
            }
            if let Some(fd) = &flush_dir {
                drop_newer(fd, v);
            }
            return Some(Chosen { seq: v, path: own.join(CheckpointDir::file_name(v)), blob, log });
        }
        bound = v - 1;
    }
}
