//! Standard output and error around checkpoints.
//!
//! Before a checkpoint, C stdio and Fortran unit 6 are flushed and the file
//! offsets of fd 1 and fd 2 are recorded when they are regular files. At
//! restart each such file is cut back to its recorded offset (when it is at
//! least that long), so output appended across a crash and a restart equals
//! the output of an uninterrupted run.
//!
//! The flang runtime is reached through weak references (resolved to 0 when
//! the program does not link it); Rust cannot declare weak symbols on stable,
//! so a few lines of assembly emit a table holding their addresses.

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
);

extern "C" {
    static dao_rt_fortran_hooks: [usize; 2];
}

type BeginFlush = unsafe extern "C" fn(unit: i32, file: *const libc::c_char, line: i32) -> *mut libc::c_void;
type EndIo = unsafe extern "C" fn(cookie: *mut libc::c_void) -> i32;

/// Whether the program links flang's runtime.
pub fn fortran_linked() -> bool {
    // SAFETY: reading the table emitted above.
    unsafe { std::ptr::addr_of!(dao_rt_fortran_hooks).read_volatile()[0] != 0 }
}

/// Flushes C stdio and, when linked, the Fortran runtime's unit 6.
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
