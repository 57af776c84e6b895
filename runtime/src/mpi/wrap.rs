//! The PMPI layer (issue #17): the program's MPI calls that dao must see,
//! defined here and forwarded to Open MPI's `PMPI_*` (C) or `pmpi_*_`
//! (Fortran: Open MPI 4.1's `mpif.h` bindings call `PMPI_*` directly, so
//! the Fortran symbols need wrappers of their own). `dao mpicc` links
//! libdao_rt.a before `-lmpi`, so the program's references bind here.
//!
//! What each wrapper tells the MPI layer (traffic.rs, log.rs): messages sent and received, requests
//! pending and completed, objects created and freed (the creation log a
//! restart replays), and calls dao cannot follow. `MPI_Init` and
//! `MPI_Init_thread` only report success when dao initialised MPI before
//! main (DAO_DIR set: the restart path needs MPI before the program's
//! code runs); `MPI_Finalize` ends coordinated checkpoints first.
//!
//! The tables below are the one place that lists the calls followed; the
//! list and what is not followed are in docs/design.md, section 16.
use std::ffi::{c_char, c_int, c_void};

use crate::mpi::{self, pmpi, Entry, Kind, H};

/// Fortran INTEGER (and LOGICAL): 4 bytes with flang and Open MPI.
type F = c_int;

/// C wrappers: `name(params) [before] |rc| [after];` calls `P<name>` with
/// the same arguments between the two statement lists.
macro_rules! c_wrappers {
    ($( $name:ident ( $($a:ident : $t:ty),* ) [ $($pre:tt)* ] |$rc:ident| [ $($post:tt)* ] ; )*) => {$(
        /// # Safety
        /// MPI's contract of this function.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> c_int {
            // SAFETY: MPI's contract, forwarded; the pointers are the
            // program's, valid as MPI requires.
            unsafe {
                progress();
                $($pre)*
                static P: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let f = std::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> c_int>(mpi::resolve(&P, concat!("P", stringify!($name), "\0")));
                let $rc = f($($a),*);
                // what the layer records is allocated by glibc
                crate::libc_alloc::own(|| { $($post)* });
                $rc
            }
        }
    )*};
}

/// Fortran wrappers: `name(params) [before] [after];` calls `p<name>`.
macro_rules! f_wrappers {
    ($( $name:ident ( $($a:ident : $t:ty),* ) [ $($pre:tt)* ] [ $($post:tt)* ] ; )*) => {$(
        /// # Safety
        /// Open MPI's Fortran binding's contract (every argument by reference).
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) {
            // SAFETY: as c_wrappers.
            unsafe {
                progress();
                $($pre)*
                static P: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let f = std::mem::transmute::<usize, unsafe extern "C" fn($($t),*)>(mpi::resolve(&P, concat!("p", stringify!($name), "\0")));
                f($($a),*);
                crate::libc_alloc::own(|| { $($post)* });
            }
        }
    )*};
}

/// A partner copy in flight (levels.rs) moves on at the program's MPI
/// calls: its receive is posted once the length has arrived.
#[inline]
fn progress() {
    if mpi::partner_pending() {
        crate::levels::partner_progress(false);
    }
}

/// The request handles of an array, before a call that may complete them.
unsafe fn olds(n: c_int, reqs: *const H) -> Vec<H> {
    // SAFETY: `reqs` has `n` elements (MPI's contract).
    crate::libc_alloc::own(|| (0..n.max(0) as usize).map(|i| unsafe { *reqs.add(i) }).collect())
}

unsafe fn folds(n: F, reqs: *const F) -> Vec<F> {
    // SAFETY: as olds.
    crate::libc_alloc::own(|| (0..n.max(0) as usize).map(|i| unsafe { *reqs.add(i) }).collect())
}

/// Completions of Waitsome/Testsome.
unsafe fn some(old: &[H], outcount: c_int, indices: *const c_int) {
    for i in 0..outcount.max(0) as usize {
        // SAFETY: `indices` has `outcount` elements.
        if let Some(&r) = usize::try_from(unsafe { *indices.add(i) }).ok().and_then(|k| old.get(k)) {
            mpi::completed_c(r);
        }
    }
}

/// MPI_Request_free on a request still pending: its message may complete
/// without dao seeing it.
fn freed_c(old: H) {
    if old != mpi::request_null() {
        mpi::unfollowed("MPI_Request_free of a pending request");
    }
}

fn freed_f(old: F) {
    if old != 0 {
        mpi::unfollowed("MPI_Request_free of a pending request");
    }
}

unsafe fn ints(p: *const c_int, n: c_int) -> Vec<i64> {
    // SAFETY: `p` has `n` elements.
    (0..n.max(0) as usize).map(|i| unsafe { *p.add(i) } as i64).collect()
}

/// Dimensions of a Cartesian communicator (MPI_Cart_sub's `remain_dims`).
unsafe fn cart_dims(comm: H) -> c_int {
    let mut n: c_int = 0;
    // SAFETY: a Cartesian communicator of the program's.
    unsafe { pmpi!("PMPI_Cartdim_get", unsafe extern "C" fn(H, *mut c_int) -> c_int)(comm, &mut n) };
    n
}

unsafe fn fcart_dims(comm: F) -> F {
    let (mut n, mut e): (F, F) = (0, 0);
    // SAFETY: as cart_dims.
    unsafe { pmpi!("pmpi_cartdim_get_", unsafe extern "C" fn(*const F, *mut F, *mut F))(&comm, &mut n, &mut e) };
    n
}

/// Levels of thread support, in order (Open MPI's values).
fn level_name(l: c_int) -> &'static str {
    ["MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"].get(l.max(0) as usize).copied().unwrap_or("?")
}

fn required_level(required: c_int) {
    if required > mpi::provided() {
        crate::diag::warn_once(
            "mpi thread level",
            format_args!(
                "{}the program asks MPI for {}; dao initialised MPI with {} (MPI is called by the thread that runs main; docs/design.md, section 16)",
                mpi::prefix(),
                level_name(required),
                level_name(mpi::provided())
            ),
        );
    }
}

/// # Safety
/// MPI's contract of MPI_Init.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    if mpi::initialised_by_dao() {
        return 0;
    }
    // SAFETY: forwarded contract.
    unsafe { pmpi!("PMPI_Init", unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char) -> c_int)(argc, argv) }
}

/// # Safety
/// MPI's contract of MPI_Init_thread.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init_thread(argc: *mut c_int, argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
    if mpi::initialised_by_dao() {
        required_level(required);
        // SAFETY: the program's out parameter.
        unsafe { *provided = mpi::provided() };
        return 0;
    }
    // SAFETY: forwarded contract.
    unsafe { pmpi!("PMPI_Init_thread", unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char, c_int, *mut c_int) -> c_int)(argc, argv, required, provided) }
}

/// # Safety
/// MPI's contract of MPI_Finalize.
#[no_mangle]
pub unsafe extern "C" fn MPI_Finalize() -> c_int {
    if mpi::coordinated() {
        crate::levels::partner_progress(true);
    }
    mpi::finalizing();
    mpi::stop();
    // SAFETY: forwarded contract.
    unsafe { pmpi!("PMPI_Finalize", unsafe extern "C" fn() -> c_int)() }
}

/// # Safety
/// Open MPI's Fortran MPI_INIT.
#[no_mangle]
pub unsafe extern "C" fn mpi_init_(ierr: *mut F) {
    if mpi::initialised_by_dao() {
        // SAFETY: the program's out parameter.
        unsafe { *ierr = 0 };
        return;
    }
    // SAFETY: forwarded contract.
    unsafe { pmpi!("pmpi_init_", unsafe extern "C" fn(*mut F))(ierr) }
}

/// # Safety
/// Open MPI's Fortran MPI_INIT_THREAD.
#[no_mangle]
pub unsafe extern "C" fn mpi_init_thread_(required: *const F, provided: *mut F, ierr: *mut F) {
    if mpi::initialised_by_dao() {
        // SAFETY: the program's arguments.
        unsafe {
            required_level(*required);
            *provided = mpi::provided();
            *ierr = 0;
        }
        return;
    }
    // SAFETY: forwarded contract.
    unsafe { pmpi!("pmpi_init_thread_", unsafe extern "C" fn(*const F, *mut F, *mut F))(required, provided, ierr) }
}

/// # Safety
/// Open MPI's Fortran MPI_FINALIZE.
#[no_mangle]
pub unsafe extern "C" fn mpi_finalize_(ierr: *mut F) {
    if mpi::coordinated() {
        crate::levels::partner_progress(true);
    }
    mpi::finalizing();
    mpi::stop();
    // SAFETY: forwarded contract.
    unsafe { pmpi!("pmpi_finalize_", unsafe extern "C" fn(*mut F))(ierr) }
}

c_wrappers! {
    MPI_Allreduce(sbuf: *const c_void, rbuf: *mut c_void, count: c_int, ty: H, op: H, comm: H) [] |rc| [];
    MPI_Reduce(sbuf: *const c_void, rbuf: *mut c_void, count: c_int, ty: H, op: H, root: c_int, comm: H) [] |rc| [];
    MPI_Bcast(buf: *mut c_void, count: c_int, ty: H, root: c_int, comm: H) [] |rc| [];
    MPI_Barrier(comm: H) [] |rc| [];
    MPI_Allgather(sbuf: *const c_void, scount: c_int, sty: H, rbuf: *mut c_void, rcount: c_int, rty: H, comm: H) [] |rc| [];
    MPI_Allgatherv(sbuf: *const c_void, scount: c_int, sty: H, rbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rty: H, comm: H) [] |rc| [];
    MPI_Alltoall(sbuf: *const c_void, scount: c_int, sty: H, rbuf: *mut c_void, rcount: c_int, rty: H, comm: H) [] |rc| [];
    MPI_Send(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H) [mpi::note_send(dest);] |rc| [];
    MPI_Ssend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H) [mpi::note_send(dest);] |rc| [];
    MPI_Bsend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H) [mpi::note_send(dest);] |rc| [];
    MPI_Rsend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H) [mpi::note_send(dest);] |rc| [];
    MPI_Recv(buf: *mut c_void, count: c_int, ty: H, source: c_int, tag: c_int, comm: H, status: *mut c_void) [] |rc| [mpi::note_recv(source);];
    MPI_Sendrecv(sbuf: *const c_void, scount: c_int, sty: H, dest: c_int, stag: c_int, rbuf: *mut c_void, rcount: c_int, rty: H, source: c_int, rtag: c_int, comm: H, status: *mut c_void) [mpi::note_send(dest);] |rc| [mpi::note_recv(source);];
    MPI_Sendrecv_replace(buf: *mut c_void, count: c_int, ty: H, dest: c_int, stag: c_int, source: c_int, rtag: c_int, comm: H, status: *mut c_void) [mpi::note_send(dest);] |rc| [mpi::note_recv(source);];
    MPI_Isend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::note_send(dest);] |rc| [mpi::pending_c(*req, Kind::Send);];
    MPI_Issend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::note_send(dest);] |rc| [mpi::pending_c(*req, Kind::Send);];
    MPI_Ibsend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::note_send(dest);] |rc| [mpi::pending_c(*req, Kind::Send);];
    MPI_Irsend(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::note_send(dest);] |rc| [mpi::pending_c(*req, Kind::Send);];
    MPI_Irecv(buf: *mut c_void, count: c_int, ty: H, source: c_int, tag: c_int, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Recv { counts: source != mpi::PROC_NULL });];
    MPI_Wait(req: *mut H, status: *mut c_void) [let old = *req;] |rc| [mpi::completed_c(old);];
    MPI_Waitall(n: c_int, reqs: *mut H, statuses: *mut c_void) [let old = olds(n, reqs);] |rc| [old.iter().for_each(|&r| mpi::completed_c(r));];
    MPI_Waitany(n: c_int, reqs: *mut H, index: *mut c_int, status: *mut c_void) [let old = olds(n, reqs);] |rc| [if let Some(&r) = usize::try_from(*index).ok().and_then(|i| old.get(i)) { mpi::completed_c(r) }];
    MPI_Waitsome(n: c_int, reqs: *mut H, outcount: *mut c_int, indices: *mut c_int, statuses: *mut c_void) [let old = olds(n, reqs);] |rc| [some(&old, *outcount, indices);];
    MPI_Test(req: *mut H, flag: *mut c_int, status: *mut c_void) [let old = *req;] |rc| [if *flag != 0 { mpi::completed_c(old) }];
    MPI_Testall(n: c_int, reqs: *mut H, flag: *mut c_int, statuses: *mut c_void) [let old = olds(n, reqs);] |rc| [if *flag != 0 { old.iter().for_each(|&r| mpi::completed_c(r)) }];
    MPI_Testany(n: c_int, reqs: *mut H, index: *mut c_int, flag: *mut c_int, status: *mut c_void) [let old = olds(n, reqs);] |rc| [if *flag != 0 { if let Some(&r) = usize::try_from(*index).ok().and_then(|i| old.get(i)) { mpi::completed_c(r) } }];
    MPI_Testsome(n: c_int, reqs: *mut H, outcount: *mut c_int, indices: *mut c_int, statuses: *mut c_void) [let old = olds(n, reqs);] |rc| [some(&old, *outcount, indices);];
    MPI_Request_free(req: *mut H) [let old = *req;] |rc| [freed_c(old);];
    MPI_Iallreduce(sbuf: *const c_void, rbuf: *mut c_void, count: c_int, ty: H, op: H, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Ireduce(sbuf: *const c_void, rbuf: *mut c_void, count: c_int, ty: H, op: H, root: c_int, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Ibcast(buf: *mut c_void, count: c_int, ty: H, root: c_int, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Ibarrier(comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Iallgather(sbuf: *const c_void, scount: c_int, sty: H, rbuf: *mut c_void, rcount: c_int, rty: H, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Ialltoall(sbuf: *const c_void, scount: c_int, sty: H, rbuf: *mut c_void, rcount: c_int, rty: H, comm: H, req: *mut H) [] |rc| [mpi::pending_c(*req, Kind::Coll);];
    MPI_Send_init(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::unfollowed("MPI_Send_init (persistent requests)");] |rc| [];
    MPI_Ssend_init(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::unfollowed("MPI_Ssend_init (persistent requests)");] |rc| [];
    MPI_Bsend_init(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::unfollowed("MPI_Bsend_init (persistent requests)");] |rc| [];
    MPI_Rsend_init(buf: *const c_void, count: c_int, ty: H, dest: c_int, tag: c_int, comm: H, req: *mut H) [mpi::unfollowed("MPI_Rsend_init (persistent requests)");] |rc| [];
    MPI_Recv_init(buf: *mut c_void, count: c_int, ty: H, source: c_int, tag: c_int, comm: H, req: *mut H) [mpi::unfollowed("MPI_Recv_init (persistent requests)");] |rc| [];
    MPI_Comm_create(comm: H, group: H, out: *mut H) [mpi::unfollowed("MPI_Comm_create");] |rc| [];
    MPI_Comm_create_group(comm: H, group: H, tag: c_int, out: *mut H) [mpi::unfollowed("MPI_Comm_create_group");] |rc| [];
    MPI_Comm_split_type(comm: H, split: c_int, key: c_int, info: H, out: *mut H) [mpi::unfollowed("MPI_Comm_split_type");] |rc| [];
    MPI_Intercomm_create(local: H, leader: c_int, peer: H, remote: c_int, tag: c_int, out: *mut H) [mpi::unfollowed("MPI_Intercomm_create");] |rc| [];
    MPI_Graph_create(comm: H, nnodes: c_int, index: *const c_int, edges: *const c_int, reorder: c_int, out: *mut H) [mpi::unfollowed("MPI_Graph_create");] |rc| [];
    MPI_Win_create(base: *mut c_void, size: isize, disp: c_int, info: H, comm: H, win: *mut H) [mpi::unfollowed("MPI_Win_create (one-sided communication)");] |rc| [];
    MPI_Win_allocate(size: isize, disp: c_int, info: H, comm: H, base: *mut c_void, win: *mut H) [mpi::unfollowed("MPI_Win_allocate (one-sided communication)");] |rc| [];
    MPI_File_open(comm: H, name: *const c_char, amode: c_int, info: H, fh: *mut H) [mpi::unfollowed("MPI_File_open (MPI-IO)");] |rc| [];
    MPI_Comm_dup(comm: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "comm_dup".into(), ints: vec![], ins: vec![comm as u64], out: *out as u64 }) }];
    MPI_Comm_split(comm: H, color: c_int, key: c_int, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "comm_split".into(), ints: vec![color as i64, key as i64], ins: vec![comm as u64], out: *out as u64 }) }];
    MPI_Cart_create(comm: H, ndims: c_int, dims: *const c_int, periods: *const c_int, reorder: c_int, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "cart_create".into(), ints: { let mut v = vec![ndims as i64]; v.extend(ints(dims, ndims)); v.extend(ints(periods, ndims)); v.push(reorder as i64); v }, ins: vec![comm as u64], out: *out as u64 }) }];
    MPI_Cart_sub(comm: H, remain: *const c_int, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "cart_sub".into(), ints: ints(remain, cart_dims(comm)), ins: vec![comm as u64], out: *out as u64 }) }];
    MPI_Comm_free(comm: *mut H) [let old = *comm;] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "comm_free".into(), ints: vec![], ins: vec![old as u64], out: 0usize as u64 }) }];
    MPI_Type_contiguous(count: c_int, old: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_contiguous".into(), ints: vec![count as i64], ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_vector(count: c_int, blen: c_int, stride: c_int, old: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_vector".into(), ints: vec![count as i64, blen as i64, stride as i64], ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_create_hvector(count: c_int, blen: c_int, stride: isize, old: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_hvector".into(), ints: vec![count as i64, blen as i64, stride as i64], ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_indexed(count: c_int, blens: *const c_int, displs: *const c_int, old: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_indexed".into(), ints: { let mut v = vec![count as i64]; v.extend(ints(blens, count)); v.extend(ints(displs, count)); v }, ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_create_struct(count: c_int, blens: *const c_int, displs: *const isize, types: *const H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_struct".into(), ints: { let mut v = vec![count as i64]; v.extend(ints(blens, count)); v.extend((0..count.max(0) as usize).map(|i| *displs.add(i) as i64)); v }, ins: (0..count.max(0) as usize).map(|i| *types.add(i) as u64).collect(), out: *out as u64 }) }];
    MPI_Type_create_resized(old: H, lb: isize, extent: isize, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_resized".into(), ints: vec![lb as i64, extent as i64], ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_dup(old: H, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_dup".into(), ints: vec![], ins: vec![old as u64], out: *out as u64 }) }];
    MPI_Type_commit(ty: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_commit".into(), ints: vec![], ins: vec![*ty as u64], out: 0usize as u64 }) }];
    MPI_Type_free(ty: *mut H) [let old = *ty;] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "type_free".into(), ints: vec![], ins: vec![old as u64], out: 0usize as u64 }) }];
    MPI_Op_create(func: *const c_void, commute: c_int, out: *mut H) [] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "op_create".into(), ints: vec![func as i64, commute as i64], ins: vec![], out: *out as u64 }) }];
    MPI_Op_free(op: *mut H) [let old = *op;] |rc| [if rc == 0 { mpi::created(Entry { fortran: false, op: "op_free".into(), ints: vec![], ins: vec![old as u64], out: 0usize as u64 }) }];}

f_wrappers! {
    mpi_allreduce_(sbuf: *const c_void, rbuf: *mut c_void, count: *const F, ty: *const F, op: *const F, comm: *const F, ierr: *mut F) [] [];
    mpi_reduce_(sbuf: *const c_void, rbuf: *mut c_void, count: *const F, ty: *const F, op: *const F, root: *const F, comm: *const F, ierr: *mut F) [] [];
    mpi_bcast_(buf: *mut c_void, count: *const F, ty: *const F, root: *const F, comm: *const F, ierr: *mut F) [] [];
    mpi_barrier_(comm: *const F, ierr: *mut F) [] [];
    mpi_allgatherv_(sbuf: *const c_void, scount: *const F, sty: *const F, rbuf: *mut c_void, rcounts: *const F, displs: *const F, rty: *const F, comm: *const F, ierr: *mut F) [] [];
    mpi_send_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, ierr: *mut F) [mpi::note_send(*dest);] [];
    mpi_ssend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, ierr: *mut F) [mpi::note_send(*dest);] [];
    mpi_bsend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, ierr: *mut F) [mpi::note_send(*dest);] [];
    mpi_rsend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, ierr: *mut F) [mpi::note_send(*dest);] [];
    mpi_recv_(buf: *mut c_void, count: *const F, ty: *const F, source: *const F, tag: *const F, comm: *const F, status: *mut F, ierr: *mut F) [] [mpi::note_recv(*source);];
    mpi_sendrecv_(sbuf: *const c_void, scount: *const F, sty: *const F, dest: *const F, stag: *const F, rbuf: *mut c_void, rcount: *const F, rty: *const F, source: *const F, rtag: *const F, comm: *const F, status: *mut F, ierr: *mut F) [mpi::note_send(*dest);] [mpi::note_recv(*source);];
    mpi_isend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::note_send(*dest);] [mpi::pending_f(*req, Kind::Send);];
    mpi_issend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::note_send(*dest);] [mpi::pending_f(*req, Kind::Send);];
    mpi_ibsend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::note_send(*dest);] [mpi::pending_f(*req, Kind::Send);];
    mpi_irsend_(buf: *const c_void, count: *const F, ty: *const F, dest: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::note_send(*dest);] [mpi::pending_f(*req, Kind::Send);];
    mpi_irecv_(buf: *mut c_void, count: *const F, ty: *const F, source: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [] [mpi::pending_f(*req, Kind::Recv { counts: *source != mpi::PROC_NULL });];
    mpi_wait_(req: *mut F, status: *mut F, ierr: *mut F) [let old = *req;] [mpi::completed_f(old);];
    mpi_waitall_(n: *const F, reqs: *mut F, statuses: *mut F, ierr: *mut F) [let old = folds(*n, reqs);] [old.iter().for_each(|&r| mpi::completed_f(r));];
    mpi_waitany_(n: *const F, reqs: *mut F, index: *mut F, status: *mut F, ierr: *mut F) [let old = folds(*n, reqs);] [if let Some(&r) = usize::try_from(*index - 1).ok().and_then(|i| old.get(i)) { mpi::completed_f(r) }];
    mpi_test_(req: *mut F, flag: *mut F, status: *mut F, ierr: *mut F) [let old = *req;] [if *flag != 0 { mpi::completed_f(old) }];
    mpi_testall_(n: *const F, reqs: *mut F, flag: *mut F, statuses: *mut F, ierr: *mut F) [let old = folds(*n, reqs);] [if *flag != 0 { old.iter().for_each(|&r| mpi::completed_f(r)) }];
    mpi_request_free_(req: *mut F, ierr: *mut F) [let old = *req;] [freed_f(old);];
    mpi_iallreduce_(sbuf: *const c_void, rbuf: *mut c_void, count: *const F, ty: *const F, op: *const F, comm: *const F, req: *mut F, ierr: *mut F) [] [mpi::pending_f(*req, Kind::Coll);];
    mpi_ibcast_(buf: *mut c_void, count: *const F, ty: *const F, root: *const F, comm: *const F, req: *mut F, ierr: *mut F) [] [mpi::pending_f(*req, Kind::Coll);];
    mpi_ibarrier_(comm: *const F, req: *mut F, ierr: *mut F) [] [mpi::pending_f(*req, Kind::Coll);];
    mpi_send_init_(buf: *const c_void, count: *const F, ty: *const F, peer: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::unfollowed("MPI_Send_init (persistent requests)");] [];
    mpi_recv_init_(buf: *const c_void, count: *const F, ty: *const F, peer: *const F, tag: *const F, comm: *const F, req: *mut F, ierr: *mut F) [mpi::unfollowed("MPI_Recv_init (persistent requests)");] [];
    mpi_comm_create_(comm: *const F, group: *const F, out: *mut F, ierr: *mut F) [mpi::unfollowed("MPI_Comm_create");] [];
    mpi_comm_dup_(comm: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "comm_dup".into(), ints: vec![], ins: vec![*comm as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_comm_split_(comm: *const F, color: *const F, key: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "comm_split".into(), ints: vec![*color as i64, *key as i64], ins: vec![*comm as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_cart_create_(comm: *const F, ndims: *const F, dims: *const F, periods: *const F, reorder: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "cart_create".into(), ints: { let mut v = vec![*ndims as i64]; v.extend(ints(dims, *ndims)); v.extend(ints(periods, *ndims)); v.push(*reorder as i64); v }, ins: vec![*comm as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_cart_sub_(comm: *const F, remain: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "cart_sub".into(), ints: ints(remain, fcart_dims(*comm)), ins: vec![*comm as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_comm_free_(comm: *mut F, ierr: *mut F) [let old = *comm;] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "comm_free".into(), ints: vec![], ins: vec![old as i64 as u64], out: 0 as i64 as u64 }) }];
    mpi_type_contiguous_(count: *const F, old: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "type_contiguous".into(), ints: vec![*count as i64], ins: vec![*old as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_type_vector_(count: *const F, blen: *const F, stride: *const F, old: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "type_vector".into(), ints: vec![*count as i64, *blen as i64, *stride as i64], ins: vec![*old as i64 as u64], out: *out as i64 as u64 }) }];
    mpi_type_commit_(ty: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "type_commit".into(), ints: vec![], ins: vec![*ty as i64 as u64], out: 0 as i64 as u64 }) }];
    mpi_type_free_(ty: *mut F, ierr: *mut F) [let old = *ty;] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "type_free".into(), ints: vec![], ins: vec![old as i64 as u64], out: 0 as i64 as u64 }) }];
    mpi_op_create_(func: *const c_void, commute: *const F, out: *mut F, ierr: *mut F) [] [if *ierr == 0 { mpi::created(Entry { fortran: true, op: "op_create".into(), ints: vec![func as i64, *commute as i64], ins: vec![], out: *out as i64 as u64 }) }];}
