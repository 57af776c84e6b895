//! The fixed-address stack user_main runs on.
//!
//! A restart rebuilds the recorded frames at their old addresses only if
//! user_main starts with the same stack pointer in every run, whatever the
//! environment size or ASLR: dao_main maps a stack whose top is at
//! `STACK_TOP` (MAP_FIXED_NOREPLACE, a PROT_NONE guard page below it) and
//! runs user_main on a thread whose stack is that mapping (so its TLS block
//! is at a fixed address as well).
use std::os::raw::{c_char, c_int, c_void};

use crate::diag::fatal;

/// Top (highest address) of the fixed stack; the heap is above it.
pub const STACK_TOP: usize = 0x0e00_0000_0000;
const GUARD: usize = 64 << 10;
/// The top of the stack holds a copy of argv (array and strings): the
/// kernel's copy sits at an address that changes with the environment and
/// ASLR, and a program may keep `argv[i]` in live data.
const ARGV_AREA: usize = 64 << 10;
const MIN_STACK: u64 = 64 << 20;
const UNLIMITED_STACK: u64 = 1 << 30;

pub type UserMain = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// Stack size: DAO_STACK_SIZE, else max(RLIMIT_STACK, 64 MiB), 1 GiB if unlimited.
pub fn stack_size(override_: Option<u64>) -> usize {
    let s = override_.unwrap_or_else(|| {
        let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct we pass.
        let r = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) };
        if r != 0 || rl.rlim_cur == libc::RLIM_INFINITY {
            UNLIMITED_STACK
        } else {
            rl.rlim_cur.max(MIN_STACK)
        }
    });
    (s as usize).next_multiple_of(4096).max(1 << 20)
}

struct Call {
    f: UserMain,
    argc: c_int,
    argv: *mut *mut c_char,
    envp: *mut *mut c_char,
    /// Run on the program's main thread after main returns (while the
    /// thread still exists: a background writer dies with it).
    after: fn(),
    ret: c_int,
}

extern "C" fn thread_main(arg: *mut c_void) -> *mut c_void {
    // SAFETY: `arg` is the Call owned by run_on_fixed_stack, alive until the join.
    let c = unsafe { &mut *(arg as *mut Call) };
    crate::omp::set_main_thread();
    // SAFETY: user_main is the program's main with its C signature.
    c.ret = unsafe { (c.f)(c.argc, c.argv, c.envp) };
    (c.after)();
    std::ptr::null_mut()
}

/// Maps the stack and runs `f(argc, argv, envp)` on it, then `after` on
/// the same thread.
pub fn run_on_fixed_stack(size: usize, f: UserMain, argc: c_int, argv: *mut *mut c_char, envp: *mut *mut c_char, after: fn()) -> c_int {
    if size >= STACK_TOP / 2 {
        fatal("DAO_STACK_SIZE is too large");
    }
    let lo = STACK_TOP - size - GUARD;
    // SAFETY: a fresh anonymous mapping at a fixed address that must be free
    // (MAP_FIXED_NOREPLACE never replaces an existing mapping).
    let p = unsafe {
        libc::mmap(
            lo as *mut c_void,
            size + GUARD,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as usize != lo {
        fatal(format_args!(
            "cannot map the fixed-address stack at {lo:#x}..{STACK_TOP:#x}: {} (is the address range in use, or DAO_STACK_SIZE too large?)",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: the lowest GUARD bytes of the mapping just created.
    unsafe { libc::mprotect(p, GUARD, libc::PROT_NONE) };
    let argv = copy_argv(argc, argv);
    let mut call = Call { f, argc, argv, envp, after, ret: 0 };
    // The program's main runs on a thread whose stack is this mapping (below
    // the argv area): glibc puts the thread's TLS block at the top of a
    // stack the caller provides, so the main thread's thread-local data
    // (threadprivate variables, errno) is at a fixed address too, unlike the
    // process's first thread, whose TLS the loader places at a random one.
    // The first thread waits for it; exit() from either ends the process.
    let stack_lo = lo + GUARD;
    let stack_len = STACK_TOP - ARGV_AREA - stack_lo;
    // SAFETY: plain pthread calls on a zeroed attribute object; the stack
    // range is the mapping made above, which lives until the process ends;
    // `call` outlives the thread (joined below).
    unsafe {
        let mut a: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut a);
        libc::pthread_attr_setstack(&mut a, stack_lo as *mut c_void, stack_len);
        let mut t: libc::pthread_t = 0;
        let r = crate::omp::create_thread(&mut t, &a, thread_main, &mut call as *mut Call as *mut c_void);
        libc::pthread_attr_destroy(&mut a);
        if r != 0 {
            fatal(format_args!("cannot start the main thread on the fixed-address stack: {}", std::io::Error::from_raw_os_error(r)));
        }
        libc::pthread_join(t, std::ptr::null_mut());
    }
    call.ret
}

/// Copies argv into the fixed area at the top of the stack (same arguments,
/// same addresses in every run). Arguments too large for the area are left
/// where the kernel put them, with a warning.
fn copy_argv(argc: c_int, argv: *mut *mut c_char) -> *mut *mut c_char {
    if argc <= 0 || argv.is_null() {
        return argv;
    }
    let n = argc as usize;
    // SAFETY: argv holds argc NUL-terminated strings (C main contract).
    let lens: Vec<usize> = (0..n).map(|i| unsafe { libc::strlen(*argv.add(i)) } + 1).collect();
    let total = (n + 1) * 8 + lens.iter().sum::<usize>();
    if total > ARGV_AREA - 64 {
        crate::diag::warn("the program's arguments exceed 64 KiB: argv is not at a fixed address, so pointers to it must not be live at a checkpoint");
        return argv;
    }
    let base = STACK_TOP - ARGV_AREA;
    let arr = base as *mut *mut c_char;
    let mut at = base + (n + 1) * 8;
    for (i, len) in lens.iter().enumerate() {
        // SAFETY: the area [base, STACK_TOP) is part of the fresh stack
        // mapping, the sizes were checked above, and the source string has
        // `len` bytes including its NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(*argv.add(i) as *const u8, at as *mut u8, *len);
            *arr.add(i) = at as *mut c_char;
        }
        at += len;
    }
    // SAFETY: as above; argv[argc] is NULL.
    unsafe { *arr.add(n) = std::ptr::null_mut() };
    arr
}

