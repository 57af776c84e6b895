//! The table of what the program holds open (descriptor, path, flags,
//! stream, mode, group), kept by the wrapped calls that open, duplicate
//! and close files, pipes and sockets (wrap.rs calls these).
use std::ffi::{c_char, c_int, CStr};
use std::sync::Mutex;

use super::alloc::with_redirect;
use super::journal::note_written;
use super::real::*;
use crate::libc_alloc::in_runtime;

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub fd: i32,
    /// Absolute path as opened.
    pub path: String,
    /// open(2) flags (without O_CREAT, O_TRUNC, O_EXCL at a restart).
    pub flags: i32,
    /// The `FILE *` (0: a plain descriptor).
    pub stream: usize,
    /// The stdio mode the stream was opened with.
    pub mode: String,
    /// The descriptor of the open(2) or fopen that made the open file
    /// description this one shares (itself, unless made by dup/dup2):
    /// descriptors of one group share their offset, and a restart keeps
    /// them sharing it.
    pub group: i32,
    /// Cannot be put back (a pipe to a command, a temporary or in-memory
    /// stream): a checkpoint while it is open is refused naming it.
    pub refuse: bool,
}

/// What a checkpoint records of an entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Saved {
    pub e: Entry,
    pub pos: i64,
    pub size: i64,
    pub mtime_ns: i64,
    pub regular: bool,
    /// The Fortran output unit connected to it (funit.rs): opened again
    /// through flang's OPEN at a restart, not on the descriptor.
    pub funit: Option<super::funit::Unit>,
}

static TABLE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

pub(super) fn table() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string from the program's call.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

pub(super) fn absolute(path: &str, dirfd: c_int) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    let base = if dirfd == libc::AT_FDCWD || dirfd < 0 {
        std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default()
    } else {
        std::fs::read_link(format!("/proc/self/fd/{dirfd}")).map(|d| d.display().to_string()).unwrap_or_default()
    };
    format!("{}/{}", base.trim_end_matches('/'), path)
}

/// Whether `path` is one of the runtime's own (the checkpoint directory,
/// the partner and flush levels, DAO_STATS, DAO_PROFILE): written by
/// runtime code that runs on the program's thread outside
/// `libc_alloc::own` (the statistics of a background writer, the finished
/// marker), never the program's.
fn runtime_path(path: &str) -> bool {
    static ROOTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let roots = ROOTS.get_or_init(|| crate::config::runtime_paths().iter().map(|v| absolute(v, libc::AT_FDCWD)).collect());
    roots.iter().any(|r| path == r || path.strip_prefix(r.as_str()).is_some_and(|rest| rest.starts_with('/')))
}

fn insert(e: Entry) {
    if runtime_path(&e.path) {
        return;
    }
    if writable(e.flags) {
        note_written(&e.path);
    }
    let mut t = table();
    t.retain(|x| x.fd != e.fd);
    t.push(e);
}

fn forget_fd(fd: c_int) {
    table().retain(|x| x.fd != fd);
}

pub fn fopen(path: *const c_char, mode: *const c_char) -> File {
    if in_runtime() {
        return real_fopen(path, mode);
    }
    let f = with_redirect(1, || real_fopen(path, mode));
    if !f.is_null() {
        let fd = fileno(f);
        insert(Entry { fd, path: absolute(&cstr(path), libc::AT_FDCWD), flags: fd_flags(fd), stream: f as usize, mode: cstr(mode), group: fd, refuse: false });
    }
    f
}

pub fn fdopen(fd: c_int, mode: *const c_char) -> File {
    if in_runtime() {
        return real_fdopen(fd, mode);
    }
    let tracked = table().iter().any(|e| e.fd == fd);
    if !tracked {
        // a pipe or an inherited descriptor: not a file the program opened
        return real_fdopen(fd, mode);
    }
    let f = with_redirect(1, || real_fdopen(fd, mode));
    if !f.is_null() {
        let mut t = table();
        if let Some(e) = t.iter_mut().find(|e| e.fd == fd) {
            e.stream = f as usize;
            e.mode = cstr(mode);
            e.flags = fd_flags(fd);
        }
    }
    f
}

pub fn freopen(path: *const c_char, mode: *const c_char, f: File) -> File {
    if in_runtime() {
        return real_freopen(path, mode, f);
    }
    let old = table().iter().find(|e| e.stream == f as usize).cloned();
    table().retain(|e| e.stream != f as usize);
    let g = real_freopen(path, mode, f);
    // the standard streams live in libc, not in the dao heap: not tracked
    if !g.is_null() && crate::heap::in_region(g as *const u8) {
        let fd = fileno(g);
        let p = if path.is_null() { old.map(|o| o.path).unwrap_or_default() } else { absolute(&cstr(path), libc::AT_FDCWD) };
        insert(Entry { fd, path: p, flags: fd_flags(fd), stream: g as usize, mode: cstr(mode), group: fd, refuse: false });
    }
    g
}

pub fn fclose(f: File) -> c_int {
    if !in_runtime() {
        table().retain(|e| e.stream != f as usize);
    }
    real_fclose(f)
}

pub fn open(dirfd: c_int, path: *const c_char, flags: c_int, mode: libc::c_uint) -> c_int {
    let fd = if dirfd == libc::AT_FDCWD { real_open(path, flags, mode) } else { real_openat(dirfd, path, flags, mode) };
    if fd >= 0 && !in_runtime() {
        let given = cstr(path);
        insert(Entry { fd, path: absolute(&given, dirfd), flags, stream: 0, mode: String::new(), group: fd, refuse: false });
        let mut g = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
        g.retain(|(d, _)| *d != fd);
        g.push((fd, given));
    }
    fd
}

/// The path each descriptor from `open(2)` was opened with, as the caller
/// spelled it (flang's `INQUIRE(FILE=)` matches a unit by that spelling:
/// funit.rs).
static GIVEN: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// The path descriptor `fd` was opened with by `open(2)`, as spelled.
pub(super) fn given_path(fd: c_int) -> Option<String> {
    GIVEN.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(d, _)| *d == fd).map(|(_, p)| p.clone())
}

pub fn close(fd: c_int) -> c_int {
    if !in_runtime() {
        forget_fd(fd);
    }
    real_close(fd)
}

pub fn dup(fd: c_int) -> c_int {
    let n = real_dup(fd);
    if n >= 0 && !in_runtime() {
        let e = table().iter().find(|e| e.fd == fd).cloned();
        if let Some(e) = e {
            insert(Entry { fd: n, stream: 0, mode: String::new(), ..e });
        }
    }
    n
}

pub fn dup2(a: c_int, b: c_int) -> c_int {
    let n = real_dup2(a, b);
    if n >= 0 && !in_runtime() && a != b {
        forget_fd(b);
        let e = table().iter().find(|e| e.fd == a).cloned();
        if let Some(e) = e {
            insert(Entry { fd: b, stream: 0, mode: String::new(), ..e });
        }
    }
    n
}

/// A descriptor the program made that is no file on disk (a pipe end, a
/// socket): in the table so that a checkpoint while it is open is refused
/// naming it.
pub fn note_fd(fd: c_int, what: &str) {
    if fd >= 0 && !in_runtime() {
        let mut t = table();
        t.retain(|x| x.fd != fd);
        t.push(Entry { fd, path: what.to_string(), flags: libc::O_RDONLY, stream: 0, mode: String::new(), group: fd, refuse: false });
    }
}

pub fn popen(cmd: *const c_char, mode: *const c_char) -> File {
    let f = real_popen(cmd, mode);
    if !f.is_null() && !in_runtime() {
        let mut t = table();
        let fd = fileno(f);
        t.retain(|x| x.fd != fd);
        t.push(Entry { fd, path: format!("a pipe to the command `{}` (popen)", cstr(cmd)), flags: libc::O_RDONLY, stream: f as usize, mode: cstr(mode), group: fd, refuse: true });
    }
    f
}

/// A stream libc made that cannot be opened again by name (`tmpfile`,
/// `fmemopen`, `open_memstream`, `fopencookie`): refused while open.
pub fn note_unreopenable(f: File, what: &str) {
    if !f.is_null() && !in_runtime() {
        let fd = fileno(f);
        let mut t = table();
        if fd >= 0 {
            t.retain(|x| x.fd != fd);
        }
        t.push(Entry { fd, path: what.to_string(), flags: libc::O_RDONLY, stream: f as usize, mode: String::new(), group: fd, refuse: true });
    }
}

pub fn pclose(f: File) -> c_int {
    if !in_runtime() {
        table().retain(|e| e.stream != f as usize);
    }
    real_pclose(f)
}

pub(super) fn writable(flags: i32) -> bool {
    flags & libc::O_ACCMODE != libc::O_RDONLY
}
