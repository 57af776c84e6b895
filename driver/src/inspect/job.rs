//! `dao inspect` on the DAO_DIR of an MPI job (issue #17): one `rank.NNNN`
//! directory per rank, a `job` file (`ranks N`), partner copies
//! (`partner/rank.NNNN`, or DAO_PARTNER_DIR) and the flushed level
//! (DAO_FLUSH_DIR). Per rank: its own directory as for one process, and the
//! versions each level can restore; for the job: the version a restart
//! would resume, by the runtime's rule (runtime/src/mpi/restart.rs): the
//! newest version that every rank can restore from some level, above the
//! finished markers.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dao_format::CheckpointDir;
use serde::Serialize;

use super::process::{dir_report, render_dir, DirReport, InspectError};

#[derive(Debug, Serialize)]
pub struct JobReport {
    pub dir: String,
    pub ranks: u32,
    pub partner_dir: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flush_dir: Option<String>,
    pub per_rank: Vec<RankReport>,
    /// The version every rank would resume; None: a fresh start.
    pub restart_version: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct RankReport {
    pub rank: u32,
    /// Its own directory, as `dao inspect` shows one process's.
    pub own: DirReport,
    /// Versions restorable from each level (checkpoint decodes, sidecar
    /// intact and naming the version and rank, not of a finished run).
    pub own_versions: Vec<u64>,
    pub partner_versions: Vec<u64>,
    pub flushed_versions: Vec<u64>,
    /// Files of the levels that are present but cannot be restored, why.
    pub unusable: Vec<String>,
    /// Where the resumed version would come from: "own", "partner copy",
    /// "flushed copy".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_source: Option<&'static str>,
}

/// Whether `dir` is an MPI job's DAO_DIR: a `job` file naming the ranks.
pub fn job_ranks(dir: &Path) -> Option<u32> {
    let t = std::fs::read_to_string(dir.join("job")).ok()?;
    t.lines().find_map(|l| l.strip_prefix("ranks ")).and_then(|n| n.trim().parse().ok()).filter(|&n| n > 0)
}

/// The job's rank count from a sidecar of rank 0 kept at another level
/// (`rank N size M`): for a DAO_DIR that is gone (a lost node), inspected
/// through its flushed level.
pub fn ranks_from_level(level: &Path) -> Option<u32> {
    let rd = std::fs::read_dir(rank_dir(level, 0)).ok()?;
    rd.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".mpi")).find_map(|e| {
        let t = std::fs::read_to_string(e.path()).ok()?;
        t.lines().find_map(|l| l.strip_prefix("rank 0 size ")).and_then(|n| n.trim().parse().ok())
    })
}

fn rank_dir(root: &Path, r: u32) -> PathBuf {
    root.join(format!("rank.{r:04}"))
}

/// Checks a sidecar (`ckpt.NNNNNN.mpi`) as the runtime's `parse_log`
/// does (dao_format::mpi_log_body: the end line's xxh3, the magic), and
/// the version and rank it names.
fn check_sidecar(path: &Path, seq: u64, rank: u32) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = dao_format::mpi_log_body(&text).map_err(|e| format!("{}: {e}", path.display()))?.lines();
    let names_seq = lines.next() == Some(&format!("seq {seq}"));
    let names_rank = lines.next().is_some_and(|l| l.starts_with(&format!("rank {rank} ")));
    if !(names_seq && names_rank) {
        return Err(format!("{}: written for another checkpoint or rank", path.display()));
    }
    Ok(())
}

/// The versions of `dir` restorable for `rank` above `floor` (newest last),
/// and why the others are not.
fn restorable(dir: &Path, rank: u32, floor: u64, finished: &[Option<u64>], unusable: &mut Vec<String>) -> Vec<u64> {
    let mut ok = Vec::new();
    for (seq, p) in CheckpointDir::at(dir).list().unwrap_or_default() {
        if seq <= floor {
            continue;
        }
        let checked = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display())).and_then(|b| {
            let c = dao_format::decode(&b).map_err(|e| e.with_file(&p.display().to_string()).to_string())?;
            if finished.contains(&Some(c.header.run_id)) {
                return Err(format!("{} belongs to a run that finished", p.display()));
            }
            check_sidecar(&dir.join(format!("ckpt.{seq:06}.mpi")), seq, rank)
        });
        match checked {
            Ok(()) => ok.push(seq),
            Err(e) => unusable.push(e),
        }
    }
    ok
}

pub fn job_report(root: &Path, ranks: u32, binary: Option<&Path>, partner_dir: Option<&Path>, flush_dir: Option<&Path>) -> Result<JobReport, InspectError> {
    let proot = partner_dir.map_or_else(|| root.join("partner"), Path::to_path_buf);
    let mut per_rank = Vec::new();
    let mut sets: Vec<(BTreeSet<u64>, BTreeSet<u64>, BTreeSet<u64>)> = Vec::new();
    for r in 0..ranks {
        let own_dir = rank_dir(root, r);
        let own = if own_dir.is_dir() {
            dir_report(&own_dir, binary)?
        } else {
            DirReport { dir: own_dir.display().to_string(), checkpoints: vec![], temp_files: vec![], finished_run: None, restart_from: None }
        };
        let own_cd = CheckpointDir::at(&own_dir);
        let floor = own_cd.finished_through().unwrap_or(0);
        let finished = own_cd.finished_run();
        let mut unusable = Vec::new();
        let own_versions = restorable(&own_dir, r, floor, &[finished], &mut unusable);
        let held = CheckpointDir::at(rank_dir(&proot, r));
        let held_floor = floor.max(held.finished_through().unwrap_or(0));
        let partner_versions = restorable(&rank_dir(&proot, r), r, held_floor, &[finished, held.finished_run()], &mut unusable);
        let flushed_versions = flush_dir.map_or_else(Vec::new, |f| {
            let fd = CheckpointDir::at(rank_dir(f, r));
            let ffloor = floor.max(fd.finished_through().unwrap_or(0));
            restorable(&rank_dir(f, r), r, ffloor, &[finished, fd.finished_run()], &mut unusable)
        });
        sets.push((own_versions.iter().copied().collect(), partner_versions.iter().copied().collect(), flushed_versions.iter().copied().collect()));
        per_rank.push(RankReport { rank: r, own, own_versions, partner_versions, flushed_versions, unusable, restart_source: None });
    }
    // the newest version every rank can restore from some level
    let any = |s: &(BTreeSet<u64>, BTreeSet<u64>, BTreeSet<u64>)| -> BTreeSet<u64> { s.0.union(&s.1).chain(s.2.iter()).copied().collect() };
    let common = sets.iter().map(any).reduce(|a, b| a.intersection(&b).copied().collect()).unwrap_or_default();
    let restart_version = common.iter().next_back().copied();
    if let Some(v) = restart_version {
        for (rr, s) in per_rank.iter_mut().zip(&sets) {
            rr.restart_source = Some(if s.0.contains(&v) {
                "own"
            } else if s.1.contains(&v) {
                "partner copy"
            } else {
                "flushed copy"
            });
        }
    }
    Ok(JobReport {
        dir: root.display().to_string(),
        ranks,
        partner_dir: proot.display().to_string(),
        flush_dir: flush_dir.map(|f| f.display().to_string()),
        per_rank,
        restart_version,
    })
}

fn versions(v: &[u64]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
    }
}

pub fn render_job(r: &JobReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "MPI job directory {}: {} ranks", r.dir, r.ranks);
    for rr in &r.per_rank {
        let _ = writeln!(s, "\nrank {}:", rr.rank);
        // (its own "a restart would resume" line is one process's rule)
        for l in render_dir(&rr.own).lines().filter(|l| !l.starts_with("a restart would")) {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(s, "  restorable: own {}; partner copies {}; flushed {}", versions(&rr.own_versions), versions(&rr.partner_versions), match &r.flush_dir {
            Some(f) if !Path::new(f).is_dir() => format!("none ({f} is not a directory)"),
            Some(_) => versions(&rr.flushed_versions),
            None => "(no DAO_FLUSH_DIR given)".into(),
        });
        for u in &rr.unusable {
            let _ = writeln!(s, "  not restorable: {u}");
        }
    }
    let _ = writeln!(s);
    match r.restart_version {
        Some(v) => {
            let from: Vec<String> = r.per_rank.iter().filter(|rr| rr.restart_source != Some("own")).map(|rr| format!("rank {} from its {}", rr.rank, rr.restart_source.unwrap_or("?"))).collect();
            let from = if from.is_empty() { String::new() } else { format!(" ({})", from.join(", ")) };
            let _ = writeln!(s, "a restart of the job would resume checkpoint {v} on every rank{from}");
        }
        None => {
            let _ = writeln!(s, "a restart of the job would start from the beginning (no version that every rank can restore)");
        }
    }
    s
}

/// `dao inspect` on a job directory.
pub fn inspect_job(root: &Path, ranks: u32, binary: Option<&Path>, json: bool, partner_dir: Option<&Path>, flush_dir: Option<&Path>) -> Result<i32, InspectError> {
    let r = job_report(root, ranks, binary, partner_dir, flush_dir)?;
    if json {
        let mut t = serde_json::to_string_pretty(&r).expect("reports serialize");
        t.push('\n');
        print!("{t}");
    } else {
        print!("{}", render_job(&r));
    }
    Ok(0)
}
