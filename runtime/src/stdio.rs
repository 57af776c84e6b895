//! Standard output and error around checkpoints.
//!
//! Before a checkpoint, C stdio and Fortran unit 6 are flushed and the file
//! offsets of fd 1 and fd 2 are recorded when they are regular files. At
//! restart each such file is cut back to its recorded offset (when it is at
//! least that long), so output appended across a crash and a restart equals
//! the output of an uninterrupted run. A fresh start records the same for
//! the start of the run (`DAO_DIR/started`, [`streams_now`]): a run stopped
//! before its first checkpoint is started again from its beginning, and
//! [`cut_back_to_start`] cuts what it wrote.
//!
//! The flang runtime is reached through weak references (resolved to 0 when
//! the program does not link it); Rust cannot declare weak symbols on stable,
//! so a few lines of assembly emit a table holding their addresses. C++'s
//! `std::cout`, `std::cerr` and `std::clog` the same way (libstdc++, linked
//! by `dao c++`): with the default `sync_with_stdio(true)` they write through
//! C stdio, after `std::ios::sync_with_stdio(false)` into buffers of their
//! own, which `std::ostream::flush()` empties before a checkpoint.

core::arch::global_asm!(
    ".weak _FortranAioBeginFlush",
    ".weak _FortranAioEndIoStatement",
    ".pushsection .data.dao_rt_fortran_hooks,\"aw\"",
    ".balign 8",
    ".globl dao_rt_fortran_hooks",
    ".hidden dao_rt_fortran_hooks",
    "dao_rt_fortran_hooks:",
    ".8byte _FortranAioBeginFlush",
    ".8byte _FortranAioEndIoStatement",
    ".popsection",
    ".weak _ZSt4cout",
    ".weak _ZSt4cerr",
    ".weak _ZSt4clog",
    ".weak _ZNSo5flushEv",
    ".pushsection .data.dao_rt_cxx_hooks,\"aw\"",
    ".balign 8",
    ".globl dao_rt_cxx_hooks",
    ".hidden dao_rt_cxx_hooks",
    "dao_rt_cxx_hooks:",
    ".8byte _ZNSo5flushEv",
    ".8byte _ZSt4cout",
    ".8byte _ZSt4cerr",
    ".8byte _ZSt4clog",
    ".popsection",
);

extern "C" {
    static dao_rt_fortran_hooks: [usize; 2];
    static dao_rt_cxx_hooks: [usize; 4];
}

/// `std::ostream::flush()`.
type OstreamFlush = unsafe extern "C-unwind" fn(os: *mut libc::c_void) -> *mut libc::c_void;

type BeginFlush = unsafe extern "C" fn(unit: i32, file: *const libc::c_char, line: i32) -> *mut libc::c_void;
type EndIo = unsafe extern "C" fn(cookie: *mut libc::c_void) -> i32;

/// Whether the program links flang's runtime.
pub fn fortran_linked() -> bool {
    // SAFETY: reading the table emitted above.
    unsafe { std::ptr::addr_of!(dao_rt_fortran_hooks).read_volatile()[0] != 0 }
}

/// Flushes C stdio and, when linked, the Fortran runtime's unit 6 and
/// C++'s standard streams.
pub fn flush_all() {
    // SAFETY: reading the table emitted above; a nonzero entry is the address
    // of the flang runtime function with the declared signature.
    unsafe {
        let [begin, end] = std::ptr::addr_of!(dao_rt_fortran_hooks).read_volatile();
        if begin != 0 && end != 0 {
            let begin: BeginFlush = std::mem::transmute(begin);
            let end: EndIo = std::mem::transmute(end);
            let cookie = begin(6, c"dao runtime".as_ptr(), 0);
            if !cookie.is_null() {
                end(cookie);
            }
        }
        // C++ streams (their own buffers after sync_with_stdio(false))
        // before C stdio, which they may write through
        let [flush, streams @ ..] = std::ptr::addr_of!(dao_rt_cxx_hooks).read_volatile();
        if flush != 0 {
            let flush: OstreamFlush = std::mem::transmute(flush);
            // a stream not constructed yet (zero bytes, no vtable pointer:
            // libstdc++ before GCC 13 constructs the standard streams only
            // in programs that include <iostream>) is left alone
            for os in streams.into_iter().filter(|&a| a != 0 && (a as *const usize).read_volatile() != 0) {
                flush(os as *mut libc::c_void);
            }
        }
        libc::fflush(std::ptr::null_mut());
    }
}

/// Offset of `fd` when it is a regular file, else -1.
pub fn offset(fd: i32) -> i64 {
    // SAFETY: fstat/lseek on a descriptor number; failures are reported as -1.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 || (st.st_mode & libc::S_IFMT) != libc::S_IFREG {
            return -1;
        }
        libc::lseek(fd, 0, libc::SEEK_CUR)
    }
}

/// Cuts the regular file on `fd` back to `off` and seeks there, when it is
/// at least `off` bytes long. Returns whether it did.
pub fn rewind_to(fd: i32, off: i64) -> bool {
    if off < 0 {
        return false;
    }
    // SAFETY: as in offset().
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 || (st.st_mode & libc::S_IFMT) != libc::S_IFREG || st.st_size < off {
            return false;
        }
        libc::ftruncate(fd, off) == 0 && libc::lseek(fd, off, libc::SEEK_SET) == off
    }
}

/// The regular files fd 1 and fd 2 write to now: identity and offset (for
/// the `started` record of a fresh run).
pub fn streams_now() -> Vec<dao_format::StreamStart> {
    let mut out = Vec::new();
    for fd in [1, 2] {
        // SAFETY: fstat on a descriptor number into a zeroed stat.
        let st = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 || (st.st_mode & libc::S_IFMT) != libc::S_IFREG {
                continue;
            }
            st
        };
        let off = offset(fd);
        if off >= 0 {
            out.push(dao_format::StreamStart { fd, dev: st.st_dev, ino: st.st_ino, offset: off });
        }
    }
    out
}

/// Cuts each stream of `rec` that still writes to the same regular file
/// (same device and inode) back to its recorded offset; returns the bytes
/// cut per descriptor.
pub fn cut_back_to_start(rec: &dao_format::Started) -> Vec<(i32, u64)> {
    let mut out = Vec::new();
    for x in &rec.streams {
        // SAFETY: as in streams_now().
        let size = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(x.fd, &mut st) != 0 || (st.st_mode & libc::S_IFMT) != libc::S_IFREG || st.st_dev != x.dev || st.st_ino != x.ino {
                continue;
            }
            st.st_size
        };
        if size > x.offset && rewind_to(x.fd, x.offset) {
            out.push((x.fd, (size - x.offset) as u64));
        }
    }
    out
}
