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
fn libc_sym(cache: &AtomicUsize, name: &CStr) -> usize {
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

macro_rules! real {
    ($name:ident, $sym:literal, fn($($a:ident: $t:ty),*) -> $r:ty) => {
        #[allow(non_snake_case)]
        fn $name($($a: $t),*) -> $r {
            static C: AtomicUsize = AtomicUsize::new(0);
            let f = libc_sym(&C, $sym);
            // SAFETY: `f` is libc's function of this name, whose C prototype
            // is the one written here.
            unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> $r>(f)($($a),*) }
        }
    };
}

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
    let r = REDIRECT.try_with(|r| r.replace(0)).unwrap_or(0);
    match r {
        // SAFETY: glibc's allocator.
        0 => unsafe { la::__libc_malloc(n) },
        1 => crate::heap::with(|h| h.malloc(n)) as *mut c_void,
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

fn insert(e: Entry) {
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
        insert(Entry { fd, path: absolute(&cstr(path), libc::AT_FDCWD), flags: fd_flags(fd), stream: f as usize, mode: cstr(mode) });
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
        insert(Entry { fd, path: p, flags: fd_flags(fd), stream: g as usize, mode: cstr(mode) });
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
        insert(Entry { fd, path: absolute(&cstr(path), dirfd), flags, stream: 0, mode: String::new() });
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

/// Whether the program links the Fortran runtime (its units are files
/// opened with open(2) that dao cannot put back).
fn fortran_program() -> bool {
    crate::stdio::fortran_linked()
}

/// Why no checkpoint can be taken now, naming the file; None when every
/// open file can be put back.
pub fn cannot_restore() -> Option<String> {
    let t = table();
    let fortran = fortran_program();
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

/// After stdio was flushed: each open file's position and state, encoded
/// for the checkpoint ([`encode`]).
pub fn snapshot() -> Vec<Saved> {
    let t = table();
    let mut out = Vec::new();
    for e in t.iter() {
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
        out.push(Saved { e: e.clone(), pos: pos.max(0), size: st.st_size, mtime_ns: mtime_ns(&st), regular });
    }
    out
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

/// One line per file: `fd stream flags pos size mtime regular mode path`
/// (mode and path hex-encoded).
pub fn encode(v: &[Saved]) -> String {
    v.iter()
        .map(|s| {
            format!(
                "{} {} {} {} {} {} {} {} {}\n",
                s.e.fd,
                s.e.stream,
                s.e.flags,
                s.pos,
                s.size,
                s.mtime_ns,
                s.regular as u8,
                if s.e.mode.is_empty() { "-".into() } else { hex(&s.e.mode) },
                hex(&s.e.path)
            )
        })
        .collect()
}

pub fn decode(text: &str) -> Option<Vec<Saved>> {
    let mut out = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split(' ').collect();
        if w.len() != 9 {
            return None;
        }
        out.push(Saved {
            e: Entry {
                fd: w[0].parse().ok()?,
                stream: w[1].parse().ok()?,
                flags: w[2].parse().ok()?,
                mode: if w[7] == "-" { String::new() } else { unhex(w[7])? },
                path: unhex(w[8])?,
            },
            pos: w[3].parse().ok()?,
            size: w[4].parse().ok()?,
            mtime_ns: w[5].parse().ok()?,
            regular: w[6] == "1",
        });
    }
    Some(out)
}

// ---- at a restart ----

fn writable(flags: i32) -> bool {
    flags & libc::O_ACCMODE != libc::O_RDONLY
}

/// What is wrong with putting `s` back now, if anything (nothing changed).
pub fn check(s: &Saved) -> Option<String> {
    if !s.regular {
        // a character device (/dev/null): reopened by name
        return std::fs::metadata(&s.e.path).is_err().then(|| format!("'{}' no longer exists", s.e.path));
    }
    let md = match std::fs::metadata(&s.e.path) {
        Ok(m) => m,
        Err(_) => return Some(format!("'{}', open at the checkpoint, no longer exists (deleted or moved)", s.e.path)),
    };
    if !md.is_file() {
        return Some(format!("'{}', a regular file at the checkpoint, is no longer one (a directory or device now)", s.e.path));
    }
    use std::os::unix::fs::MetadataExt;
    let size = md.size() as i64;
    if writable(s.e.flags) {
        if size < s.size {
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

/// Puts `s` back: cuts a written file to its checkpointed length, opens it
/// on its descriptor at its position and, for a stream, rebuilds the `FILE`
/// at its address. Errors name the file.
pub fn reopen(s: &Saved) -> Result<(), String> {
    let e = &s.e;
    let cpath = std::ffi::CString::new(e.path.clone()).map_err(|_| format!("'{}': NUL in the path", e.path))?;
    if s.regular && writable(e.flags) {
        // SAFETY: truncate by path to the recorded length.
        if unsafe { libc::truncate(cpath.as_ptr(), s.size) } != 0 {
            return Err(format!("cannot cut '{}' back to {} bytes: {}", e.path, s.size, std::io::Error::last_os_error()));
        }
    }
    let flags = e.flags & !(libc::O_CREAT | libc::O_TRUNC | libc::O_EXCL);
    let fd = real_open(cpath.as_ptr(), flags, 0);
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
    if s.regular {
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
    insert(e.clone());
    Ok(())
}

/// After the heap and globals of a checkpoint are back: every file checked,
/// then reopened; a problem stops the restart (nothing was changed by the
/// checks).
pub fn restore(saved: &[Saved], checkpoint: &str) {
    let problems: Vec<String> = saved.iter().filter_map(check).collect();
    if !problems.is_empty() {
        crate::diag::fatal(format_args!(
            "cannot resume {checkpoint}: {}; restore the file{} or remove the checkpoint directory to start over",
            problems.join("; "),
            if problems.len() == 1 { "" } else { "s" }
        ));
    }
    for s in saved {
        if let Err(e) = reopen(s) {
            crate::diag::fatal(format_args!("cannot resume {checkpoint}: {e}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(path: &str, flags: i32) -> Saved {
        Saved { e: Entry { fd: 5, path: path.into(), flags, stream: 0x7000_0000_1000, mode: "a+".into() }, pos: 17, size: 40, mtime_ns: 1_700_000_000_123_456_789, regular: true }
    }

    #[test]
    fn encode_decode_round_trip() {
        let v = vec![saved("/tmp/a b\u{e9}/out.txt", libc::O_WRONLY | libc::O_APPEND), Saved { e: Entry { mode: String::new(), stream: 0, ..saved("/x", 0).e }, ..saved("/x", 0) }];
        assert_eq!(decode(&encode(&v)), Some(v));
        assert_eq!(decode("1 2 3\n"), None);
        assert_eq!(decode(""), Some(vec![]));
    }

    #[test]
    fn checks_name_the_file_and_what_differs() {
        let d = std::env::temp_dir().join(format!("dao-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let out = d.join("out.txt");
        std::fs::write(&out, vec![b'x'; 40]).unwrap();
        let p = out.display().to_string();
        // written: as long or longer is fine, shorter is not
        assert_eq!(check(&saved(&p, libc::O_WRONLY)), None);
        std::fs::write(&out, vec![b'x'; 30]).unwrap();
        let why = check(&saved(&p, libc::O_WRONLY)).unwrap();
        assert!(why.contains(&p) && why.contains("shorter"), "{why}");
        // read only: any change of size or time
        let why = check(&saved(&p, libc::O_RDONLY)).unwrap();
        assert!(why.contains("input file") && why.contains(&p), "{why}");
        // deleted, replaced by a directory
        std::fs::remove_file(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY)).unwrap().contains("no longer exists"));
        std::fs::create_dir(&out).unwrap();
        assert!(check(&saved(&p, libc::O_WRONLY)).unwrap().contains("no longer one"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
