//! `dao inspect`: what a checkpoint file, a checkpoint directory or the
//! directory of an MPI job holds. The command dispatches here;
//! `process.rs` reports one process's file or directory (with the heap
//! objects of `heap_objects.rs`), `job.rs` an MPI job's directory (one
//! `rank.NNNN` per rank, partner and flushed levels) from `process.rs`'s
//! reports.
use std::path::Path;

pub mod demangle;
pub mod heap_objects;
pub mod job;
pub mod process;

pub use process::InspectError;
use process::{dir_report, file_report, read_checkpoint, render_dir, render_file, store_file_report, to_json};

/// Run the command. Returns the exit code: 0, or 1 when `--binary` does not
/// match a checkpoint given directly.
pub fn inspect(path: &Path, binary: Option<&Path>, json: bool, partner_dir: Option<&Path>, flush_dir: Option<&Path>) -> Result<i32, InspectError> {
    if !path.exists() {
        // a job's DAO_DIR lost with its node: what the flushed level holds
        if let Some(n) = flush_dir.and_then(job::ranks_from_level) {
            return job::inspect_job(path, n, binary, json, partner_dir, flush_dir);
        }
    }
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => InspectError::NotFound { path: path.to_path_buf() },
        _ => InspectError::Io { path: path.to_path_buf(), source },
    })?;
    if meta.is_dir() {
        if let Some(n) = job::job_ranks(path) {
            return job::inspect_job(path, n, binary, json, partner_dir, flush_dir);
        }
        let r = dir_report(path, binary)?;
        print!("{}", if json { to_json(&r) } else { render_dir(&r) });
        return Ok(0);
    }
    if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("store.") && n.to_string_lossy().ends_with(".dst")) {
        let mut r = store_file_report(path, binary)?;
        demangle::demangle_report(&mut r);
        print!("{}", if json { to_json(&r) } else { render_file(&r) });
        return Ok(match &r.binary_check {
            Some(b) if !b.matches => 1,
            _ => 0,
        });
    }
    let (bytes, n) = read_checkpoint(path)?;
    let c = dao_format::decode(&bytes).map_err(|e| InspectError::Invalid(e.with_file(&path.display().to_string())))?;
    let mut r = file_report(path, &c, n, binary)?;
    r.format_version = dao_format::wire::le_u32(&bytes, 8);
    demangle::demangle_report(&mut r);
    print!("{}", if json { to_json(&r) } else { render_file(&r) });
    Ok(match &r.binary_check {
        Some(b) if !b.matches => 1,
        _ => 0,
    })
}

