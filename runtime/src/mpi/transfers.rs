//! Point-to-point transfers of dao's (partner copies): blocking
//! (`transfer`) and asynchronous (`AsyncTransfer`, moved on at the looks,
//! the next checkpoint and MPI_Finalize, and by MPI during the program's
//! own calls).
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use super::collectives::timed;
use super::sym::{int64, object, pmpi, request_null, H};
use super::world::{comm, prefix, timeout};
use crate::diag::fatal;

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
            if t0.elapsed() > timeout() {
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
