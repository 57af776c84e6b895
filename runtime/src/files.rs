//! Files the program keeps open across a checkpoint (issue #31).
//!
//! `dao cc`/`dao fc` link with `--wrap` for `fopen`, `fdopen`, `freopen`,
//! `fclose`, `open`, `openat`, `creat`, `close`, `dup` and `dup2` (and
//! their 64-bit and fortified names): each wrapper calls libc (found with
//! `dlsym`) and records, in a table of the runtime, what the program opened:
//! descriptor, path resolved against the working directory of that moment,
//! open flags, and for a stdio stream its `FILE *` and mode.
//!
//! **The `FILE *` values stay valid.** glibc allocates a stream's `FILE`
//! with `malloc`, which libc calls through its own symbol table: the
//! executable's `malloc` (below) interposes it, forwarding to glibc, except
//! while a wrapped `fopen`/`fdopen` runs, when it allocates in the dao heap
//! at fixed addresses. At a restart the runtime opens each file again on its
//! descriptor number and calls `fdopen` with the next allocation sent to the
//! stream's old address: glibc builds a fresh `FILE` exactly where the
//! program's pointers expect it.
//!
//! **At a checkpoint** (after stdio is flushed) each entry records its
//! position (`ftello` for a stream: the logical position, before what it
//! read ahead; `lseek` for a descriptor), the file's size, modification
//! time and identity. The table is serialised into a dao-heap block that the
//! runtime's module (process.rs) points to, so it is in every checkpoint.
//!
//! **At a restart**, before the program goes on, every file is checked
//! first, then put back: a file the program wrote must still exist, be a
//! regular file and be at least as long as at the checkpoint; it is cut back
//! to that length (what was written after the checkpoint is written again,
//! not twice) and reopened without truncation at the recorded position
//! (append mode reopens in append mode). A file only read must be unchanged
//! (same size and modification time). Any difference stops the restart
//! before anything runs, with the file and what differs; nothing is changed
//! then. DMTCP restores descriptors and offsets but leaves the output
//! written after the checkpoint in place (written twice in append mode);
//! CRIU refuses a restore when a size differs; we cut written files back,
//! as dao already does for stdout.
//!
//! **Refused, with a warning naming the file, at each checkpoint while it
//! is open** (the run goes on, the checkpoint is not taken): pipes, sockets
//! and other descriptors that are not regular files or character devices;
//! and, in a program linked with the Fortran runtime, files opened with
//! `open(2)`: those are Fortran units, whose state (unit number, record
//! position, buffers) lives in flang's runtime, which dao cannot restore
//! yet.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::libc_alloc::{self as la, in_runtime};

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
}

static TABLE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn table() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- libc, past the link-time wraps ----

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

/// `real!(name, c"sym", fn(args) -> ret)`: a function `name` calling
/// libc's `sym` past the link-time wraps (wrap.rs uses it too).
macro_rules! real {
    ($name:ident, $sym:literal, fn($($a:ident: $t:ty),*) -> $r:ty) => {
        #[allow(non_snake_case)]
        fn $name($($a: $t),*) -> $r {
            static C: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let f = $crate::files::libc_sym(&C, $sym);
            // SAFETY: `f` is libc's function of this name, whose C prototype
            // is the one written here.
            unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> $r>(f)($($a),*) }
        }
    };
}

pub(crate) use real;

type File = *mut c_void;
real!(real_fopen, c"fopen", fn(p: *const c_char, m: *const c_char) -> File);
real!(real_fdopen, c"fdopen", fn(fd: c_int, m: *const c_char) -> File);
real!(real_freopen, c"freopen", fn(p: *const c_char, m: *const c_char, f: File) -> File);
real!(real_fclose, c"fclose", fn(f: File) -> c_int);
real!(real_open, c"open", fn(p: *const c_char, fl: c_int, mode: libc::c_uint) -> c_int);
real!(real_openat, c"openat", fn(d: c_int, p: *const c_char, fl: c_int, mode: libc::c_uint) -> c_int);
real!(real_close, c"close", fn(fd: c_int) -> c_int);
real!(real_dup, c"dup", fn(fd: c_int) -> c_int);
real!(real_dup2, c"dup2", fn(a: c_int, b: c_int) -> c_int);

// ---- where glibc's stream allocation goes ----

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

fn with_redirect<R>(to: usize, f: impl FnOnce() -> R) -> R {
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

// ---- recording ----

fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string from the program's call.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn absolute(path: &str, dirfd: c_int) -> String {
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

fn fd_flags(fd: c_int) -> i32 {
    // SAFETY: fcntl on a descriptor number.
    unsafe { libc::fcntl(fd, libc::F_GETFL) }
}

fn fileno(f: File) -> c_int {
    // SAFETY: a stream libc returned.
    unsafe { libc::fileno(f as *mut libc::FILE) }
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

/// Every path the program opened for writing in this run (and, after a
/// restart, those of the checkpoint), open or closed since.
static WRITTEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// `DAO_DIR/files.journal` (set by the startup when checkpoints are on).
static JOURNAL: Mutex<Option<std::path::PathBuf>> = Mutex::new(None);

/// A path opened for writing: the first time, its size now (just after
/// the open, before the program writes to it: 0 when the open created or
/// truncated it) is appended to the journal, so that a restart can cut
/// back a file first written after its checkpoint, which the checkpoint
/// does not name.
fn note_written(path: &str) {
    {
        let mut w = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
        if w.iter().any(|p| p == path) {
            return;
        }
        w.push(path.to_string());
    }
    let j = JOURNAL.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(j) = j {
        crate::libc_alloc::own(|| {
            let size = std::fs::metadata(path).map(|m| m.len() as i64).unwrap_or(-1);
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&j) {
                let _ = writeln!(f, "{size} {}", hex(path));
            }
        });
    }
}

/// Sets the journal (`DAO_DIR/files.journal`); a fresh run (`fresh`)
/// starts it empty.
pub fn set_journal(path: std::path::PathBuf, fresh: bool) {
    if fresh {
        let _ = std::fs::remove_file(&path);
    }
    *JOURNAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(path);
}

/// The journal's entries: path -> smallest size recorded at a first open.
fn read_journal() -> Vec<(String, i64)> {
    let Some(j) = JOURNAL.lock().unwrap_or_else(|e| e.into_inner()).clone() else { return vec![] };
    let text = std::fs::read_to_string(j).unwrap_or_default();
    let mut out: Vec<(String, i64)> = Vec::new();
    for l in text.lines() {
        let Some((size, path)) = l.split_once(' ') else { continue };
        let (Ok(size), Some(path)) = (size.parse::<i64>(), unhex(path)) else { continue };
        match out.iter_mut().find(|(p, _)| *p == path) {
            Some(e) => e.1 = e.1.min(size),
            None => out.push((path, size)),
        }
    }
    out
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
        insert(Entry { fd, path: absolute(&cstr(path), dirfd), flags, stream: 0, mode: String::new(), group: fd, refuse: false });
    }
    fd
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

real!(real_popen, c"popen", fn(c: *const c_char, m: *const c_char) -> File);
real!(real_pclose, c"pclose", fn(f: File) -> c_int);

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

/// Files the program mapped into memory (start, length, path).
static MAPPINGS: Mutex<Vec<(usize, usize, String)>> = Mutex::new(Vec::new());
/// Child processes the program forked and has not reaped.
static CHILDREN: Mutex<Vec<i32>> = Mutex::new(Vec::new());

pub fn note_mapping(at: usize, len: usize, fd: c_int) {
    if in_runtime() {
        return;
    }
    let path = std::fs::read_link(format!("/proc/self/fd/{fd}")).map(|p| p.display().to_string()).unwrap_or_else(|_| format!("descriptor {fd}"));
    MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).push((at, len, path));
}

pub fn note_unmapping(at: usize, len: usize) {
    if in_runtime() {
        return;
    }
    MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).retain(|(a, l, _)| a + l <= at || at + len <= *a);
}

pub fn note_child(pid: i32) {
    if pid > 0 && !in_runtime() {
        CHILDREN.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    }
}

// ---- at a checkpoint ----

fn stat_fd(fd: c_int) -> Option<libc::stat> {
    // SAFETY: fstat into a zeroed struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut st) == 0).then_some(st)
    }
}

fn mtime_ns(st: &libc::stat) -> i64 {
    st.st_mtime * 1_000_000_000 + st.st_mtime_nsec
}

/// Why no checkpoint can be taken now, naming the file; None when every
/// open file can be put back.
pub fn cannot_restore() -> Option<String> {
    if let Some((a, l, p)) = MAPPINGS.lock().unwrap_or_else(|e| e.into_inner()).first() {
        return Some(format!("the file '{p}' is mapped into memory at {a:#x} ({l} bytes, mmap): dao cannot map it again after a restart; unmap it before the checkpoint position"));
    }
    {
        let mut ch = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: kill with signal 0 only checks that the process exists
        // (a zombie not yet reaped by the program still does).
        ch.retain(|&pid| unsafe { libc::kill(pid, 0) } == 0);
        if let Some(pid) = ch.first() {
            return Some(format!("the child process {pid} (fork) is running or not yet waited for: a restart cannot bring it back"));
        }
    }
    let t = table();
    let fortran = crate::stdio::fortran_linked();
    if let Some(e) = t.iter().find(|e| e.refuse) {
        return Some(format!("{} is open: dao cannot open it again after a restart; close it before the checkpoint position", e.path));
    }
    for e in t.iter() {
        let Some(st) = stat_fd(e.fd) else { continue };
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFREG && kind != libc::S_IFCHR {
            return Some(format!("'{}' (descriptor {}) is open and is not a regular file (a pipe, socket or directory): dao cannot reopen it after a restart", e.path, e.fd));
        }
        if fortran && e.stream == 0 && kind == libc::S_IFREG {
            return Some(format!(
                "'{}' (descriptor {}) is open as a Fortran unit: dao cannot restore Fortran units other than the standard ones yet; close the unit before the checkpoint position",
                e.path, e.fd
            ));
        }
    }
    None
}

/// A file the program wrote, as at a checkpoint: its length and either its
/// whole content (up to [`SAVE_MAX`] bytes) or a fingerprint of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub path: String,
    pub size: i64,
    pub fingerprint: u64,
    pub content: Option<Vec<u8>>,
}

/// Written files up to this size are saved whole in the checkpoint (a
/// restart writes them back exactly, whatever the program did to them
/// after the checkpoint: rewritten in place, cut, deleted); longer ones by
/// length and fingerprint (cut back; a change before their end stops the
/// restart).
pub const SAVE_MAX: i64 = 1 << 20;
/// Bytes at each end of a long file that its fingerprint covers.
const PRINT: i64 = 64 << 10;

/// xxh3 of the first and the last [`PRINT`] bytes of `[0, size)`; None when
/// the file is shorter than `size` or cannot be read.
fn fingerprint(path: &str, size: i64) -> Option<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; (size.min(PRINT)) as usize];
    f.read_exact(&mut buf).ok()?;
    if size > PRINT {
        let start = (size - PRINT).max(PRINT);
        let mut tail = vec![0u8; (size - start) as usize];
        f.seek(SeekFrom::Start(start as u64)).ok()?;
        f.read_exact(&mut tail).ok()?;
        buf.extend_from_slice(&tail);
    }
    Some(xxhash_rust::xxh3::xxh3_64(&buf) ^ size as u64)
}

fn read_prefix(path: &str, size: i64) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; size as usize];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// After stdio was flushed: each open file's position and state, and every
/// written file's length and content or fingerprint.
pub fn snapshot() -> (Vec<Saved>, Vec<Written>) {
    let mut open = Vec::new();
    for e in table().iter() {
        let Some(st) = stat_fd(e.fd) else { continue };
        let pos = if e.stream != 0 {
            // SAFETY: a stream the program holds open (in the table until
            // fclose).
            unsafe { libc::ftello(e.stream as *mut libc::FILE) }
        } else {
            // SAFETY: lseek on a descriptor number.
            unsafe { libc::lseek(e.fd, 0, libc::SEEK_CUR) }
        };
        let regular = st.st_mode & libc::S_IFMT == libc::S_IFREG;
        open.push(Saved { e: e.clone(), pos: pos.max(0), size: st.st_size, mtime_ns: mtime_ns(&st), regular });
    }
    let paths = WRITTEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut written = Vec::new();
    for p in paths {
        let Ok(md) = std::fs::metadata(&p) else { continue };
        if !md.is_file() {
            continue;
        }
        let size = md.len() as i64;
        let content = if size <= SAVE_MAX { read_prefix(&p, size) } else { None };
        let fingerprint = if content.is_some() { 0 } else { fingerprint(&p, size).unwrap_or(0) };
        written.push(Written { path: p, size, fingerprint, content });
    }
    (open, written)
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    if s.len() % 2 != 0 {
        return None;
    }
    let b: Option<Vec<u8>> = (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect();
    String::from_utf8(b?).ok()
}

/// The checkpoint's table: one line per open file,
/// `F fd group stream flags pos size mtime regular mode path`, and per written
/// file `W size fingerprint content_len path` followed by content_len raw
/// bytes (-1: none); mode and paths hex-encoded.
pub fn encode(open: &[Saved], written: &[Written]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in open {
        out.extend_from_slice(
            format!(
                "F {} {} {} {} {} {} {} {} {} {}\n",
                s.e.fd,
                s.e.group,
                s.e.stream,
                s.e.flags,
                s.pos,
                s.size,
                s.mtime_ns,
                s.regular as u8,
                if s.e.mode.is_empty() { "-".into() } else { hex(&s.e.mode) },
                hex(&s.e.path)
            )
            .as_bytes(),
        );
    }
    for w in written {
        let n = w.content.as_ref().map_or(-1, |c| c.len() as i64);
        out.extend_from_slice(format!("W {} {} {} {}\n", w.size, w.fingerprint, n, hex(&w.path)).as_bytes());
        if let Some(c) = &w.content {
            out.extend_from_slice(c);
        }
    }
    out
}

pub fn decode(mut b: &[u8]) -> Option<(Vec<Saved>, Vec<Written>)> {
    let (mut open, mut written) = (Vec::new(), Vec::new());
    while !b.is_empty() {
        let nl = b.iter().position(|&c| c == b'\n')?;
        let line = std::str::from_utf8(&b[..nl]).ok()?;
        b = &b[nl + 1..];
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "F" if w.len() == 11 => open.push(Saved {
                e: Entry {
                    fd: w[1].parse().ok()?,
                    group: w[2].parse().ok()?,
                    stream: w[3].parse().ok()?,
                    flags: w[4].parse().ok()?,
                    mode: if w[9] == "-" { String::new() } else { unhex(w[9])? },
                    path: unhex(w[10])?,
                    refuse: false,
                },
                pos: w[5].parse().ok()?,
                size: w[6].parse().ok()?,
                mtime_ns: w[7].parse().ok()?,
                regular: w[8] == "1",
            }),
            "W" if w.len() == 5 => {
                let n: i64 = w[3].parse().ok()?;
                let content = if n >= 0 {
                    let n = n as usize;
                    if b.len() < n {
                        return None;
                    }
                    let c = b[..n].to_vec();
                    b = &b[n..];
                    Some(c)
                } else {
                    None
                };
                written.push(Written { size: w[1].parse().ok()?, fingerprint: w[2].parse().ok()?, content, path: unhex(w[4])? });
            }
            _ => return None,
        }
    }
    Some((open, written))
}

// ---- at a restart ----

fn writable(flags: i32) -> bool {
    flags & libc::O_ACCMODE != libc::O_RDONLY
}

/// What is wrong with putting the open file `s` back now (nothing changed).
/// A written file whose content the checkpoint holds is always put back
/// (written anew), unless its path is now something else than a file.
pub fn check(s: &Saved, saved_whole: bool) -> Option<String> {
    if !s.regular {
        // a character device (/dev/null): reopened by name
        return std::fs::metadata(&s.e.path).is_err().then(|| format!("'{}' no longer exists", s.e.path));
    }
    let md = match std::fs::metadata(&s.e.path) {
        Ok(m) => m,
        Err(_) if saved_whole => return None,
        Err(_) => return Some(format!("'{}', open at the checkpoint, no longer exists (deleted or moved)", s.e.path)),
    };
    if !md.is_file() {
        return Some(format!("'{}', a regular file at the checkpoint, is no longer one (a directory or device now)", s.e.path));
    }
    use std::os::unix::fs::MetadataExt;
    let size = md.size() as i64;
    if writable(s.e.flags) {
        if size < s.size && !saved_whole {
            return Some(format!("'{}' is shorter than at the checkpoint ({size} bytes, was {}): what the program wrote before it is lost", s.e.path, s.size));
        }
    } else {
        let mt = md.mtime() * 1_000_000_000 + md.mtime_nsec();
        if size != s.size || mt != s.mtime_ns {
            return Some(format!(
                "the input file '{}' changed since the checkpoint ({} bytes, was {}; modified {}): the program read it up to byte {} and would go on with different data",
                s.e.path,
                size,
                s.size,
                if mt != s.mtime_ns { "since" } else { "no" },
                s.pos
            ));
        }
    }
    None
}

/// What is wrong with putting the written file `w` back (nothing changed).
pub fn check_written(w: &Written) -> Option<String> {
    match std::fs::metadata(&w.path) {
        Ok(md) if !md.is_file() => Some(format!("'{}', a file the program wrote, is no longer a regular file (a directory or device now)", w.path)),
        Ok(_) if w.content.is_some() => None,
        Ok(md) if (md.len() as i64) < w.size => Some(format!("'{}' is shorter than at the checkpoint ({} bytes, was {}): what the program wrote before it is lost", w.path, md.len(), w.size)),
        Ok(_) => (fingerprint(&w.path, w.size) != Some(w.fingerprint)).then(|| {
            format!("'{}' ({} bytes at the checkpoint, too long to be saved whole) was changed before its end since the checkpoint: the restart cannot undo that", w.path, w.size)
        }),
        Err(_) if w.content.is_some() => None,
        Err(_) => Some(format!("'{}', a file of {} bytes the program wrote, no longer exists (deleted or moved)", w.path, w.size)),
    }
}

/// Puts the written file `w` back as it was at the checkpoint.
fn put_back(w: &Written) -> Result<(), String> {
    match &w.content {
        Some(c) => std::fs::write(&w.path, c).map_err(|e| format!("cannot write '{}' back: {e}", w.path)),
        None => std::fs::OpenOptions::new()
            .write(true)
            .open(&w.path)
            .and_then(|f| f.set_len(w.size as u64))
            .map_err(|e| format!("cannot cut '{}' back to {} bytes: {e}", w.path, w.size)),
    }
}

/// Opens `s` on its descriptor at its position and, for a stream, rebuilds
/// the `FILE` at its address. Errors name the file.
/// `shared`: a descriptor already reopened for the same open file
/// description (dup), which this one duplicates instead of opening anew.
pub fn reopen(s: &Saved, shared: Option<c_int>) -> Result<(), String> {
    let e = &s.e;
    let cpath = std::ffi::CString::new(e.path.clone()).map_err(|_| format!("'{}': NUL in the path", e.path))?;
    let flags = e.flags & !(libc::O_CREAT | libc::O_TRUNC | libc::O_EXCL);
    let fd = match shared {
        Some(d) => real_dup(d),
        None => real_open(cpath.as_ptr(), flags, 0),
    };
    if fd < 0 {
        return Err(format!("cannot open '{}' again: {}", e.path, std::io::Error::last_os_error()));
    }
    if fd != e.fd {
        if stat_fd(e.fd).is_some() {
            real_close(fd);
            return Err(format!("cannot open '{}' again on descriptor {}: it is in use at the restart", e.path, e.fd));
        }
        if real_dup2(fd, e.fd) < 0 {
            real_close(fd);
            return Err(format!("cannot open '{}' again on descriptor {}: {}", e.path, e.fd, std::io::Error::last_os_error()));
        }
        real_close(fd);
    }
    if s.regular && shared.is_none() {
        // SAFETY: lseek on the descriptor just opened.
        unsafe { libc::lseek(e.fd, s.pos, libc::SEEK_SET) };
    }
    if e.stream != 0 {
        let mode = std::ffi::CString::new(e.mode.clone()).unwrap_or_else(|_| c"r".into());
        let f = with_redirect(e.stream, || real_fdopen(e.fd, mode.as_ptr()));
        if f as usize != e.stream {
            return Err(format!("cannot rebuild the stream of '{}' at its address {:#x}", e.path, e.stream));
        }
        if e.flags & libc::O_APPEND == 0 && s.regular {
            // SAFETY: the stream just rebuilt.
            unsafe { libc::fseeko(f as *mut libc::FILE, s.pos, libc::SEEK_SET) };
        }
    }
    table().retain(|x| x.fd != e.fd);
    table().push(e.clone());
    Ok(())
}

/// After the heap and globals of a checkpoint are back: every file checked,
/// then the written ones put back (whole, or cut back to their length),
/// files first written after the checkpoint cut back to their length before
/// that (the journal), and the open ones
/// reopened. A problem stops the restart before anything was changed.
pub fn restore(open: &[Saved], written: &[Written], checkpoint: &str) {
    let whole = |p: &str| written.iter().any(|w| w.path == p && w.content.is_some());
    let mut problems: Vec<String> = open.iter().filter_map(|s| check(s, whole(&s.e.path))).collect();
    problems.extend(written.iter().filter_map(check_written));
    if !problems.is_empty() {
        crate::diag::fatal(format_args!(
            "cannot resume {checkpoint}: {}; restore the file{} or remove the checkpoint directory to start over",
            problems.join("; "),
            if problems.len() == 1 { "" } else { "s" }
        ));
    }
    let later: Vec<(String, i64)> = read_journal().into_iter().filter(|(p, _)| !written.iter().any(|w| w.path == *p)).collect();
    let fail = |r: Result<(), String>| {
        if let Err(e) = r {
            crate::diag::fatal(format_args!("cannot resume {checkpoint}: {e}"));
        }
    };
    for w in written {
        fail(put_back(w));
    }
    for (p, size) in &later {
        if *size < 0 {
            let _ = std::fs::remove_file(p);
        } else if std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() as i64 > *size) {
            fail(std::fs::OpenOptions::new().write(true).open(p).and_then(|f| f.set_len(*size as u64)).map_err(|e| format!("cannot cut '{p}' back to {size} bytes: {e}")));
        }
    }
    {
        let mut w = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
        for x in written {
            if !w.contains(&x.path) {
                w.push(x.path.clone());
            }
        }
    }
    // descriptors made by dup share the first reopened one of their group
    let mut groups: Vec<(i32, c_int)> = Vec::new();
    for s in open {
        let shared = groups.iter().find(|(g, _)| *g == s.e.group).map(|(_, fd)| *fd);
        fail(reopen(s, shared));
        if shared.is_none() {
            groups.push((s.e.group, s.e.fd));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(path: &str, flags: i32) -> Saved {
        Saved { e: Entry { fd: 5, path: path.into(), flags, stream: 0x7000_0000_1000, mode: "a+".into(), group: 3, refuse: false }, pos: 17, size: 40, mtime_ns: 1_700_000_000_123_456_789, regular: true }
    }

    #[test]
    fn encode_decode_round_trip() {
        let open = vec![saved("/tmp/a b\u{e9}/out.txt", libc::O_WRONLY | libc::O_APPEND), Saved { e: Entry { mode: String::new(), stream: 0, ..saved("/x", 0).e }, ..saved("/x", 0) }];
        let written = vec![
            Written { path: "/tmp/w1".into(), size: 5, fingerprint: 0, content: Some(b"a\nb\n\0".to_vec()) },
            Written { path: "/tmp/big".into(), size: 1 << 30, fingerprint: 77, content: None },
        ];
        assert_eq!(decode(&encode(&open, &written)), Some((open, written)));
        assert_eq!(decode(b"F 1 2 3\n"), None);
        assert_eq!(decode(b"W 5 0 9 2f78\nabc"), None, "content cut short");
        assert_eq!(decode(b""), Some((vec![], vec![])));
    }

    #[test]
    fn checks_name_the_file_and_what_differs() {
        let d = std::env::temp_dir().join(format!("dao-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let out = d.join("out.txt");
        std::fs::write(&out, vec![b'x'; 40]).unwrap();
        let p = out.display().to_string();
        // written: as long or longer is fine, shorter is not (unless saved whole)
        assert_eq!(check(&saved(&p, libc::O_WRONLY), false), None);
        std::fs::write(&out, vec![b'x'; 30]).unwrap();
        let why = check(&saved(&p, libc::O_WRONLY), false).unwrap();
        assert!(why.contains(&p) && why.contains("shorter"), "{why}");
        assert_eq!(check(&saved(&p, libc::O_WRONLY), true), None);
        // read only: any change of size or time
        let why = check(&saved(&p, libc::O_RDONLY), false).unwrap();
        assert!(why.contains("input file") && why.contains(&p), "{why}");
        // deleted, replaced by a directory
        std::fs::remove_file(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY), false).unwrap().contains("no longer exists"));
        std::fs::create_dir(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY), true).unwrap().contains("no longer one"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A long written file: cut back when only appended to; a change before
    /// its end is found by the fingerprint.
    #[test]
    fn long_files_by_fingerprint() {
        let d = std::env::temp_dir().join(format!("dao-files-fp-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("big.bin");
        let data: Vec<u8> = (0..(300u32 << 10)).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&f, &data).unwrap();
        let p = f.display().to_string();
        let w = Written { path: p.clone(), size: data.len() as i64, fingerprint: fingerprint(&p, data.len() as i64).unwrap(), content: None };
        let mut more = data.clone();
        more.extend_from_slice(b"appended after the checkpoint");
        std::fs::write(&f, &more).unwrap();
        assert_eq!(check_written(&w), None);
        put_back(&w).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), data);
        let mut changed = data.clone();
        changed[data.len() - 10] ^= 1;
        std::fs::write(&f, &changed).unwrap();
        assert!(check_written(&w).unwrap().contains("changed before its end"));
        std::fs::write(&f, &data[..1000]).unwrap();
        assert!(check_written(&w).unwrap().contains("shorter"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
