//! All of the driver's `unsafe` code: the few POSIX calls std does not wrap
//! (signal handlers for `dao run`, sending a signal, the user id).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The pid of the program `dao run` is waiting for (0: none).
static CHILD_PID: AtomicI32 = AtomicI32::new(0);
/// Set when dao itself received SIGINT/SIGTERM/SIGHUP/SIGQUIT: the user (or a
/// batch system) wants the run to stop, so a program dying from it must not
/// be restarted.
static STOP_REQUESTED: AtomicI32 = AtomicI32::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    STOP_REQUESTED.store(sig, Ordering::SeqCst);
    let pid = CHILD_PID.load(Ordering::SeqCst);
    // Ctrl-C already reached the child through the terminal's process group;
    // forward the signals that are typically sent to dao alone.
    if pid > 0 && (sig == libc::SIGTERM || sig == libc::SIGHUP) {
        // SAFETY: kill(2) is async-signal-safe; pid is our child's.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Install the stop handlers (idempotent). exec(2) resets handled signals to
/// their defaults, so the program being run is unaffected.
pub fn install_stop_handlers() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: a zeroed sigaction is valid; the handler only touches
        // atomics and calls kill(2), both async-signal-safe.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub fn set_child(pid: u32) {
    CHILD_PID.store(pid as i32, Ordering::SeqCst);
}

pub fn clear_child() {
    CHILD_PID.store(0, Ordering::SeqCst);
}

/// The signal that asked dao to stop, if any.
pub fn stop_requested() -> Option<i32> {
    match STOP_REQUESTED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

pub fn uid() -> u32 {
    // SAFETY: getuid(2) cannot fail and has no preconditions.
    unsafe { libc::getuid() }
}

/// A signal's conventional name ("SIGKILL"), for messages.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}
