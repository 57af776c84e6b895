//! libc past the link-time wraps: the program's calls to `fopen` & co. go
//! to the runtime's `__wrap_` functions (wrap.rs), which reach libc's own
//! definitions through here (`dlsym(RTLD_NEXT)`), as the rest of the
//! runtime does for the descriptors it reopens at a restart.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The address of libc's `name` (a NUL-terminated symbol name), cached.
pub(crate) fn libc_sym(cache: &AtomicUsize, name: &CStr) -> usize {
    let p = cache.load(Ordering::Relaxed);
    if p != 0 {
        return p;
    }
    // SAFETY: dlsym with a valid C string; RTLD_NEXT from the executable
    // finds the shared C library's definition (the executable defines only
    // the __wrap_ names).
    let q = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
    if q == 0 {
        crate::diag::fatal(format_args!("cannot find {} in the C library", name.to_string_lossy()));
    }
    cache.store(q, Ordering::Relaxed);
    q
}

/// `real!([vis] name, c"sym", fn(args) -> ret)`: a function `name` calling
/// libc's `sym` past the link-time wraps (wrap.rs uses it too).
macro_rules! real {
    ($vis:vis $name:ident, $sym:literal, fn($($a:ident: $t:ty),*) -> $r:ty) => {
        #[allow(non_snake_case)]
        $vis fn $name($($a: $t),*) -> $r {
            static C: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let f = $crate::files::real::libc_sym(&C, $sym);
            // SAFETY: `f` is libc's function of this name, whose C prototype
            // is the one written here.
            unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> $r>(f)($($a),*) }
        }
    };
}

pub(crate) use real;

/// A stdio stream (`FILE *`).
pub(crate) type File = *mut c_void;
real!(pub(super) real_fopen, c"fopen", fn(p: *const c_char, m: *const c_char) -> File);
real!(pub(super) real_fdopen, c"fdopen", fn(fd: c_int, m: *const c_char) -> File);
real!(pub(super) real_freopen, c"freopen", fn(p: *const c_char, m: *const c_char, f: File) -> File);
real!(pub(super) real_fclose, c"fclose", fn(f: File) -> c_int);
real!(pub(super) real_open, c"open", fn(p: *const c_char, fl: c_int, mode: libc::c_uint) -> c_int);
real!(pub(super) real_openat, c"openat", fn(d: c_int, p: *const c_char, fl: c_int, mode: libc::c_uint) -> c_int);
real!(pub(super) real_close, c"close", fn(fd: c_int) -> c_int);
real!(pub(super) real_dup, c"dup", fn(fd: c_int) -> c_int);
real!(pub(super) real_dup2, c"dup2", fn(a: c_int, b: c_int) -> c_int);

real!(pub(super) real_popen, c"popen", fn(c: *const c_char, m: *const c_char) -> File);
real!(pub(super) real_pclose, c"pclose", fn(f: File) -> c_int);

pub(super) fn stat_fd(fd: c_int) -> Option<libc::stat> {
    // SAFETY: fstat into a zeroed struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut st) == 0).then_some(st)
    }
}

pub(super) fn mtime_ns(st: &libc::stat) -> i64 {
    st.st_mtime * 1_000_000_000 + st.st_mtime_nsec
}

pub(super) fn fileno(f: File) -> c_int {
    // SAFETY: a stream libc returned.
    unsafe { libc::fileno(f as *mut libc::FILE) }
}

pub(super) fn fd_flags(fd: c_int) -> i32 {
    // SAFETY: fcntl on a descriptor number.
    unsafe { libc::fcntl(fd, libc::F_GETFL) }
}
