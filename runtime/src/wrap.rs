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

// Files the program opens (files/), from statically linked code
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

// libc state a restart must put back (libc_state.rs), and what it cannot
// (files/refuse.rs: pipes, sockets, popen, file mappings, children).
use crate::files::real as libc_fn;
libc_fn!(real_setenv, c"setenv", fn(n: *const c_char, v: *const c_char, o: c_int) -> c_int);
libc_fn!(real_unsetenv, c"unsetenv", fn(n: *const c_char) -> c_int);
libc_fn!(real_putenv, c"putenv", fn(kv: *mut c_char) -> c_int);
libc_fn!(real_clearenv, c"clearenv", fn() -> c_int);
libc_fn!(real_signal, c"signal", fn(s: c_int, h: usize) -> usize);
libc_fn!(real_sigaction, c"sigaction", fn(s: c_int, a: *const libc::sigaction, o: *mut libc::sigaction) -> c_int);
libc_fn!(real_getline, c"getline", fn(l: *mut *mut c_char, n: *mut usize, f: File) -> isize);
libc_fn!(real_getdelim, c"getdelim", fn(l: *mut *mut c_char, n: *mut usize, d: c_int, f: File) -> isize);
libc_fn!(real_pipe, c"pipe", fn(fds: *mut c_int) -> c_int);
libc_fn!(real_pipe2, c"pipe2", fn(fds: *mut c_int, fl: c_int) -> c_int);
libc_fn!(real_socket, c"socket", fn(d: c_int, t: c_int, p: c_int) -> c_int);
libc_fn!(real_socketpair, c"socketpair", fn(d: c_int, t: c_int, p: c_int, sv: *mut c_int) -> c_int);
libc_fn!(real_accept, c"accept", fn(s: c_int, a: *mut libc::sockaddr, l: *mut libc::socklen_t) -> c_int);
libc_fn!(real_mmap, c"mmap", fn(a: *mut c_void, l: usize, p: c_int, f: c_int, fd: c_int, o: libc::off_t) -> *mut c_void);
libc_fn!(real_munmap, c"munmap", fn(a: *mut c_void, l: usize) -> c_int);
libc_fn!(real_fork, c"fork", fn() -> libc::pid_t);

/// # Safety
/// setenv's contract: `n` and `v` are NUL-terminated strings (or NULL: EINVAL).
#[no_mangle]
pub unsafe extern "C" fn __wrap_setenv(n: *const c_char, v: *const c_char, o: c_int) -> c_int {
    // without overwrite, a name already set is left as it is
    // SAFETY: the program's NUL-terminated name (NULL is setenv's EINVAL).
    let unchanged = o == 0 && !n.is_null() && crate::config::env_has(unsafe { std::ffi::CStr::from_ptr(n) });
    let r = real_setenv(n, v, o);
    if r == 0 && !unchanged && !in_runtime() {
        crate::libc_state::note_setenv(n, v);
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_unsetenv(n: *const c_char) -> c_int {
    let r = real_unsetenv(n);
    if r == 0 && !in_runtime() {
        crate::libc_state::note_unsetenv(n);
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_putenv(kv: *mut c_char) -> c_int {
    let r = real_putenv(kv);
    if r == 0 && !in_runtime() {
        crate::libc_state::note_putenv(kv);
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_clearenv() -> c_int {
    let r = real_clearenv();
    if r == 0 && !in_runtime() {
        crate::libc_state::note_clearenv();
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_signal(s: c_int, h: usize) -> usize {
    if !in_runtime() && h != libc::SIG_ERR {
        // SAFETY: an all-zero sigaction is a valid value to fill in.
        let mut a: libc::sigaction = unsafe { std::mem::zeroed() };
        a.sa_sigaction = h;
        if let Some(old) = crate::batch::program_installs(s, Some(&a)) {
            // dao keeps the signal (the variable named it): not installed
            return old.sa_sigaction;
        }
    }
    let r = real_signal(s, h);
    if r != libc::SIG_ERR && !in_runtime() {
        crate::libc_state::note_signal(s, h);
    }
    r
}
/// # Safety
/// As sigaction(2).
#[no_mangle]
pub unsafe extern "C" fn __wrap_sigaction(s: c_int, a: *const libc::sigaction, o: *mut libc::sigaction) -> c_int {
    if !in_runtime() {
        // SAFETY: `a` is NULL or the program's sigaction struct.
        if let Some(old) = crate::batch::program_installs(s, unsafe { a.as_ref() }) {
            // dao keeps the signal (the variable named it): the program's
            // action is not installed; it sees what it last asked for
            if !o.is_null() {
                // SAFETY: `o` is the program's writable sigaction struct.
                unsafe { *o = old };
            }
            return 0;
        }
    }
    let r = real_sigaction(s, a, o);
    if r == 0 && !a.is_null() && !in_runtime() {
        // SAFETY: the struct libc just read.
        unsafe { crate::libc_state::note_sigaction(s, a) };
    }
    r
}
/// # Safety
/// As strtok(3).
#[no_mangle]
pub unsafe extern "C" fn __wrap_strtok(s: *mut c_char, d: *const c_char) -> *mut c_char {
    // SAFETY: forwarded contract.
    unsafe { crate::process::strtok(s, d) }
}
#[no_mangle]
pub extern "C" fn __wrap_getline(l: *mut *mut c_char, n: *mut usize, f: File) -> isize {
    crate::files::in_dao_heap(|| real_getline(l, n, f))
}
#[no_mangle]
pub extern "C" fn __wrap_getdelim(l: *mut *mut c_char, n: *mut usize, d: c_int, f: File) -> isize {
    crate::files::in_dao_heap(|| real_getdelim(l, n, d, f))
}
#[no_mangle]
pub extern "C" fn __wrap_popen(c: *const c_char, m: *const c_char) -> File {
    crate::files::popen(c, m)
}
#[no_mangle]
pub extern "C" fn __wrap_pclose(f: File) -> c_int {
    crate::files::pclose(f)
}
/// # Safety
/// As pipe(2).
#[no_mangle]
pub unsafe extern "C" fn __wrap_pipe(fds: *mut c_int) -> c_int {
    let r = real_pipe(fds);
    if r == 0 {
        // SAFETY: pipe wrote two descriptors.
        unsafe {
            crate::files::note_fd(*fds, "a pipe (pipe)");
            crate::files::note_fd(*fds.add(1), "a pipe (pipe)");
        }
    }
    r
}
/// # Safety
/// As pipe2(2).
#[no_mangle]
pub unsafe extern "C" fn __wrap_pipe2(fds: *mut c_int, fl: c_int) -> c_int {
    let r = real_pipe2(fds, fl);
    if r == 0 {
        // SAFETY: pipe2 wrote two descriptors.
        unsafe {
            crate::files::note_fd(*fds, "a pipe (pipe2)");
            crate::files::note_fd(*fds.add(1), "a pipe (pipe2)");
        }
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_socket(d: c_int, t: c_int, p: c_int) -> c_int {
    let fd = real_socket(d, t, p);
    crate::files::note_fd(fd, "a socket (socket)");
    fd
}
/// # Safety
/// As socketpair(2).
#[no_mangle]
pub unsafe extern "C" fn __wrap_socketpair(d: c_int, t: c_int, p: c_int, sv: *mut c_int) -> c_int {
    let r = real_socketpair(d, t, p, sv);
    if r == 0 {
        // SAFETY: socketpair wrote two descriptors.
        unsafe {
            crate::files::note_fd(*sv, "a socket (socketpair)");
            crate::files::note_fd(*sv.add(1), "a socket (socketpair)");
        }
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_accept(s: c_int, a: *mut libc::sockaddr, l: *mut libc::socklen_t) -> c_int {
    let fd = real_accept(s, a, l);
    crate::files::note_fd(fd, "a socket (accept)");
    fd
}
#[no_mangle]
pub extern "C" fn __wrap_mmap(a: *mut c_void, l: usize, p: c_int, f: c_int, fd: c_int, o: libc::off_t) -> *mut c_void {
    let r = real_mmap(a, l, p, f, fd, o);
    if r != libc::MAP_FAILED && fd >= 0 && f & libc::MAP_ANONYMOUS == 0 {
        crate::files::note_mapping(r as usize, l, fd);
    }
    r
}
#[no_mangle]
pub extern "C" fn __wrap_munmap(a: *mut c_void, l: usize) -> c_int {
    let r = real_munmap(a, l);
    if r == 0 {
        crate::files::note_unmapping(a as usize, l);
    }
    r
}
/// `fork` from the program: the child takes no checkpoints (it would write
/// the parent's DAO_DIR); the parent takes none while the child lives.
#[no_mangle]
pub extern "C" fn __wrap_fork() -> libc::pid_t {
    if in_runtime() {
        return real_fork();
    }
    let mask = crate::batch::block_for_fork(false);
    let pid = real_fork();
    if pid == 0 {
        crate::policy::disable();
        crate::batch::in_program_child();
    } else if pid > 0 {
        crate::files::note_child(pid);
    }
    crate::batch::unblock_after_fork(&mask);
    pid
}
libc_fn!(real_tmpfile, c"tmpfile", fn() -> File);
libc_fn!(real_fmemopen, c"fmemopen", fn(b: *mut c_void, n: usize, m: *const c_char) -> File);
libc_fn!(real_open_memstream, c"open_memstream", fn(b: *mut *mut c_char, n: *mut usize) -> File);
#[no_mangle]
pub extern "C" fn __wrap_tmpfile() -> File {
    let f = real_tmpfile();
    crate::files::note_unreopenable(f, "a temporary file (tmpfile)");
    f
}
#[no_mangle]
pub extern "C" fn __wrap_tmpfile64() -> File {
    __wrap_tmpfile()
}
#[no_mangle]
pub extern "C" fn __wrap_fmemopen(b: *mut c_void, n: usize, m: *const c_char) -> File {
    let f = real_fmemopen(b, n, m);
    crate::files::note_unreopenable(f, "an in-memory stream (fmemopen)");
    f
}
#[no_mangle]
pub extern "C" fn __wrap_open_memstream(b: *mut *mut c_char, n: *mut usize) -> File {
    let f = real_open_memstream(b, n);
    crate::files::note_unreopenable(f, "an in-memory stream (open_memstream)");
    f
}
#[no_mangle]
pub extern "C" fn __wrap___getdelim(l: *mut *mut c_char, n: *mut usize, d: c_int, f: File) -> isize {
    crate::files::in_dao_heap(|| real_getdelim(l, n, d, f))
}

// ---- C++: operator new and delete on the dao heap -------------------------
//
// Defined under their own (Itanium) names, not wrapped: a C++ program links
// `libdao_rt.a` before libstdc++, so the executable's definitions replace
// the library's for every caller -- instrumented code, uninstrumented
// objects, and libstdc++.so itself (std::string's buffers, locale facets),
// which calls them through the dynamic symbol table. `new`, `std::vector`,
// `std::unique_ptr` blocks are then dao heap blocks, restored at their
// addresses (docs/design.md section 20). A C program never references
// these names, so they stay out of its link. The runtime's own Rust code
// never calls them (it allocates through libc_alloc.rs).

/// operator new's failure: `std::bad_alloc`, thrown by libstdc++'s
/// `std::__throw_bad_alloc()` (found with dlsym, so the runtime needs no
/// C++ library); an abort where there is none.
fn throw_bad_alloc(size: u64) -> ! {
    // SAFETY: dlsym with a NUL-terminated name; the symbol, when present, is
    // `void std::__throw_bad_alloc()`, which never returns (it throws).
    unsafe {
        let f = libc::dlsym(libc::RTLD_DEFAULT, c"_ZSt17__throw_bad_allocv".as_ptr());
        if !f.is_null() {
            let throw: extern "C-unwind" fn() -> ! = std::mem::transmute(f);
            throw();
        }
    }
    crate::diag::fatal(format_args!("operator new({size}): out of memory in the dao heap"))
}

/// Whether operator new serves a shared library's own state from glibc:
/// before the program's constructors (libLLVM's and libomptarget's static
/// initializers, libstdc++'s), and while the runtime calls into a library
/// (libomptarget from offload/: its device tables). In the dao heap such
/// blocks would be re-created by the library in a restarted process before
/// the heap's state is put back, which then calls them free (offload:
/// libomptarget's unregistration freed a block "not allocated"). Their
/// deletes reach glibc through dao_free (not in the dao heap's region).
fn library_new() -> bool {
    crate::libc_alloc::in_runtime() || !crate::modules::any()
}

fn cxx_new(size: u64) -> *mut c_void {
    if library_new() {
        // SAFETY: glibc's malloc.
        let p = unsafe { la::__libc_malloc(size.max(1) as usize) };
        if p.is_null() {
            throw_bad_alloc(size);
        }
        return p;
    }
    let p = crate::entry::dao_malloc(size.max(1));
    if p.is_null() {
        throw_bad_alloc(size);
    }
    p
}

fn cxx_new_aligned(size: u64, align: u64) -> *mut c_void {
    if library_new() {
        // SAFETY: glibc's memalign.
        let p = unsafe { la::__libc_memalign(align.max(16) as usize, size.max(1) as usize) };
        if p.is_null() {
            throw_bad_alloc(size);
        }
        return p;
    }
    let p = crate::entry::dao_aligned_alloc(align.max(16), size.max(1).div_ceil(align.max(16)) * align.max(16));
    if p.is_null() {
        throw_bad_alloc(size);
    }
    p
}

/// `operator new(size_t)`
#[no_mangle]
pub extern "C-unwind" fn _Znwm(size: u64) -> *mut c_void {
    cxx_new(size)
}
/// `operator new[](size_t)`
#[no_mangle]
pub extern "C-unwind" fn _Znam(size: u64) -> *mut c_void {
    cxx_new(size)
}
/// `operator new(size_t, std::nothrow_t const&)`: null on failure.
#[no_mangle]
pub extern "C" fn _ZnwmRKSt9nothrow_t(size: u64, _nothrow: *const c_void) -> *mut c_void {
    if library_new() {
        // SAFETY: glibc's malloc.
        return unsafe { la::__libc_malloc(size.max(1) as usize) };
    }
    crate::entry::dao_malloc(size.max(1))
}
/// `operator new[](size_t, std::nothrow_t const&)`
#[no_mangle]
pub extern "C" fn _ZnamRKSt9nothrow_t(size: u64, _nothrow: *const c_void) -> *mut c_void {
    _ZnwmRKSt9nothrow_t(size, _nothrow)
}
/// `operator new(size_t, std::align_val_t)`
#[no_mangle]
pub extern "C-unwind" fn _ZnwmSt11align_val_t(size: u64, align: u64) -> *mut c_void {
    cxx_new_aligned(size, align)
}
/// `operator new[](size_t, std::align_val_t)`
#[no_mangle]
pub extern "C-unwind" fn _ZnamSt11align_val_t(size: u64, align: u64) -> *mut c_void {
    cxx_new_aligned(size, align)
}
/// `operator delete(void*)`; blocks from before the dao heap (none in a
/// program linked by `dao c++`) go back to the C library (dao_free).
///
/// # Safety
/// As operator delete: `p` is null or a block from operator new.
#[no_mangle]
pub unsafe extern "C" fn _ZdlPv(p: *mut c_void) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete[](void*)`
///
/// # Safety
/// As operator delete[].
#[no_mangle]
pub unsafe extern "C" fn _ZdaPv(p: *mut c_void) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete(void*, size_t)`
///
/// # Safety
/// As operator delete.
#[no_mangle]
pub unsafe extern "C" fn _ZdlPvm(p: *mut c_void, _size: u64) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete[](void*, size_t)`
///
/// # Safety
/// As operator delete[].
#[no_mangle]
pub unsafe extern "C" fn _ZdaPvm(p: *mut c_void, _size: u64) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete(void*, std::align_val_t)`
///
/// # Safety
/// As operator delete.
#[no_mangle]
pub unsafe extern "C" fn _ZdlPvSt11align_val_t(p: *mut c_void, _align: u64) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete[](void*, std::align_val_t)`
///
/// # Safety
/// As operator delete[].
#[no_mangle]
pub unsafe extern "C" fn _ZdaPvSt11align_val_t(p: *mut c_void, _align: u64) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete(void*, size_t, std::align_val_t)`
///
/// # Safety
/// As operator delete.
#[no_mangle]
pub unsafe extern "C" fn _ZdlPvmSt11align_val_t(p: *mut c_void, _size: u64, _align: u64) {
    unsafe { crate::entry::dao_free(p) }
}
/// `operator delete[](void*, size_t, std::align_val_t)`
///
/// # Safety
/// As operator delete[].
#[no_mangle]
pub unsafe extern "C" fn _ZdaPvmSt11align_val_t(p: *mut c_void, _size: u64, _align: u64) {
    unsafe { crate::entry::dao_free(p) }
}
