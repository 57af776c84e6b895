//! The job as dao's MPI layer sees it: whether dao initialised MPI (before
//! the program's main, for coordinated checkpoints), this rank and the
//! job's size, dao's own communicator (a duplicate of `MPI_COMM_WORLD`, so
//! that dao's collectives never match the program's), and the timeout of
//! dao's waits (DAO_MPI_TIMEOUT).
use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use super::sym::{comm_world, pmpi, H, SUCCESS, THREAD_FUNNELED};
use crate::diag::fatal;

/// dao initialised MPI itself (coordinated checkpoints: DAO_DIR set in an
/// MPI launch), before the program's main.
static DAO_INIT: AtomicBool = AtomicBool::new(false);
static COORDINATED: AtomicBool = AtomicBool::new(false);
static FINALIZED: AtomicBool = AtomicBool::new(false);
static PROVIDED: AtomicI32 = AtomicI32::new(0);
static RANK: AtomicI32 = AtomicI32::new(-1);
static SIZE: AtomicI32 = AtomicI32::new(0);
/// dao's duplicate of MPI_COMM_WORLD.
static COMM: AtomicUsize = AtomicUsize::new(0);
static TIMEOUT_MS: AtomicU64 = AtomicU64::new(300_000);

#[derive(Clone, Copy, Debug)]
pub struct World {
    pub rank: i32,
    pub size: i32,
}

/// "rank R: " in messages of a coordinated job, else "".
pub fn prefix() -> String {
    match RANK.load(Relaxed) {
        r if r >= 0 && COORDINATED.load(Relaxed) => format!("rank {r}: "),
        _ => String::new(),
    }
}

pub fn rank() -> i32 {
    RANK.load(Relaxed)
}
pub fn size() -> i32 {
    SIZE.load(Relaxed)
}

/// Whether checkpoints are coordinated across the ranks now (between
/// dao's MPI_Init and the program's MPI_Finalize).
pub fn coordinated() -> bool {
    COORDINATED.load(Relaxed) && !FINALIZED.load(Relaxed)
}

/// dao initialised MPI: the program's MPI_Init only reports success.
pub fn initialised_by_dao() -> bool {
    DAO_INIT.load(Relaxed)
}

pub fn provided() -> c_int {
    PROVIDED.load(Relaxed)
}

/// The program called MPI_Finalize: no collective of dao after this.
pub fn finalizing() {
    FINALIZED.store(true, Relaxed);
}

pub(super) fn comm() -> H {
    COMM.load(Relaxed) as H
}

/// Initialises MPI before the program's main (MPI_THREAD_FUNNELED), with
/// dao's own communicator; coordinated checkpoints from here on.
pub fn start(timeout: Duration) -> World {
    TIMEOUT_MS.store(timeout.as_millis() as u64, Relaxed);
    let mut provided: c_int = 0;
    let init = pmpi!("PMPI_Init_thread", unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char, c_int, *mut c_int) -> c_int);
    // SAFETY: MPI-2 allows NULL argc/argv.
    let rc = unsafe { init(std::ptr::null_mut(), std::ptr::null_mut(), THREAD_FUNNELED, &mut provided) };
    if rc != SUCCESS {
        fatal(format_args!("MPI_Init_thread failed (error {rc}) when dao initialised MPI for coordinated checkpoints"));
    }
    DAO_INIT.store(true, Relaxed);
    PROVIDED.store(provided, Relaxed);
    let (mut rank, mut size) = (0, 0);
    let comm_rank = pmpi!("PMPI_Comm_rank", unsafe extern "C" fn(H, *mut c_int) -> c_int);
    let comm_size = pmpi!("PMPI_Comm_size", unsafe extern "C" fn(H, *mut c_int) -> c_int);
    let dup = pmpi!("PMPI_Comm_dup", unsafe extern "C" fn(H, *mut H) -> c_int);
    let mut own: H = std::ptr::null_mut();
    // SAFETY: MPI is initialised; the out parameters are valid.
    unsafe {
        comm_rank(comm_world(), &mut rank);
        comm_size(comm_world(), &mut size);
        if dup(comm_world(), &mut own) != SUCCESS {
            fatal("MPI_Comm_dup(MPI_COMM_WORLD) failed when dao initialised MPI");
        }
    }
    COMM.store(own as usize, Relaxed);
    RANK.store(rank, Relaxed);
    SIZE.store(size, Relaxed);
    COORDINATED.store(true, Relaxed);
    World { rank, size }
}

/// Frees dao's communicator (before the program's MPI_Finalize).
pub fn stop() {
    let c = COMM.swap(0, Relaxed);
    if c != 0 {
        let free = pmpi!("PMPI_Comm_free", unsafe extern "C" fn(*mut H) -> c_int);
        let mut h = c as H;
        // SAFETY: dao's own communicator, freed once.
        unsafe { free(&mut h) };
    }
}

/// Ends MPI for an exit dao decides on every rank together (an exit
/// signal: stop.rs): dao's communicator freed, then PMPI_Finalize, so that
/// mpirun sees every rank leave on purpose.
pub fn finalize_for_exit() {
    finalizing();
    stop();
    // SAFETY: MPI is initialised and not finalized (coordinated() held).
    unsafe { pmpi!("PMPI_Finalize", unsafe extern "C" fn() -> c_int)() };
}

/// Whether dao set the job up for coordinated checkpoints (even after the
/// program's MPI_Finalize).
pub(super) fn started() -> bool {
    COORDINATED.load(Relaxed)
}

/// How long dao waits for the other ranks (DAO_MPI_TIMEOUT).
pub(super) fn timeout() -> Duration {
    Duration::from_millis(TIMEOUT_MS.load(Relaxed))
}
