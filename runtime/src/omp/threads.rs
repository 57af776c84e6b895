//! Threads: which thread runs `main` (the only one that decides to
//! checkpoint), and worker stacks at fixed addresses (the `pthread_create`
//! override).
//!
//! A worker's frames are rebuilt at their old addresses only if the worker's
//! stack is where it was. libomp creates its workers with pthread_create; the
//! executable defines pthread_create, so libomp's calls (a shared library
//! binding to the executable's definition) come here. Threads whose start
//! routine lives in libomp get a stack at WORKER_STACKS + k * WORKER_STRIDE,
//! k = 1, 2, ... in creation order (libomp creates workers in thread-number
//! order, at the first fork that needs them); every other thread is created
//! as asked. glibc puts the thread's TLS block at the top of a stack the
//! caller provides, so threadprivate data lands at fixed addresses too. The
//! frame-address check of a restart catches any difference.
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering::*};
use std::sync::OnceLock;

use crate::diag;

thread_local! {
    static IS_MAIN: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread as the one that runs user_main.
pub fn set_main_thread() {
    IS_MAIN.with(|m| m.set(true));
}

pub fn is_main_thread() -> bool {
    IS_MAIN.with(|m| m.get())
}

const WORKER_STACKS: usize = 0x0c00_0000_0000;
const WORKER_STRIDE: usize = 1 << 30;
const WORKER_GUARD: usize = 64 << 10;
static CREATED: AtomicU32 = AtomicU32::new(0);

type PthreadCreate = unsafe extern "C" fn(
    *mut libc::pthread_t,
    *const libc::pthread_attr_t,
    extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    *mut libc::c_void,
) -> libc::c_int;

fn real_pthread_create() -> PthreadCreate {
    static REAL: OnceLock<usize> = OnceLock::new();
    let p = *REAL.get_or_init(|| {
        // SAFETY: dlsym with a NUL-terminated name.
        unsafe { libc::dlsym(libc::RTLD_NEXT, c"pthread_create".as_ptr()) as usize }
    });
    if p == 0 {
        crate::diag::fatal("pthread_create not found in the C library");
    }
    // SAFETY: the C library's pthread_create has this type.
    unsafe { std::mem::transmute::<usize, PthreadCreate>(p) }
}

fn from_libomp(f: usize) -> bool {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr fills `info` for an address of a loaded object.
    if unsafe { libc::dladdr(f as *const libc::c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return false;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the loader.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    name.contains("libomp") || name.contains("libiomp") || name.contains("libgomp")
}

/// The C library's pthread_create (not the interposed one).
///
/// # Safety
/// The C library's contract of pthread_create.
pub unsafe fn create_thread(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    arg: *mut libc::c_void,
) -> libc::c_int {
    // SAFETY: forwarded.
    unsafe { real_pthread_create()(thread, attr, start, arg) }
}

/// # Safety
/// The C library's contract of pthread_create.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: extern "C" fn(*mut libc::c_void) -> *mut libc::c_void,
    arg: *mut libc::c_void,
) -> libc::c_int {
    let real = real_pthread_create();
    if !from_libomp(start as usize) {
        // SAFETY: forwarded unchanged.
        return unsafe { real(thread, attr, start, arg) };
    }
    let mut size: libc::size_t = 0;
    // SAFETY: reading the caller's attributes (if any).
    if !attr.is_null() && unsafe { libc::pthread_attr_getstacksize(attr, &mut size) } != 0 {
        size = 0;
    }
    let size = if size == 0 { 8 << 20 } else { size.next_multiple_of(4096) }.min(WORKER_STRIDE - WORKER_GUARD);
    let k = CREATED.fetch_add(1, Relaxed) as usize + 1;
    let lo = WORKER_STACKS + k * WORKER_STRIDE;
    // SAFETY: a fresh anonymous mapping at an address that must be free.
    let p = unsafe {
        libc::mmap(
            lo as *mut libc::c_void,
            size + WORKER_GUARD,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as usize != lo {
        diag::warn_once(
            "worker-stack",
            "cannot map a worker thread's stack at its fixed address; checkpoints taken inside parallel regions will not restore (stack layout differs)",
        );
        // SAFETY: forwarded unchanged.
        return unsafe { real(thread, attr, start, arg) };
    }
    // SAFETY: the guard page at the bottom of the mapping just made; then a
    // copy of the caller's attributes with this stack.
    unsafe {
        libc::mprotect(p, WORKER_GUARD, libc::PROT_NONE);
        let mut a: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut a);
        // libomp creates joinable threads with default attributes but the
        // stack size (kmp_os-specific code); keep it that way
        libc::pthread_attr_setstack(&mut a, (lo + WORKER_GUARD) as *mut libc::c_void, size);
        let r = real(thread, &a, start, arg);
        libc::pthread_attr_destroy(&mut a);
        if r != 0 {
            libc::munmap(p, size + WORKER_GUARD);
        }
        r
    }
}

