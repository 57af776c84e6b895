//! Where glibc's stream allocations go: the executable's `malloc` & co.
//! interpose glibc's for every caller, forwarding to glibc except while a
//! wrapped `fopen`/`fdopen` runs (the `FILE` goes to the dao heap, at a
//! fixed address) or a restart rebuilds a stream (the `FILE` goes where it
//! was), and for the buffers libc hands to the program (`in_dao_heap`).
use std::ffi::c_void;

use crate::libc_alloc::{self as la, in_runtime};

thread_local! {
    /// 0: glibc; 1: the dao heap (a wrapped fopen/fdopen runs); another
    /// value: the address the next allocation returns (a restart rebuilds a
    /// stream where it was).
    static REDIRECT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Every allocation of the call in the dao heap (getline's buffer).
const STICKY: usize = 2;

fn sticky() -> bool {
    REDIRECT.try_with(|r| r.get() == STICKY).unwrap_or(false)
}

/// Runs `f` (a libc call that allocates memory it hands to the program:
/// getline, getdelim, asprintf) with its allocations in the dao heap, so
/// that the program's pointer to them is restored with the heap.
pub fn in_dao_heap<R>(f: impl FnOnce() -> R) -> R {
    if in_runtime() {
        return f();
    }
    with_redirect(STICKY, f)
}

pub(super) fn with_redirect<R>(to: usize, f: impl FnOnce() -> R) -> R {
    REDIRECT.with(|r| r.set(to));
    let out = f();
    REDIRECT.with(|r| r.set(0));
    out
}

/// glibc's `malloc`, interposed (the executable's definition is what libc
/// and every shared library call): glibc's own, but for the `FILE` of a
/// stream the program opens (see the module comment).
///
/// # Safety
/// As malloc(3).
#[no_mangle]
pub unsafe extern "C" fn malloc(n: usize) -> *mut c_void {
    let r = REDIRECT
        .try_with(|r| {
            let v = r.get();
            if v != STICKY {
                r.set(0);
            }
            v
        })
        .unwrap_or(0);
    match r {
        // SAFETY: glibc's allocator.
        0 => unsafe { la::__libc_malloc(n) },
        1 | STICKY => crate::heap::with(|h| h.malloc(n)) as *mut c_void,
        addr => addr as *mut c_void,
    }
}

/// # Safety
/// As free(3).
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if crate::heap::in_region(p as *const u8) {
        // a stream's FILE (fclose), or a program block freed by libc
        crate::heap::with(|h| h.free(p as *mut u8));
    } else {
        // SAFETY: NULL or a glibc block.
        unsafe { la::__libc_free(p) }
    }
}

/// # Safety
/// As calloc(3).
#[no_mangle]
pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
    // SAFETY: glibc's allocator.
    unsafe { la::__libc_calloc(n, size) }
}

/// # Safety
/// As realloc(3).
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
    if crate::heap::in_region(p as *const u8) {
        // a dao-heap block handed to libc (getline's buffer from the
        // program's malloc)
        if n == 0 {
            crate::heap::with(|h| h.free(p as *mut u8));
            return std::ptr::null_mut();
        }
        return crate::heap::with(|h| h.realloc(p as *mut u8, n)).unwrap_or(std::ptr::null_mut()) as *mut c_void;
    }
    if p.is_null() && sticky() {
        return crate::heap::with(|h| h.malloc(n)) as *mut c_void;
    }
    // SAFETY: NULL or a glibc block.
    unsafe { la::__libc_realloc(p, n) }
}
