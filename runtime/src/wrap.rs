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
//! The runtime's own Rust allocations must never land in the dao heap (a
//! restore would overwrite them), and under `--wrap` a reference to
//! `malloc` from this very library would be wrapped too. So the runtime's
//! global allocator calls glibc's `__libc_*` entry points, which no `--wrap`
//! renames.
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

extern "C" {
    pub fn __libc_malloc(size: usize) -> *mut c_void;
    pub fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    pub fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    pub fn __libc_free(p: *mut c_void);
    pub fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
}

/// The runtime's own allocator: glibc, reached by names `--wrap` leaves alone.
pub struct LibcDirect;

// SAFETY: forwards to glibc's allocator, which is thread-safe and returns
// blocks aligned to at least 16 bytes (memalign for larger alignments).
unsafe impl GlobalAlloc for LibcDirect {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.align() <= 16 {
            unsafe { __libc_malloc(l.size()) as *mut u8 }
        } else {
            unsafe { __libc_memalign(l.align(), l.size()) as *mut u8 }
        }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if l.align() <= 16 {
            unsafe { __libc_calloc(1, l.size()) as *mut u8 }
        } else {
            let p = unsafe { self.alloc(l) };
            if !p.is_null() {
                unsafe { std::ptr::write_bytes(p, 0, l.size()) };
            }
            p
        }
    }
    unsafe fn dealloc(&self, p: *mut u8, _l: Layout) {
        unsafe { __libc_free(p as *mut c_void) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if l.align() <= 16 {
            unsafe { __libc_realloc(p as *mut c_void, new) as *mut u8 }
        } else {
            let q = unsafe { self.alloc(Layout::from_size_align_unchecked(new, l.align())) };
            if !q.is_null() {
                unsafe {
                    std::ptr::copy_nonoverlapping(p, q, l.size().min(new));
                    self.dealloc(p, l);
                }
            }
            q
        }
    }
}

#[global_allocator]
static GLOBAL: LibcDirect = LibcDirect;

// The link-time routes. Each is the dao heap entry of the same name.

#[no_mangle]
pub extern "C" fn __wrap_malloc(size: u64) -> *mut c_void {
    crate::entry::dao_malloc(size)
}
#[no_mangle]
pub extern "C" fn __wrap_calloc(n: u64, size: u64) -> *mut c_void {
    crate::entry::dao_calloc(n, size)
}
/// # Safety
/// As realloc(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_realloc(p: *mut c_void, size: u64) -> *mut c_void {
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
    crate::entry::dao_aligned_alloc(align, size)
}
#[no_mangle]
pub extern "C" fn __wrap_memalign(align: u64, size: u64) -> *mut c_void {
    crate::entry::dao_aligned_alloc(align, size)
}
/// # Safety
/// As posix_memalign(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_posix_memalign(out: *mut *mut c_void, align: u64, size: u64) -> i32 {
    unsafe { crate::entry::dao_posix_memalign(out, align, size) }
}
