//! Heap calls from code the pass never sees.
//!
//! The pass routes `malloc` & co. in instrumented code to the dao heap. Code
//! that is statically linked but not compiled by the pass -- the Fortran
//! runtime (`libFortranRuntime.a`: derived-type ALLOCATE, reallocation on
//! assignment, MOVE_ALLOC), a user's uninstrumented objects and static
//! libraries -- is routed at link time: `dao cc`/`dao fc` link with
//! `-Wl,--wrap=malloc,--wrap=free,...`, which makes the linker send those
//! references to the `__wrap_*` functions below. Shared libraries (libc
//! itself, libomp) are not affected: their internal blocks never enter the
//! dao heap, and they do not hold pointers into user data that a restart
//! would need.
//!
//! The runtime's own allocator (glibc's `__libc_*` entry points, which no
//! `--wrap` renames) is in libc_alloc.rs.
use std::ffi::c_void;

// The link-time routes. Each is the dao heap entry of the same name.

// The runtime's own calls (`libc_alloc::in_runtime`: Rust's `System`
// allocator inside runtime code) go to glibc; `free` and `realloc` tell the
// two heaps apart by address anyway.

use crate::libc_alloc::{self as la, in_runtime};

#[no_mangle]
pub extern "C" fn __wrap_malloc(size: u64) -> *mut c_void {
    if in_runtime() {
        // SAFETY: glibc's malloc.
        return unsafe { la::__libc_malloc(size as usize) };
    }
    crate::entry::dao_malloc(size)
}
#[no_mangle]
pub extern "C" fn __wrap_calloc(n: u64, size: u64) -> *mut c_void {
    if in_runtime() {
        // SAFETY: glibc's calloc.
        return unsafe { la::__libc_calloc(n as usize, size as usize) };
    }
    crate::entry::dao_calloc(n, size)
}
/// # Safety
/// As realloc(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_realloc(p: *mut c_void, size: u64) -> *mut c_void {
    if in_runtime() && !crate::heap::in_region(p as *const u8) {
        // SAFETY: NULL or a glibc block (not in the dao heap's region).
        return unsafe { la::__libc_realloc(p, size as usize) };
    }
    unsafe { crate::entry::dao_realloc(p, size) }
}
/// # Safety
/// As free(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_free(p: *mut c_void) {
    unsafe { crate::entry::dao_free(p) }
}
#[no_mangle]
pub extern "C" fn __wrap_aligned_alloc(align: u64, size: u64) -> *mut c_void {
    if in_runtime() {
        // SAFETY: glibc's memalign.
        return unsafe { la::__libc_memalign(align as usize, size as usize) };
    }
    crate::entry::dao_aligned_alloc(align, size)
}
#[no_mangle]
pub extern "C" fn __wrap_memalign(align: u64, size: u64) -> *mut c_void {
    if in_runtime() {
        // SAFETY: glibc's memalign.
        return unsafe { la::__libc_memalign(align as usize, size as usize) };
    }
    crate::entry::dao_aligned_alloc(align, size)
}
/// # Safety
/// As posix_memalign(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_posix_memalign(out: *mut *mut c_void, align: u64, size: u64) -> i32 {
    if in_runtime() {
        if !align.is_power_of_two() || align < std::mem::size_of::<*mut c_void>() as u64 {
            return libc::EINVAL;
        }
        // SAFETY: glibc's memalign; `out` is the caller's pointer (contract).
        let p = unsafe { la::__libc_memalign(align as usize, size as usize) };
        if p.is_null() {
            return libc::ENOMEM;
        }
        unsafe { *out = p };
        return 0;
    }
    unsafe { crate::entry::dao_posix_memalign(out, align, size) }
}

/// `atexit` from statically linked code (`--wrap=atexit`): recorded so that
/// a restart registers the handler again (process.rs).
#[no_mangle]
pub extern "C" fn __wrap_atexit(f: extern "C" fn()) -> i32 {
    crate::process::atexit(f)
}

// Files the program opens (files.rs), from statically linked code
// (`--wrap=fopen,...`). The `mode` of open/openat/creat is read only with
// O_CREAT or O_TMPFILE, as libc does.
use std::ffi::{c_char, c_int, c_uint};
type File = *mut c_void;

#[no_mangle]
pub extern "C" fn __wrap_fopen(path: *const c_char, mode: *const c_char) -> File {
    crate::files::fopen(path, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_fopen64(path: *const c_char, mode: *const c_char) -> File {
    crate::files::fopen(path, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_fdopen(fd: c_int, mode: *const c_char) -> File {
    crate::files::fdopen(fd, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_freopen(path: *const c_char, mode: *const c_char, f: File) -> File {
    crate::files::freopen(path, mode, f)
}
#[no_mangle]
pub extern "C" fn __wrap_freopen64(path: *const c_char, mode: *const c_char, f: File) -> File {
    crate::files::freopen(path, mode, f)
}
#[no_mangle]
pub extern "C" fn __wrap_fclose(f: File) -> c_int {
    crate::files::fclose(f)
}
#[no_mangle]
pub extern "C" fn __wrap_open(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, flags, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_open64(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, flags, mode)
}
#[no_mangle]
pub extern "C" fn __wrap___open_2(path: *const c_char, flags: c_int) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, flags, 0)
}
#[no_mangle]
pub extern "C" fn __wrap___open64_2(path: *const c_char, flags: c_int) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, flags, 0)
}
#[no_mangle]
pub extern "C" fn __wrap_openat(dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    crate::files::open(dirfd, path, flags, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_openat64(dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    crate::files::open(dirfd, path, flags, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_creat(path: *const c_char, mode: c_uint) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_creat64(path: *const c_char, mode: c_uint) -> c_int {
    crate::files::open(libc::AT_FDCWD, path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode)
}
#[no_mangle]
pub extern "C" fn __wrap_close(fd: c_int) -> c_int {
    crate::files::close(fd)
}
#[no_mangle]
pub extern "C" fn __wrap_dup(fd: c_int) -> c_int {
    crate::files::dup(fd)
}
#[no_mangle]
pub extern "C" fn __wrap_dup2(a: c_int, b: c_int) -> c_int {
    crate::files::dup2(a, b)
}
