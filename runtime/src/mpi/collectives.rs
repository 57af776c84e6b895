//! dao's collectives: at every look at a candidate (`look`), at the commit
//! of a version (`agree`) and at restart. They run on dao's own
//! communicator (world.rs), so they never match the program's, and only on
//! the thread that runs `main` (MPI_THREAD_FUNNELED); the time spent in
//! them is counted for DAO_STATS.
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use super::sym::{int64, object, pmpi, H, SUCCESS};
use super::traffic;
use super::world::{comm, prefix, size, timeout};
use crate::diag::fatal;

/// Seconds spent in dao's collectives at candidates and commits.
static COLLECTIVE_NS: AtomicU64 = AtomicU64::new(0);

pub(super) fn timed<R>(f: impl FnOnce() -> R) -> R {
    let t = Instant::now();
    let r = f();
    COLLECTIVE_NS.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
    r
}

/// Seconds spent in dao's collectives so far (and resets the count).
pub fn take_collective_s() -> f64 {
    COLLECTIVE_NS.swap(0, Relaxed) as f64 * 1e-9
}

/// Waits for a request of dao's, failing with `what` after the timeout
/// (DAO_MPI_TIMEOUT): a rank that never comes is a program whose ranks do
/// not reach candidates the same number of times.
fn wait(req: &mut H, what: &dyn Fn() -> String) {
    let test = pmpi!("PMPI_Test", unsafe extern "C" fn(*mut H, *mut c_int, *mut c_void) -> c_int);
    let t0 = Instant::now();
    let limit = timeout();
    let mut spins = 0u32;
    loop {
        let mut flag: c_int = 0;
        // SAFETY: a request of dao's; MPI_STATUS_IGNORE is NULL in Open MPI.
        unsafe { test(req, &mut flag, std::ptr::null_mut()) };
        if flag != 0 {
            return;
        }
        spins += 1;
        if spins > 1000 {
            std::thread::yield_now();
            if t0.elapsed() > limit {
                fatal(format_args!(
                    "{}waited {:.0} s for the other ranks at {} (DAO_MPI_TIMEOUT): the ranks do not reach dao_potential_checkpoint() the same number of times",
                    prefix(),
                    limit.as_secs_f64(),
                    what()
                ));
            }
        }
    }
}

fn allreduce(v: &mut [i64], op: &str) {
    let f = pmpi!("PMPI_Allreduce", unsafe extern "C" fn(*const c_void, *mut c_void, c_int, H, H, H) -> c_int);
    let send = v.to_vec();
    // SAFETY: buffers of v.len() int64 values on dao's communicator.
    let rc = timed(|| unsafe { f(send.as_ptr() as *const c_void, v.as_mut_ptr() as *mut c_void, v.len() as c_int, int64(), object(op), comm()) });
    if rc != SUCCESS {
        fatal(format_args!("{}MPI_Allreduce failed (error {rc}) in dao's coordination", prefix()));
    }
}

pub fn max_u64(x: u64) -> u64 {
    let mut v = [x as i64];
    allreduce(&mut v, "ompi_mpi_op_max");
    v[0] as u64
}

pub fn min_u64(x: u64) -> u64 {
    let mut v = [x as i64];
    allreduce(&mut v, "ompi_mpi_op_min");
    v[0] as u64
}

pub fn bcast_u64(x: u64, root: i32) -> u64 {
    let f = pmpi!("PMPI_Bcast", unsafe extern "C" fn(*mut c_void, c_int, H, c_int, H) -> c_int);
    let mut v = x as i64;
    // SAFETY: one int64 on dao's communicator.
    timed(|| unsafe { f(&mut v as *mut i64 as *mut c_void, 1, int64(), root, comm()) });
    v as u64
}

/// Every rank's value, by rank.
pub fn allgather(x: i64) -> Vec<i64> {
    let f = pmpi!("PMPI_Allgather", unsafe extern "C" fn(*const c_void, c_int, H, *mut c_void, c_int, H, H) -> c_int);
    let mut all = vec![0i64; size().max(1) as usize];
    // SAFETY: one int64 from each rank into `all`.
    timed(|| unsafe { f(&x as *const i64 as *const c_void, 1, int64(), all.as_mut_ptr() as *mut c_void, 1, int64(), comm()) });
    all
}

/// Every rank's string (at most 200 bytes each), by rank.
pub fn allgather_str(s: &str) -> Vec<String> {
    const W: usize = 200;
    let f = pmpi!("PMPI_Allgather", unsafe extern "C" fn(*const c_void, c_int, H, *mut c_void, c_int, H, H) -> c_int);
    let mut mine = [0u8; W];
    let b = s.as_bytes();
    mine[..b.len().min(W)].copy_from_slice(&b[..b.len().min(W)]);
    let mut all = vec![0u8; W * size().max(1) as usize];
    let byte = object("ompi_mpi_byte");
    // SAFETY: W bytes from each rank into `all`.
    timed(|| unsafe { f(mine.as_ptr() as *const c_void, W as c_int, byte, all.as_mut_ptr() as *mut c_void, W as c_int, byte, comm()) });
    all.chunks(W).map(|c| String::from_utf8_lossy(&c[..c.iter().position(|&x| x == 0).unwrap_or(W)]).into_owned()).collect()
}

/// What a look at a candidate decided, the same on every rank.
#[derive(Debug)]
pub struct Look {
    pub due: bool,
    /// The countdown every rank arms next (the smallest proposed).
    pub batch: i64,
    /// A checkpoint is due but cannot be taken here (why).
    pub refused: Option<String>,
    /// What made it due (policy.rs's trigger codes), the largest of the
    /// ranks', and the exit signal one of them received (0: none): every
    /// rank takes the checkpoint for it and exits (batch.rs, stop.rs).
    pub trigger: i64,
    pub exit_signal: i64,
}

/// The collective at every look at a candidate (where the countdown ran
/// out): whether a checkpoint is due anywhere, whether every rank is at the
/// same candidate (`key`: the candidate and the count of candidates
/// reached; `site` names it for the error), the countdown to arm next, and,
/// when due, whether a message may be in flight. `trigger` and
/// `exit_signal`: this rank's, agreed as the largest.
pub fn look(due: bool, key: u64, batch: i64, site: &str, trigger: i64, exit_signal: i64) -> Look {
    let key = (key & 0x7fff_ffff) as i64;
    let (pending, unfollowed) = traffic::pending_state();
    let mut v = [due as i64, key, -key, -batch.max(1), (pending > 0) as i64, unfollowed as i64, trigger, exit_signal];
    let f = pmpi!("PMPI_Iallreduce", unsafe extern "C" fn(*const c_void, *mut c_void, c_int, H, H, H, *mut H) -> c_int);
    let send = v;
    let mut req: H = std::ptr::null_mut();
    timed(|| {
        // SAFETY: 8 int64 values on dao's communicator; the buffers live
        // until the request completes (wait below).
        unsafe { f(send.as_ptr() as *const c_void, v.as_mut_ptr() as *mut c_void, 8, int64(), object("ompi_mpi_op_max"), comm(), &mut req) };
        wait(&mut req, &|| format!("the candidate {site}"));
    });
    let [any_due, kmax, kmin_neg, batch_neg, any_pending, any_unfollowed, trigger, exit_signal] = v;
    if kmax != -kmin_neg {
        // not every rank is at this candidate: name them all
        let sites = allgather_str(site);
        let list: Vec<String> = sites.iter().enumerate().map(|(r, s)| format!("rank {r} at {s}")).collect();
        fatal(format_args!(
            "{}the ranks reach different checkpoint candidates ({}): every rank must reach the candidates in the same order (the same dao_potential_checkpoint() calls, the same number of times)",
            prefix(),
            list.join(", ")
        ));
    }
    let mut out = Look { due: any_due != 0, batch: -batch_neg, refused: None, trigger, exit_signal };
    if !out.due {
        return out;
    }
    if any_unfollowed != 0 {
        out.refused = Some("a rank called an MPI function that dao's layer does not follow".into());
        return out;
    }
    let (sent, received) = traffic::balance();
    let mut s = [sent as i64 - received as i64];
    allreduce(&mut s, "ompi_mpi_op_sum");
    if any_pending != 0 {
        out.refused = Some("a rank has non-blocking requests pending".into());
    } else if s[0] != 0 {
        out.refused = Some(format!("{} point-to-point message(s) sent but not yet received", s[0]));
    }
    out
}

/// The commit agreement: every rank says whether its part of the version
/// is written and synced; returns the ranks that failed (the same list on
/// every rank).
pub fn agree(ok: bool) -> Vec<i32> {
    allgather(ok as i64).into_iter().enumerate().filter(|(_, x)| *x == 0).map(|(r, _)| r as i32).collect()
}
