//! Where a rank's files are and which ranks are its partners: the job's
//! directories (DAO_DIR, DAO_PARTNER_DIR, DAO_FLUSH_DIR), `rank.NNNN`,
//! the sidecar's name, and the partner shift.
use std::ffi::{c_char, c_int};

use super::collectives::allgather;
use super::sym::pmpi;
use super::world::size;

/// Where this rank's files are, and its partners.
#[derive(Clone, Debug)]
pub struct Job {
    /// DAO_DIR: `rank.NNNN` directories, `job`, and (by default) `partner`.
    pub root: std::path::PathBuf,
    /// Partner copies: `rank.NNNN` directories of copies, by owner rank.
    pub partner_root: std::path::PathBuf,
    pub partner: bool,
    /// DAO_PARTNER=sync: the copy is made while the program waits.
    pub partner_sync: bool,
    /// The rank that keeps a copy of this rank's checkpoints, and the rank
    /// whose copies this rank keeps.
    pub holder: i32,
    pub owner: i32,
    /// DAO_FLUSH_DIR: the third level's `rank.NNNN` directories, if set.
    pub flush_root: Option<std::path::PathBuf>,
    /// DAO_FLUSH_EVERY: versions whose number is a multiple of it are flushed.
    pub flush_every: u64,
}

static JOB: std::sync::OnceLock<Job> = std::sync::OnceLock::new();

pub fn set_job(j: Job) {
    let _ = JOB.set(j);
}

pub fn job() -> Option<&'static Job> {
    JOB.get()
}

/// `rank.NNNN`
pub fn rank_dir_name(r: i32) -> String {
    format!("rank.{r:04}")
}

/// The partner shift: the number of ranks on rank 0's node (ranks placed
/// node by node then have their holder on the next node), or 1 when every
/// rank is on one node. Collective.
pub fn partner_shift() -> i32 {
    let n = size();
    let h = xxhash_rust::xxh3::xxh3_64(node_name().as_bytes()) as i64;
    let all = allgather(h);
    let k = all.iter().filter(|&&x| x == all[0]).count() as i32;
    if k >= n {
        1
    } else {
        k.max(1)
    }
}

/// The name of this rank's node (MPI_Get_processor_name).
pub fn node_name() -> String {
    let f = pmpi!("PMPI_Get_processor_name", unsafe extern "C" fn(*mut c_char, *mut c_int) -> c_int);
    let mut buf = [0u8; 256];
    let mut n: c_int = 0;
    // SAFETY: MPI_MAX_PROCESSOR_NAME is 256 in Open MPI.
    unsafe { f(buf.as_mut_ptr() as *mut c_char, &mut n) };
    String::from_utf8_lossy(&buf[..(n.max(0) as usize).min(256)]).into_owned()
}

/// `ckpt.NNNNNN.mpi`: the MPI sidecar of a checkpoint (log.rs, `log_text`).
pub fn sidecar_name(seq: u64) -> String {
    format!("ckpt.{seq:06}.mpi")
}
