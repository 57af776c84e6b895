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

thread_local! {
    /// > 0: this thread runs the runtime's own code (see [`own`]).
    static OWN: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether a `malloc` reaching the link-time routes (wrap.rs) now is the
/// runtime's own. The global allocator above covers the runtime's Rust
/// allocations, but not all of them: Rust's standard library allocates
/// through `std::alloc::System`, i.e. the symbol `malloc`, which `--wrap`
/// sends to the dao heap (measured: every thread the runtime spawns, the
/// storage engine's hash pool and pipeline, put its `Thread` record
/// there). In the dao heap such a block would be scanned as a possible
/// pointer target (unreachable from the program, it keeps the
/// reachability scan from stopping early: FT.A's collection went from
/// 0.15 ms to 24 ms), restored over at restart, and taken under the dao
/// heap's lock, which a forked writer must never touch.
pub fn in_runtime() -> bool {
    OWN.try_with(|c| c.get() > 0).unwrap_or(false)
}

/// Runs `f` with this thread's `malloc`s counted as the runtime's own.
pub fn own<R>(f: impl FnOnce() -> R) -> R {
    struct Undo;
    impl Drop for Undo {
        fn drop(&mut self) {
            let _ = OWN.try_with(|c| c.set(c.get().saturating_sub(1)));
        }
    }
    OWN.with(|c| c.set(c.get() + 1));
    let _undo = Undo;
    f()
}

/// Runs `f` as the program's code inside the runtime's (a restart opening
/// a Fortran unit again through flang's OPEN: its `malloc`s and its
/// `open(2)` are the program's, recorded as such).
pub fn as_program<R>(f: impl FnOnce() -> R) -> R {
    let saved = OWN.with(|c| c.replace(0));
    struct Undo(u32);
    impl Drop for Undo {
        fn drop(&mut self) {
            let n = self.0;
            let _ = OWN.try_with(|c| c.set(n));
        }
    }
    let _undo = Undo(saved);
    f()
}

/// Counts every later `malloc` of this thread as the runtime's own (a
/// thread that only runs runtime code: the storage engine's threads, a
/// forked writer).
pub fn own_thread() {
    OWN.with(|c| c.set(c.get() + 1));
}
