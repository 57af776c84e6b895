//! Synchronous signals in a replica, and the jump out of it: SIGSEGV,
//! SIGBUS, SIGFPE and SIGILL raised while an execution runs end that
//! execution (the handler jumps back to where it started, through a
//! hand-written setjmp/longjmp pair that Rust sees as a call); raised
//! elsewhere they get the action they had before.
//!
//! The pair is x86-64 only; elsewhere a crash in a replica kills the
//! process as before. The frames a jump skips are the replica's (C) and the
//! hooks' (no destructors, no locks held while program memory is touched).
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// Callee-saved registers, stack pointer and return address of
/// `dao_ft_call_protected` (x86-64).
pub(super) type JmpBuf = [u64; 8];

/// What the handler asks first: the running execution's catch, which
/// jumps out of it when the signal is its own (and returns otherwise).
static CATCH: OnceLock<fn(i32)> = OnceLock::new();

/// Install the handlers; `catch` is called with the signal first.
pub(super) fn install_handlers(catch: fn(i32)) {
    let _ = CATCH.set(catch);
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL] {
        // SAFETY: a plain sigaction with an extern "C" handler; the old
        // action is kept for signals outside replicas.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fault as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &sa, &mut old) == 0 {
                OLD[sig as usize].store(Box::into_raw(Box::new(old)) as usize as u64, Relaxed);
            }
        }
    }
}

static OLD: [AtomicU64; 32] = [const { AtomicU64::new(0) }; 32];

extern "C" fn on_fault(sig: i32, _info: *mut libc::siginfo_t, _ctx: *mut c_void) {
    if let Some(catch) = CATCH.get() {
        catch(sig);
    }
    // not a replica's: the previous action, and the instruction runs again
    let old = OLD[sig as usize & 31].load(Relaxed) as usize as *const libc::sigaction;
    // SAFETY: the action saved at install (or the default one).
    unsafe {
        if old.is_null() {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        } else {
            libc::sigaction(sig, old, std::ptr::null_mut());
        }
    }
}

// ---- the protected call: a setjmp/longjmp pair that Rust sees as a call ----

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".globl __dao_ft_call_protected",
    ".hidden __dao_ft_call_protected",
    ".type __dao_ft_call_protected,@function",
    "__dao_ft_call_protected:",
    // rdi: fn(arg), rsi: arg, rdx: buffer of 8 words
    "mov [rdx], rbx",
    "mov [rdx+8], rbp",
    "mov [rdx+16], r12",
    "mov [rdx+24], r13",
    "mov [rdx+32], r14",
    "mov [rdx+40], r15",
    "lea rax, [rsp+8]",
    "mov [rdx+48], rax",
    "mov rax, [rsp]",
    "mov [rdx+56], rax",
    "mov rax, rdi",
    "mov rdi, rsi",
    "sub rsp, 8",
    "call rax",
    "add rsp, 8",
    "xor eax, eax",
    "ret",
    ".size __dao_ft_call_protected, .-__dao_ft_call_protected",
    ".globl __dao_ft_jump",
    ".hidden __dao_ft_jump",
    ".type __dao_ft_jump,@function",
    "__dao_ft_jump:",
    "mov rbx, [rdi]",
    "mov rbp, [rdi+8]",
    "mov r12, [rdi+16]",
    "mov r13, [rdi+24]",
    "mov r14, [rdi+32]",
    "mov r15, [rdi+40]",
    "mov rsp, [rdi+48]",
    "mov eax, 1",
    "jmp qword ptr [rdi+56]",
    ".size __dao_ft_jump, .-__dao_ft_jump",
);

#[cfg(target_arch = "x86_64")]
extern "C" {
    /// Calls `f(arg)`, returns 0; returns 1 when `__dao_ft_jump(buf)` is
    /// called below it.
    #[link_name = "__dao_ft_call_protected"]
    pub(super) fn dao_ft_call_protected(f: extern "C" fn(*mut c_void), arg: *mut c_void, buf: *mut u64) -> i32;
    #[link_name = "__dao_ft_jump"]
    fn dao_ft_jump(buf: *const u64) -> !;
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn dao_ft_call_protected(f: extern "C" fn(*mut c_void), arg: *mut c_void, _buf: *mut u64) -> i32 {
    f(arg);
    0
}

/// Back to the `dao_ft_call_protected` that filled `buf`.
///
/// # Safety
/// That call is still running on this thread; the frames between hold no
/// destructors to run.
pub(super) unsafe fn jump(buf: &JmpBuf) -> ! {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: see above.
    unsafe {
        dao_ft_jump(buf.as_ptr())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = buf;
        std::process::abort()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_call_returns_after_a_jump() {
        extern "C" fn body(arg: *mut c_void) {
            // SAFETY: the test's buffer.
            unsafe { jump(&*(arg as *const JmpBuf)) }
        }
        extern "C" fn plain(_: *mut c_void) {}
        let mut buf: JmpBuf = [0; 8];
        let p = buf.as_mut_ptr();
        // SAFETY: body jumps back into this very call.
        let r = unsafe { dao_ft_call_protected(body, p as *mut c_void, p) };
        assert_eq!(r, if cfg!(target_arch = "x86_64") { 1 } else { 0 });
        // SAFETY: a plain call.
        assert_eq!(unsafe { dao_ft_call_protected(plain, std::ptr::null_mut(), p) }, 0);
    }
}
