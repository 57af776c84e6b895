//! The runtime's own allocator.
//!
//! The runtime's own Rust allocations must never land in the dao heap (a
//! restore would overwrite them), and under `--wrap` (wrap.rs) a reference
//! to `malloc` from this very library would be wrapped too. So the
//! runtime's global allocator calls glibc's `__libc_*` entry points, which
//! no `--wrap` renames.
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
