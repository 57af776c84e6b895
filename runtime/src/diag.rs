//! Diagnostics: every line the runtime prints goes through here, prefixed
//! `dao: `. Fatal errors print `dao: error: ...` and exit with status 3
//! without marking the run finished.
use std::collections::HashSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Exit status of every fatal runtime error.
pub const FATAL_STATUS: i32 = 3;

/// Set once a fatal error is being reported: the exit hook must not mark
/// the run finished.
pub static FATAL: AtomicBool = AtomicBool::new(false);

static WARNED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn emit(line: &str) {
    // One write per line so that lines of concurrent writers do not mix.
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `dao: error: MSG`, then exit(3).
pub fn fatal(msg: impl std::fmt::Display) -> ! {
    FATAL.store(true, Ordering::SeqCst);
    crate::stdio::flush_all();
    emit(&format!("dao: error: {msg}\n"));
    std::process::exit(FATAL_STATUS)
}

/// `dao: warning: MSG`
pub fn warn(msg: impl std::fmt::Display) {
    emit(&format!("dao: warning: {msg}\n"));
}

/// Like [`warn`], but each distinct `key` is reported once per process.
pub fn warn_once(key: &str, msg: impl std::fmt::Display) {
    let mut g = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if g.get_or_insert_with(HashSet::new).insert(key.to_string()) {
        drop(g);
        warn(msg);
    }
}

/// `dao: MSG` (informational: verbose mode, restart notice).
pub fn info(msg: impl std::fmt::Display) {
    emit(&format!("dao: {msg}\n"));
}

/// In a background writer child (background.rs sets it): the pid of the
/// program it writes for; 0 elsewhere.
pub static WRITER_OF: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// SIGKILL to the program (crash injection for tests): this process, and
/// when called in a background writer, the program it writes for first
/// (the job dies while its checkpoint is being written).
pub fn kill_self() -> ! {
    let parent = WRITER_OF.load(Ordering::Relaxed);
    if parent != 0 {
        // SAFETY: SIGKILL to the program this writer was forked from.
        unsafe { libc::kill(parent, libc::SIGKILL) };
    }
    kill_this_process()
}

/// SIGKILL to this process only.
pub fn kill_this_process() -> ! {
    // SAFETY: sending SIGKILL to ourselves; it does not return.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}
