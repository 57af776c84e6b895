//! MPI programs (issue #17): what the runtime knows about the program's MPI
//! traffic and objects, and the collectives of coordinated checkpoints.
//!
//! The PMPI layer (mpi_wrap.rs: the program's `MPI_*` calls and Open MPI's
//! Fortran `mpi_*_` symbols, defined in libdao_rt.a, which `dao mpicc` links
//! before `-lmpi`) reports here:
//! - point-to-point traffic: messages sent (counted when posted) and
//!   received (counted when complete), and the program's pending requests.
//!   At a checkpoint the sum over all ranks of sent - received must be 0
//!   and no rank may hold a pending request: then no message is in flight
//!   (a message is received at most once, so equal totals mean every sent
//!   one has been received);
//! - the creation of communicators, datatypes and reduction operations, in
//!   order (the *creation log*): a restart creates them again in the same
//!   order (handles.rs-style translation: C handles are pointers into
//!   Open MPI's memory, so the old pointer values found in the restored
//!   data are replaced by the new ones; Fortran handles are table indexes,
//!   which the same creation order reproduces, checked one by one);
//! - calls dao cannot follow (persistent requests, one-sided windows, ...):
//!   the first one named turns coordinated checkpoints off with a warning.
//!
//! Every MPI function is found with `dlsym` at its first use (`pmpi!`), so
//! that programs without MPI link the runtime without `-lmpi`. Open MPI's
//! names of predefined objects (`ompi_mpi_comm_world`, ...) are used: dao
//! supports Open MPI (docs/design.md, section 16).
//!
//! The collectives run on dao's own duplicate of `MPI_COMM_WORLD`, so they
//! never match the program's, and only on the thread that runs `main`
//! (MPI_THREAD_FUNNELED).
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::diag::{self, fatal};

/// An Open MPI C handle (a pointer to a library object).
pub type H = *mut c_void;

pub const PROC_NULL: c_int = -2;
pub const THREAD_FUNNELED: c_int = 1;
const SUCCESS: c_int = 0;
/// MPI_COMM_NULL, MPI_DATATYPE_NULL, ... in Fortran.
const F_NULL: i64 = 0;

/// The address of `name` (NUL-terminated) among the loaded objects, looked
/// up once into `cache`; fatal when absent.
pub fn resolve(cache: &AtomicUsize, name: &str) -> usize {
    let p = cache.load(Relaxed);
    if p != 0 {
        return p;
    }
    let q = lookup(name);
    if q == 0 {
        fatal(format_args!(
            "{} is not in this process: dao's MPI support needs Open MPI (build with `dao mpicc` / `dao mpifort`)",
            name.trim_end_matches('\0')
        ));
    }
    cache.store(q, Relaxed);
    q
}

/// The address of a symbol (NUL-terminated name), 0 when absent.
pub fn lookup(name: &str) -> usize {
    debug_assert!(name.ends_with('\0'));
    // SAFETY: dlsym with RTLD_DEFAULT only looks a NUL-terminated name up.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr() as *const c_char) as usize }
}

/// An MPI function of the given C type, found at its first use.
macro_rules! pmpi {
    ($name:literal, $ty:ty) => {{
        static P: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let p = $crate::mpi::resolve(&P, concat!($name, "\0"));
        // SAFETY: p is the address of the named MPI function, whose C
        // signature (Open MPI 4.1's mpi.h / its Fortran bindings) is $ty.
        #[allow(unused_unsafe)]
        let f = unsafe { std::mem::transmute::<usize, $ty>(p) };
        f
    }};
}
pub(crate) use pmpi;

/// A predefined object of Open MPI (`ompi_mpi_comm_world`, ...).
fn object(name: &str) -> H {
    static CACHE: Mutex<Vec<(&'static str, usize)>> = Mutex::new(Vec::new());
    let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, a)) = c.iter().find(|(n, _)| *n == name) {
        return *a as H;
    }
    let a = lookup(&format!("{name}\0"));
    if a == 0 {
        fatal(format_args!("{name} is not in this process: dao's MPI support needs Open MPI"));
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    c.push((leaked, a));
    a as H
}

pub fn comm_world() -> H {
    object("ompi_mpi_comm_world")
}
pub fn request_null() -> H {
    static R: AtomicUsize = AtomicUsize::new(0);
    resolve(&R, "ompi_request_null\0") as H
}

// ---- what the program does (reported by mpi_wrap.rs) ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Send,
    /// A receive; `counts`: from a real rank (not MPI_PROC_NULL).
    Recv { counts: bool },
    /// A non-blocking collective.
    Coll,
}

/// One creation (or free) of an MPI object, as the program made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Fortran (integer handles, replayed through Open MPI's Fortran
    /// bindings) or C (pointer handles).
    pub fortran: bool,
    pub op: String,
    /// Integer arguments (counts, colours, dims, displacements, a function's address).
    pub ints: Vec<i64>,
    /// Handle arguments, as the program passed them.
    pub ins: Vec<u64>,
    /// The handle created (0 for frees and commits).
    pub out: u64,
}

#[derive(Default)]
struct Traffic {
    sent: u64,
    received: u64,
    pending_c: HashMap<usize, Kind>,
    pending_f: HashMap<i32, Kind>,
    log: Vec<Entry>,
    /// The first call the layer cannot follow (coordinated checkpoints off).
    unfollowed: Option<String>,
}

static TRAFFIC: Mutex<Option<Traffic>> = Mutex::new(None);

/// The state, changed with glibc's allocator (`libc_alloc::own`): the
/// wrappers run on the program's calls, whose `malloc` is the dao heap's.
fn with<R>(f: impl FnOnce(&mut Traffic) -> R) -> R {
    crate::libc_alloc::own(|| f(TRAFFIC.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(Traffic::default)))
}

pub fn note_send(dest: c_int) {
    if dest != PROC_NULL {
        with(|t| t.sent += 1);
    }
}

pub fn note_recv(source: c_int) {
    if source != PROC_NULL {
        with(|t| t.received += 1);
    }
}

pub fn pending_c(req: H, kind: Kind) {
    if req != request_null() {
        with(|t| t.pending_c.insert(req as usize, kind));
    }
}

pub fn pending_f(req: i32, kind: Kind) {
    if req as i64 != F_NULL {
        with(|t| t.pending_f.insert(req, kind));
    }
}

fn complete(t: &mut Traffic, k: Option<Kind>) {
    if let Some(Kind::Recv { counts: true }) = k {
        t.received += 1;
    }
}

/// A C request the program had pending has completed (or was freed).
pub fn completed_c(req: H) {
    with(|t| {
        let k = t.pending_c.remove(&(req as usize));
        complete(t, k)
    });
}

pub fn completed_f(req: i32) {
    with(|t| {
        let k = t.pending_f.remove(&req);
        complete(t, k)
    });
}

/// Records a creation in the log (in program order).
pub fn created(e: Entry) {
    with(|t| t.log.push(e));
}

/// A call the layer cannot follow: coordinated checkpoints stop (once, with
/// the call's name).
pub fn unfollowed(call: &str) {
    crate::libc_alloc::own(|| unfollowed_own(call))
}

fn unfollowed_own(call: &str) {
    let first = with(|t| {
        if t.unfollowed.is_none() {
            t.unfollowed = Some(call.to_string());
            true
        } else {
            false
        }
    });
    if first && COORDINATED.load(Relaxed) {
        diag::warn(format_args!(
            "{}the program calls {call}, which dao's MPI layer does not follow (docs/design.md, section 16): no checkpoint is taken from here on",
            prefix()
        ));
    }
}

// ---- the job ----

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
/// Seconds spent in dao's collectives at candidates and commits.
static COLLECTIVE_NS: AtomicU64 = AtomicU64::new(0);

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

/// Whether a call the layer cannot follow was made (its name).
pub fn unfollowed_call() -> Option<String> {
    with(|t| t.unfollowed.clone())
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

fn comm() -> H {
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

fn int64() -> H {
    object("ompi_mpi_int64_t")
}

fn timed<R>(f: impl FnOnce() -> R) -> R {
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
    let limit = Duration::from_millis(TIMEOUT_MS.load(Relaxed));
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
}

/// The collective at every look at a candidate (where the countdown ran
/// out): whether a checkpoint is due anywhere, whether every rank is at the
/// same candidate (`key`: the candidate and the count of candidates
/// reached; `site` names it for the error), the countdown to arm next, and,
/// when due, whether a message may be in flight.
pub fn look(due: bool, key: u64, batch: i64, site: &str) -> Look {
    let key = (key & 0x7fff_ffff) as i64;
    let (pending, unfollowed) = with(|t| (t.pending_c.len() + t.pending_f.len(), t.unfollowed.is_some()));
    let mut v = [due as i64, key, -key, -batch.max(1), (pending > 0) as i64, unfollowed as i64];
    let f = pmpi!("PMPI_Iallreduce", unsafe extern "C" fn(*const c_void, *mut c_void, c_int, H, H, H, *mut H) -> c_int);
    let send = v;
    let mut req: H = std::ptr::null_mut();
    timed(|| {
        // SAFETY: 6 int64 values on dao's communicator; the buffers live
        // until the request completes (wait below).
        unsafe { f(send.as_ptr() as *const c_void, v.as_mut_ptr() as *mut c_void, 6, int64(), object("ompi_mpi_op_max"), comm(), &mut req) };
        wait(&mut req, &|| format!("the candidate {site}"));
    });
    let [any_due, kmax, kmin_neg, batch_neg, any_pending, any_unfollowed] = v;
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
    let mut out = Look { due: any_due != 0, batch: -batch_neg, refused: None };
    if !out.due {
        return out;
    }
    if any_unfollowed != 0 {
        out.refused = Some("a rank called an MPI function that dao's layer does not follow".into());
        return out;
    }
    let (sent, received) = with(|t| (t.sent, t.received));
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

/// Sends `data` to `to` while receiving from `from`, either side
/// optional (partner copies: every rank sends its checkpoint to its holder
/// and receives its owner's; at restart a holder sends a copy back).
/// Non-blocking on both sides, so that ranks sending to each other in a
/// cycle do not wait for each other. Returns what was received.
pub fn transfer(to: Option<i32>, data: &[u8], from: Option<i32>) -> Vec<u8> {
    let isend = pmpi!("PMPI_Isend", unsafe extern "C" fn(*const c_void, c_int, H, c_int, c_int, H, *mut H) -> c_int);
    let irecv = pmpi!("PMPI_Irecv", unsafe extern "C" fn(*mut c_void, c_int, H, c_int, c_int, H, *mut H) -> c_int);
    let waitall = pmpi!("PMPI_Waitall", unsafe extern "C" fn(c_int, *mut H, *mut c_void) -> c_int);
    let byte = object("ompi_mpi_byte");
    let len = data.len() as i64;
    let mut their = 0i64;
    let mut reqs: [H; 2] = [request_null(), request_null()];
    timed(|| {
        // SAFETY: non-blocking transfers whose buffers outlive the Waitall.
        unsafe {
            if let Some(f) = from {
                irecv(&mut their as *mut i64 as *mut c_void, 1, int64(), f, 3, comm(), &mut reqs[0]);
            }
            if let Some(t) = to {
                isend(&len as *const i64 as *const c_void, 1, int64(), t, 3, comm(), &mut reqs[1]);
            }
            waitall(2, reqs.as_mut_ptr(), std::ptr::null_mut());
        }
        let mut got = vec![0u8; their.max(0) as usize];
        let mut a = if to.is_some() { data.chunks(1 << 30) } else { [].chunks(1) };
        let mut b = got.chunks_mut(1 << 30);
        loop {
            let (s, r) = (a.next(), b.next());
            if s.is_none() && r.is_none() {
                break;
            }
            let mut reqs: [H; 2] = [request_null(), request_null()];
            // SAFETY: as above.
            unsafe {
                if let (Some(r), Some(f)) = (r, from) {
                    irecv(r.as_mut_ptr() as *mut c_void, r.len() as c_int, byte, f, 4, comm(), &mut reqs[0]);
                }
                if let (Some(s), Some(t)) = (s, to) {
                    isend(s.as_ptr() as *const c_void, s.len() as c_int, byte, t, 4, comm(), &mut reqs[1]);
                }
                waitall(2, reqs.as_mut_ptr(), std::ptr::null_mut());
            }
        }
        got
    })
}

/// A transfer like [`transfer`] that runs while the program goes on
/// (asynchronous partner copies): the length and the bytes are sent with
/// non-blocking sends; the length from `from` is received with a
/// non-blocking receive, then the bytes. [`AsyncTransfer::poll`] moves it
/// on (MPI progresses it during the program's own MPI calls too); it must
/// be called by every rank until done, at the same points (the looks, the
/// next checkpoint, MPI_Finalize), so that no rank waits for a receive
/// that another has not posted.
pub struct AsyncTransfer {
    send_len: Box<i64>,
    send_buf: Vec<u8>,
    send_reqs: Vec<H>,
    recv_len: Box<i64>,
    recv_len_req: H,
    recv_buf: Option<Vec<u8>>,
    recv_reqs: Vec<H>,
    from: i32,
    /// The bytes received, once complete.
    pub received: Option<Vec<u8>>,
}

// SAFETY: the request handles are Open MPI's, used only by the thread that
// runs main (FUNNELED); the struct is kept in a Mutex between polls.
unsafe impl Send for AsyncTransfer {}

impl AsyncTransfer {
    pub fn start(to: i32, data: Vec<u8>, from: i32) -> AsyncTransfer {
        let isend = pmpi!("PMPI_Isend", unsafe extern "C" fn(*const c_void, c_int, H, c_int, c_int, H, *mut H) -> c_int);
        let irecv = pmpi!("PMPI_Irecv", unsafe extern "C" fn(*mut c_void, c_int, H, c_int, c_int, H, *mut H) -> c_int);
        let mut t = AsyncTransfer {
            send_len: Box::new(data.len() as i64),
            send_buf: data,
            send_reqs: Vec::new(),
            recv_len: Box::new(0),
            recv_len_req: request_null(),
            recv_buf: None,
            recv_reqs: Vec::new(),
            from,
            received: None,
        };
        PARTNER_PENDING.store(true, Relaxed);
        let byte = object("ompi_mpi_byte");
        // SAFETY: the buffers are boxed / owned by `t` and live until its
        // requests complete (poll(true) before it is dropped).
        unsafe {
            irecv(&mut *t.recv_len as *mut i64 as *mut c_void, 1, int64(), from, 5, comm(), &mut t.recv_len_req);
            let mut r = request_null();
            isend(&*t.send_len as *const i64 as *const c_void, 1, int64(), to, 5, comm(), &mut r);
            t.send_reqs.push(r);
            for c in t.send_buf.chunks(1 << 30) {
                let mut r = request_null();
                isend(c.as_ptr() as *const c_void, c.len() as c_int, byte, to, 6, comm(), &mut r);
                t.send_reqs.push(r);
            }
        }
        t
    }

    /// Moves the transfer on; with `block`, until it is complete. Returns
    /// whether it is complete (sent, and received into `received`).
    pub fn poll(&mut self, block: bool) -> bool {
        let testall = pmpi!("PMPI_Testall", unsafe extern "C" fn(c_int, *mut H, *mut c_int, *mut c_void) -> c_int);
        let test = pmpi!("PMPI_Test", unsafe extern "C" fn(*mut H, *mut c_int, *mut c_void) -> c_int);
        let irecv = pmpi!("PMPI_Irecv", unsafe extern "C" fn(*mut c_void, c_int, H, c_int, c_int, H, *mut H) -> c_int);
        let t0 = Instant::now();
        loop {
            // SAFETY: requests of this transfer, buffers owned by it.
            unsafe {
                if self.recv_buf.is_none() && self.received.is_none() {
                    let mut flag = 0;
                    test(&mut self.recv_len_req, &mut flag, std::ptr::null_mut());
                    if flag != 0 {
                        let mut buf = vec![0u8; (*self.recv_len).max(0) as usize];
                        let byte = object("ompi_mpi_byte");
                        for c in buf.chunks_mut(1 << 30) {
                            let mut r = request_null();
                            irecv(c.as_mut_ptr() as *mut c_void, c.len() as c_int, byte, self.from, 6, comm(), &mut r);
                            self.recv_reqs.push(r);
                        }
                        self.recv_buf = Some(buf);
                    }
                }
                let mut sent = 0;
                testall(self.send_reqs.len() as c_int, self.send_reqs.as_mut_ptr(), &mut sent, std::ptr::null_mut());
                if self.recv_buf.is_some() {
                    let mut got = 0;
                    testall(self.recv_reqs.len() as c_int, self.recv_reqs.as_mut_ptr(), &mut got, std::ptr::null_mut());
                    if got != 0 {
                        self.received = self.recv_buf.take();
                    }
                }
                let done = sent != 0 && self.received.is_some();
                if done {
                    PARTNER_PENDING.store(false, Relaxed);
                }
                if done || !block {
                    return done;
                }
            }
            if t0.elapsed() > Duration::from_millis(TIMEOUT_MS.load(Relaxed)) {
                fatal(format_args!("{}the partner copy did not complete in DAO_MPI_TIMEOUT", prefix()));
            }
            std::thread::yield_now();
        }
    }
}

static PARTNER_PENDING: AtomicBool = AtomicBool::new(false);

/// Whether an asynchronous partner copy is in flight (the wrappers then
/// move it on at the program's MPI calls).
pub fn partner_pending() -> bool {
    PARTNER_PENDING.load(Relaxed)
}

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

// ---- the creation log: saved with each checkpoint, replayed at restart ----

/// Predefined C objects whose addresses a program may hold: their old and
/// new addresses are compared at restart (Open MPI is a shared library,
/// loaded at another address in the restarted process unless the
/// executable holds copies of them).
const PREDEFINED: &[&str] = &[
    "ompi_mpi_comm_world", "ompi_mpi_comm_self", "ompi_mpi_comm_null", "ompi_request_null", "ompi_mpi_group_empty", "ompi_mpi_group_null",
    "ompi_mpi_datatype_null", "ompi_mpi_op_null", "ompi_mpi_info_null", "ompi_mpi_errors_are_fatal", "ompi_mpi_errors_return",
    "ompi_mpi_char", "ompi_mpi_signed_char", "ompi_mpi_unsigned_char", "ompi_mpi_byte", "ompi_mpi_short", "ompi_mpi_unsigned_short",
    "ompi_mpi_int", "ompi_mpi_unsigned", "ompi_mpi_long", "ompi_mpi_unsigned_long", "ompi_mpi_long_long_int", "ompi_mpi_unsigned_long_long",
    "ompi_mpi_float", "ompi_mpi_double", "ompi_mpi_long_double", "ompi_mpi_wchar", "ompi_mpi_packed", "ompi_mpi_c_bool",
    "ompi_mpi_int8_t", "ompi_mpi_uint8_t", "ompi_mpi_int16_t", "ompi_mpi_uint16_t", "ompi_mpi_int32_t", "ompi_mpi_uint32_t",
    "ompi_mpi_int64_t", "ompi_mpi_uint64_t", "ompi_mpi_float_int", "ompi_mpi_double_int", "ompi_mpi_long_int", "ompi_mpi_2int",
    "ompi_mpi_c_complex", "ompi_mpi_c_double_complex", "ompi_mpi_aint", "ompi_mpi_offset", "ompi_mpi_count",
    "ompi_mpi_double_precision", "ompi_mpi_integer", "ompi_mpi_real",
    "ompi_mpi_op_max", "ompi_mpi_op_min", "ompi_mpi_op_sum", "ompi_mpi_op_prod", "ompi_mpi_op_land", "ompi_mpi_op_band", "ompi_mpi_op_lor",
    "ompi_mpi_op_bor", "ompi_mpi_op_lxor", "ompi_mpi_op_bxor", "ompi_mpi_op_maxloc", "ompi_mpi_op_minloc", "ompi_mpi_op_replace",
    "ompi_mpi_op_no_op",
];

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
    }
}

/// The sidecar of a checkpoint (`ckpt.NNNNNN.mpi`): rank, size, the
/// predefined objects' addresses and the creation log, one line each,
/// ending with a hash of everything before it.
pub fn log_text(seq: u64) -> String {
    let mut s = format!("{}\nseq {seq}\nrank {} size {}\n", dao_format::MPI_LOG_MAGIC, rank(), size());
    for name in PREDEFINED {
        let a = lookup(&format!("{name}\0"));
        if a != 0 {
            s.push_str(&format!("pre {name} {a:x}\n"));
        }
    }
    with(|t| {
        for e in &t.log {
            let ins: Vec<String> = e.ins.iter().map(|x| format!("{x:x}")).collect();
            s.push_str(&format!("{} {} {} {} {:x}\n", if e.fortran { "f" } else { "c" }, e.op, list(&e.ints), if ins.is_empty() { "-".into() } else { ins.join(",") }, e.out));
        }
    });
    let h = xxhash_rust::xxh3::xxh3_64(s.as_bytes());
    s.push_str(&format!("end {h:016x}\n"));
    s
}

/// A sidecar read back: the predefined objects' addresses and the log.
#[derive(Debug, Default)]
pub struct Log {
    pub seq: u64,
    pub rank: i32,
    pub size: i32,
    pub predefined: Vec<(String, u64)>,
    pub entries: Vec<Entry>,
}

/// Parses and checks a sidecar.
pub fn parse_log(text: &str) -> Result<Log, String> {
    let lines = dao_format::mpi_log_body(text)?.lines();
    let mut log = Log::default();
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| format!("bad number {s}"));
    for l in lines {
        let w: Vec<&str> = l.split(' ').collect();
        match w.as_slice() {
            ["seq", n] => log.seq = n.parse().map_err(|_| "bad seq")?,
            ["rank", r, "size", n] => {
                log.rank = r.parse().map_err(|_| "bad rank")?;
                log.size = n.parse().map_err(|_| "bad size")?;
            }
            ["pre", name, a] => log.predefined.push((name.to_string(), hex(a)?)),
            [lang @ ("c" | "f"), op, ints, ins, out] => {
                let ints = if *ints == "-" { vec![] } else { ints.split(',').map(|x| x.parse::<i64>().map_err(|_| format!("bad number {x}"))).collect::<Result<_, _>>()? };
                let ins = if *ins == "-" { vec![] } else { ins.split(',').map(hex).collect::<Result<_, _>>()? };
                log.entries.push(Entry { fortran: *lang == "f", op: op.to_string(), ints, ins, out: hex(out)? });
            }
            _ => return Err(format!("unexpected line '{l}'")),
        }
    }
    Ok(log)
}

/// Old C handle values and the new objects' (after a replay).
#[derive(Debug, Default)]
pub struct HandleMap {
    pub map: HashMap<u64, u64>,
    lo: u64,
    hi: u64,
}

impl HandleMap {
    fn finish(&mut self) {
        self.map.retain(|k, v| k != v && *k != 0);
        self.lo = self.map.keys().copied().min().unwrap_or(u64::MAX);
        self.hi = self.map.keys().copied().max().unwrap_or(0);
    }

    /// Replaces every 8-byte-aligned word of `bytes` (which lies at
    /// address `addr`) that holds an old handle by the new one; returns
    /// how many were replaced.
    pub fn patch(&self, addr: u64, bytes: &mut [u8]) -> usize {
        if self.map.is_empty() {
            return 0;
        }
        let mut n = 0;
        let start = ((8 - (addr % 8)) % 8) as usize;
        let mut i = start;
        while i + 8 <= bytes.len() {
            let w = u64::from_ne_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            if w >= self.lo && w <= self.hi {
                if let Some(new) = self.map.get(&w) {
                    bytes[i..i + 8].copy_from_slice(&new.to_ne_bytes());
                    n += 1;
                }
            }
            i += 8;
        }
        n
    }

    /// [`HandleMap::patch`] on memory already restored.
    pub fn patch_memory(&self, addr: u64, len: usize) -> usize {
        if self.map.is_empty() || len < 8 {
            return 0;
        }
        let mut copy = crate::desc::memory(addr as usize, len).to_vec();
        let n = self.patch(addr, &mut copy);
        if n > 0 {
            crate::desc::write_memory(addr as usize, &copy);
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Creates the logged objects again, in order, and returns the C handles'
/// translation; Fortran handles must come out equal to the logged ones.
/// The log is then this process's (its values translated).
pub fn replay(log: &Log) -> Result<HandleMap, String> {
    let mut m = HandleMap::default();
    for (name, old) in &log.predefined {
        let new = lookup(&format!("{name}\0")) as u64;
        if new != 0 {
            m.map.insert(*old, new);
        }
    }
    let mut entries = Vec::with_capacity(log.entries.len());
    for e in &log.entries {
        let tr = |h: u64| -> u64 { if e.fortran { h } else { m.map.get(&h).copied().unwrap_or(h) } };
        let ins: Vec<u64> = e.ins.iter().map(|&h| tr(h)).collect();
        let out = if e.fortran { replay_fortran(e, &ins)? } else { replay_c(e, &ins)? };
        if e.fortran {
            if out != e.out {
                return Err(format!(
                    "re-creating the Fortran MPI object of {} (handle {}) gave handle {}: the Fortran handles stored in the program would not match",
                    e.op, e.out as i64, out as i64
                ));
            }
        } else if e.out != 0 {
            m.map.insert(e.out, out);
        }
        // frees: the old value means nothing from here on
        if e.op.ends_with("free") && !e.fortran {
            if let Some(old) = e.ins.first() {
                m.map.remove(old);
            }
        }
        entries.push(Entry { ins, out, ..e.clone() });
    }
    with(|t| t.log = entries);
    m.finish();
    Ok(m)
}

fn ck(rc: c_int, what: &str) -> Result<(), String> {
    if rc == SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed (error {rc})"))
    }
}

fn replay_c(e: &Entry, ins: &[u64]) -> Result<u64, String> {
    let h = |i: usize| -> Result<H, String> { ins.get(i).map(|&x| x as H).ok_or_else(|| format!("log entry {} lacks a handle", e.op)) };
    let n = |i: usize| -> Result<i64, String> { e.ints.get(i).copied().ok_or_else(|| format!("log entry {} lacks a number", e.op)) };
    let mut out: H = std::ptr::null_mut();
    // SAFETY: each call is the MPI function the program called, with the
    // arguments it passed (handles translated), on objects alive now.
    unsafe {
        match e.op.as_str() {
            "comm_dup" => ck(pmpi!("PMPI_Comm_dup", unsafe extern "C" fn(H, *mut H) -> c_int)(h(0)?, &mut out), "MPI_Comm_dup")?,
            "comm_split" => ck(pmpi!("PMPI_Comm_split", unsafe extern "C" fn(H, c_int, c_int, *mut H) -> c_int)(h(0)?, n(0)? as c_int, n(1)? as c_int, &mut out), "MPI_Comm_split")?,
            "cart_create" => {
                let nd = n(0)? as usize;
                let dims: Vec<c_int> = e.ints.get(1..1 + nd).ok_or("short cart_create")?.iter().map(|&x| x as c_int).collect();
                let per: Vec<c_int> = e.ints.get(1 + nd..1 + 2 * nd).ok_or("short cart_create")?.iter().map(|&x| x as c_int).collect();
                let f = pmpi!("PMPI_Cart_create", unsafe extern "C" fn(H, c_int, *const c_int, *const c_int, c_int, *mut H) -> c_int);
                ck(f(h(0)?, nd as c_int, dims.as_ptr(), per.as_ptr(), n(1 + 2 * nd)? as c_int, &mut out), "MPI_Cart_create")?
            }
            "cart_sub" => {
                let rem: Vec<c_int> = e.ints.iter().map(|&x| x as c_int).collect();
                ck(pmpi!("PMPI_Cart_sub", unsafe extern "C" fn(H, *const c_int, *mut H) -> c_int)(h(0)?, rem.as_ptr(), &mut out), "MPI_Cart_sub")?
            }
            "comm_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Comm_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Comm_free")?
            }
            "type_contiguous" => ck(pmpi!("PMPI_Type_contiguous", unsafe extern "C" fn(c_int, H, *mut H) -> c_int)(n(0)? as c_int, h(0)?, &mut out), "MPI_Type_contiguous")?,
            "type_vector" => ck(
                pmpi!("PMPI_Type_vector", unsafe extern "C" fn(c_int, c_int, c_int, H, *mut H) -> c_int)(n(0)? as c_int, n(1)? as c_int, n(2)? as c_int, h(0)?, &mut out),
                "MPI_Type_vector",
            )?,
            "type_hvector" => ck(
                pmpi!("PMPI_Type_create_hvector", unsafe extern "C" fn(c_int, c_int, isize, H, *mut H) -> c_int)(n(0)? as c_int, n(1)? as c_int, n(2)? as isize, h(0)?, &mut out),
                "MPI_Type_create_hvector",
            )?,
            "type_indexed" => {
                let c = n(0)? as usize;
                let bl: Vec<c_int> = e.ints.get(1..1 + c).ok_or("short type_indexed")?.iter().map(|&x| x as c_int).collect();
                let dp: Vec<c_int> = e.ints.get(1 + c..1 + 2 * c).ok_or("short type_indexed")?.iter().map(|&x| x as c_int).collect();
                let f = pmpi!("PMPI_Type_indexed", unsafe extern "C" fn(c_int, *const c_int, *const c_int, H, *mut H) -> c_int);
                ck(f(c as c_int, bl.as_ptr(), dp.as_ptr(), h(0)?, &mut out), "MPI_Type_indexed")?
            }
            "type_struct" => {
                let c = n(0)? as usize;
                let bl: Vec<c_int> = e.ints.get(1..1 + c).ok_or("short type_struct")?.iter().map(|&x| x as c_int).collect();
                let dp: Vec<isize> = e.ints.get(1 + c..1 + 2 * c).ok_or("short type_struct")?.iter().map(|&x| x as isize).collect();
                let ty: Vec<H> = ins.iter().map(|&x| x as H).collect();
                let f = pmpi!("PMPI_Type_create_struct", unsafe extern "C" fn(c_int, *const c_int, *const isize, *const H, *mut H) -> c_int);
                ck(f(c as c_int, bl.as_ptr(), dp.as_ptr(), ty.as_ptr(), &mut out), "MPI_Type_create_struct")?
            }
            "type_resized" => ck(
                pmpi!("PMPI_Type_create_resized", unsafe extern "C" fn(H, isize, isize, *mut H) -> c_int)(h(0)?, n(0)? as isize, n(1)? as isize, &mut out),
                "MPI_Type_create_resized",
            )?,
            "type_dup" => ck(pmpi!("PMPI_Type_dup", unsafe extern "C" fn(H, *mut H) -> c_int)(h(0)?, &mut out), "MPI_Type_dup")?,
            "type_commit" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Type_commit", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Type_commit")?
            }
            "type_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Type_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Type_free")?
            }
            "op_create" => {
                let f = pmpi!("PMPI_Op_create", unsafe extern "C" fn(usize, c_int, *mut H) -> c_int);
                ck(f(n(0)? as usize, n(1)? as c_int, &mut out), "MPI_Op_create")?
            }
            "op_free" => {
                let mut x = h(0)?;
                ck(pmpi!("PMPI_Op_free", unsafe extern "C" fn(*mut H) -> c_int)(&mut x), "MPI_Op_free")?
            }
            other => return Err(format!("unknown log entry {other}")),
        }
    }
    Ok(out as u64)
}

/// Fortran entries go through Open MPI's own Fortran bindings (`pmpi_*_`),
/// with the integer arguments the program passed.
fn replay_fortran(e: &Entry, ins: &[u64]) -> Result<u64, String> {
    type F = c_int;
    let hd = |i: usize| -> Result<F, String> { ins.get(i).map(|&x| x as i64 as F).ok_or_else(|| format!("log entry {} lacks a handle", e.op)) };
    let n = |i: usize| -> Result<F, String> { e.ints.get(i).map(|&x| x as F).ok_or_else(|| format!("log entry {} lacks a number", e.op)) };
    let mut out: F = 0;
    let mut err: F = 0;
    // SAFETY: Open MPI's Fortran bindings take every argument by reference.
    unsafe {
        match e.op.as_str() {
            "comm_dup" => pmpi!("pmpi_comm_dup_", unsafe extern "C" fn(*const F, *mut F, *mut F))(&hd(0)?, &mut out, &mut err),
            "comm_split" => pmpi!("pmpi_comm_split_", unsafe extern "C" fn(*const F, *const F, *const F, *mut F, *mut F))(&hd(0)?, &n(0)?, &n(1)?, &mut out, &mut err),
            "cart_create" => {
                let nd = n(0)? as usize;
                let v: Vec<F> = e.ints.iter().map(|&x| x as F).collect();
                let dims = v.get(1..1 + nd).ok_or("short cart_create")?;
                let per = v.get(1 + nd..1 + 2 * nd).ok_or("short cart_create")?;
                let f = pmpi!("pmpi_cart_create_", unsafe extern "C" fn(*const F, *const F, *const F, *const F, *const F, *mut F, *mut F));
                f(&hd(0)?, &(nd as F), dims.as_ptr(), per.as_ptr(), &n(1 + 2 * nd)?, &mut out, &mut err)
            }
            "cart_sub" => {
                let v: Vec<F> = e.ints.iter().map(|&x| x as F).collect();
                pmpi!("pmpi_cart_sub_", unsafe extern "C" fn(*const F, *const F, *mut F, *mut F))(&hd(0)?, v.as_ptr(), &mut out, &mut err)
            }
            "comm_free" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_comm_free_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "type_contiguous" => pmpi!("pmpi_type_contiguous_", unsafe extern "C" fn(*const F, *const F, *mut F, *mut F))(&n(0)?, &hd(0)?, &mut out, &mut err),
            "type_vector" => pmpi!("pmpi_type_vector_", unsafe extern "C" fn(*const F, *const F, *const F, *const F, *mut F, *mut F))(&n(0)?, &n(1)?, &n(2)?, &hd(0)?, &mut out, &mut err),
            "type_commit" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_type_commit_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "type_free" => {
                let mut x = hd(0)?;
                pmpi!("pmpi_type_free_", unsafe extern "C" fn(*mut F, *mut F))(&mut x, &mut err)
            }
            "op_create" => {
                let f = pmpi!("pmpi_op_create_", unsafe extern "C" fn(usize, *const F, *mut F, *mut F));
                f(e.ints.first().copied().ok_or("short op_create")? as usize, &n(1)?, &mut out, &mut err)
            }
            other => return Err(format!("unknown Fortran log entry {other}")),
        }
    }
    if err != 0 {
        return Err(format!("the Fortran MPI call of {} failed (error {err})", e.op));
    }
    Ok(out as i64 as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_round_trip_and_damage() {
        created(Entry { fortran: false, op: "type_vector".into(), ints: vec![4, 1, 8], ins: vec![0x1234], out: 0xabc0 });
        created(Entry { fortran: true, op: "comm_dup".into(), ints: vec![], ins: vec![0], out: 3 });
        let t = log_text(7);
        let l = parse_log(&t).unwrap();
        assert_eq!(l.seq, 7);
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries[0].ints, vec![4, 1, 8]);
        assert_eq!(l.entries[0].out, 0xabc0);
        assert!(l.entries[1].fortran);
        let bad = t.replace("type_vector 4", "type_vector 5");
        assert!(parse_log(&bad).unwrap_err().contains("checksum"));
        assert!(parse_log(&t[..t.len() - 10]).is_err(), "truncated");
    }

    #[test]
    fn patch_replaces_aligned_words_only() {
        let mut m = HandleMap::default();
        m.map.insert(0x5555_0000_1000, 0x7777_0000_2000);
        m.map.insert(0x10, 0x10);
        m.finish();
        let mut b = vec![0u8; 32];
        b[8..16].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        b[17..25].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        assert_eq!(m.patch(0x1000, &mut b), 1);
        assert_eq!(u64::from_ne_bytes(b[8..16].try_into().unwrap()), 0x7777_0000_2000);
        // a slice starting at an odd address: alignment is the address's
        let mut c = vec![0u8; 24];
        c[7..15].copy_from_slice(&0x5555_0000_1000u64.to_ne_bytes());
        assert_eq!(m.patch(0x1001, &mut c), 1);
    }
}
