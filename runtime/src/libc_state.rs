//! State the C library keeps for the program, which a restart must put back
//! (issue #31's audit): the `rand`/`random` generator, the `drand48`
//! generator, `strtok`'s position, environment changes (`setenv`,
//! `unsetenv`, `putenv`), signal handlers (`signal`, `sigaction`) and the
//! main thread's signal mask.
//!
//! A restart re-enters `main` past the code that set these up, in a process
//! whose libc starts afresh: without this a program seeded with `srand(s)`
//! draws other numbers after a restart, silently. The generators' states
//! are read through libc's own interfaces at each checkpoint (`initstate`/
//! `setstate`: switching states makes glibc write the current position into
//! the word before the state array; `seed48` returns the current 48-bit
//! value) and written back the same way. `strtok` is routed to `strtok_r`
//! with its position in the runtime's module, whose globals every
//! checkpoint holds (the position points into the program's buffer, which
//! is restored at its address). Environment changes and signal handlers are
//! recorded as the program makes them (`--wrap`) and made again, in order,
//! at a restart; handlers must be functions of the executable (same
//! addresses), others are named in a warning and left out.
use std::ffi::{c_char, c_int, CStr};
use std::sync::Mutex;

/// What a checkpoint holds of libc's state (part of the runtime module's
/// global, process.rs).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Saved {
    /// `random`'s state: the header word (type and position) and up to 63
    /// words of state, `random_words` of them valid; 0: not read.
    random_words: u32,
    /// Address of the state's header word: the program's own (initstate
    /// with its buffer: restored at its address) or libc's (then the
    /// fresh one's).
    random_at: usize,
    random: [i32; 64],
    drand48: [u16; 3],
    drand48_valid: u16,
    /// `strtok`'s position (strtok_r's save pointer).
    pub strtok: *mut c_char,
    /// The main thread's signal mask at the checkpoint.
    sigmask: [u64; 16],
    sigmask_valid: u64,
}

impl Saved {
    pub const fn new() -> Saved {
        Saved { random_words: 0, random_at: 0, random: [0; 64], drand48: [0; 3], drand48_valid: 0, strtok: std::ptr::null_mut(), sigmask: [0; 16], sigmask_valid: 0 }
    }
}

impl Default for Saved {
    fn default() -> Self {
        Self::new()
    }
}

extern "C" {
    fn initstate(seed: u32, state: *mut c_char, n: usize) -> *mut c_char;
    fn setstate(state: *mut c_char) -> *mut c_char;
    fn seed48(v: *mut u16) -> *mut u16;
}

/// glibc's random types (TYPE_0..TYPE_4) and their degrees.
const DEGREES: [usize; 5] = [0, 7, 15, 31, 63];

/// Reads `random`'s state without changing it.
fn read_random(s: &mut Saved) {
    let mut dummy = [0i32; 33];
    // SAFETY: initstate switches to `dummy` (128 bytes from its second
    // word: a header word and 31 words of state) and returns the old
    // state's header word, into which it has just written the old type and
    // position, the state words following it; setstate switches back,
    // reading that header. Between the two, the old words are plain memory.
    unsafe {
        let old = initstate(1, dummy.as_mut_ptr().add(1) as *mut c_char, 128) as *mut i32;
        if old.is_null() {
            return;
        }
        let head = *old;
        let deg = DEGREES[(head.rem_euclid(5)) as usize];
        for k in 0..=deg {
            s.random[k] = *old.add(k);
        }
        s.random_words = 1 + deg as u32;
        s.random_at = old as usize;
        setstate(old as *mut c_char);
    }
}

fn write_random(s: &Saved, own: impl Fn(usize) -> bool) {
    if s.random_words == 0 {
        return;
    }
    let mut dummy = [0i32; 33];
    // SAFETY: as in read_random; the target array is the program's (its
    // restored buffer, at its address) or libc's current one, with room for
    // the degree the saved type word names.
    unsafe {
        let cur = initstate(1, dummy.as_mut_ptr().add(1) as *mut c_char, 128) as *mut i32;
        let target = if own(s.random_at) { s.random_at as *mut i32 } else { cur };
        for k in 0..s.random_words as usize {
            *target.add(k) = s.random[k];
        }
        setstate(target as *mut c_char);
    }
}

/// Reads what a checkpoint saves of libc's state (the calling thread: the
/// one taking the checkpoint, the main thread).
pub fn capture(s: &mut Saved) {
    read_random(s);
    let mut tmp = [0u16; 3];
    // SAFETY: seed48 stores `tmp` as the new value and returns its copy of
    // the old one; the second call puts the old value back (and the
    // default multiplier, which only lcong48 changes).
    unsafe {
        let old = seed48(tmp.as_mut_ptr());
        s.drand48.copy_from_slice(std::slice::from_raw_parts(old, 3));
        tmp = s.drand48;
        seed48(tmp.as_mut_ptr());
    }
    s.drand48_valid = 1;
    // SAFETY: reading this thread's mask into a sigset_t-sized buffer.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        if libc::pthread_sigmask(libc::SIG_SETMASK, std::ptr::null(), &mut set) == 0 {
            std::ptr::copy_nonoverlapping(&set as *const _ as *const u8, s.sigmask.as_mut_ptr() as *mut u8, std::mem::size_of::<libc::sigset_t>().min(128));
            s.sigmask_valid = 1;
        }
    }
}

/// Puts libc's state back at a restart (`own`: whether an address is the
/// program's memory, restored at it).
pub fn restore(s: &Saved, own: impl Fn(usize) -> bool) {
    write_random(s, own);
    if s.drand48_valid != 0 {
        let mut v = s.drand48;
        // SAFETY: seed48 with a 3-element array.
        unsafe { seed48(v.as_mut_ptr()) };
    }
    replay_env();
    replay_signals();
    if s.sigmask_valid != 0 {
        // SAFETY: a sigset_t read by capture() in a process of the same
        // executable and libc.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            std::ptr::copy_nonoverlapping(s.sigmask.as_ptr() as *const u8, &mut set as *mut _ as *mut u8, std::mem::size_of::<libc::sigset_t>().min(128));
            libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        }
    }
}

// ---- environment and signals, recorded as the program changes them ----

#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Set(String, String),
    Unset(String),
    Clear,
    /// signal number, handler (address or SIG_DFL/SIG_IGN), sa_flags, sa_mask bytes
    Signal(i32, usize, i32, Vec<u8>),
}

static CHANGES: Mutex<Vec<Change>> = Mutex::new(Vec::new());

fn record(c: Change) {
    let mut v = CHANGES.lock().unwrap_or_else(|e| e.into_inner());
    // the last change of a name or signal is enough
    match &c {
        Change::Set(n, _) | Change::Unset(n) => v.retain(|x| !matches!(x, Change::Set(m, _) | Change::Unset(m) if m == n)),
        Change::Clear => v.retain(|x| matches!(x, Change::Signal(..))),
        Change::Signal(s, ..) => v.retain(|x| !matches!(x, Change::Signal(t, ..) if t == s)),
    }
    v.push(c);
}

fn s(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string from the program.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

pub fn note_setenv(name: *const c_char, value: *const c_char) {
    record(Change::Set(s(name), s(value)));
}
pub fn note_unsetenv(name: *const c_char) {
    record(Change::Unset(s(name)));
}
pub fn note_putenv(kv: *const c_char) {
    let t = s(kv);
    match t.split_once('=') {
        Some((k, v)) => record(Change::Set(k.into(), v.into())),
        None => record(Change::Unset(t)),
    }
}
pub fn note_clearenv() {
    record(Change::Clear);
}
/// A handler the program installed (after libc accepted it).
///
/// # Safety
/// `act` is NULL or points to a `sigaction` struct libc just read.
pub unsafe fn note_sigaction(sig: c_int, act: *const libc::sigaction) {
    if act.is_null() {
        return;
    }
    // SAFETY: the program's sigaction struct, which libc just read.
    let a = unsafe { &*act };
    // SAFETY: the bytes of a sigset_t.
    let mask = unsafe { std::slice::from_raw_parts(&a.sa_mask as *const _ as *const u8, std::mem::size_of::<libc::sigset_t>()) }.to_vec();
    record(Change::Signal(sig, a.sa_sigaction, a.sa_flags, mask));
}
/// The handler the program installed last for `sig` (recorded by the
/// wraps, or put back by a restart), if it installed one.
pub fn program_handler(sig: c_int) -> Option<usize> {
    CHANGES.lock().unwrap_or_else(|e| e.into_inner()).iter().rev().find_map(|c| match c {
        Change::Signal(s, h, ..) if *s == sig => Some(*h),
        _ => None,
    })
}
pub fn note_signal(sig: c_int, handler: usize) {
    record(Change::Signal(sig, handler, libc::SA_RESTART, vec![0; std::mem::size_of::<libc::sigset_t>()]));
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

/// The recorded changes, one per line (names and values hex-encoded).
pub fn encode() -> Vec<u8> {
    let v = CHANGES.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = String::new();
    for c in v.iter() {
        match c {
            Change::Set(n, val) => out.push_str(&format!("E {} {}\n", hex(n.as_bytes()), hex(val.as_bytes()))),
            Change::Unset(n) => out.push_str(&format!("U {}\n", hex(n.as_bytes()))),
            Change::Clear => out.push_str("C\n"),
            Change::Signal(sig, h, f, m) => out.push_str(&format!("S {sig} {h} {f} {}\n", hex(m))),
        }
    }
    out.into_bytes()
}

/// Takes the changes of a checkpoint as this process's record (a restart).
pub fn decode(b: &[u8]) -> Option<Vec<Change>> {
    let text = std::str::from_utf8(b).ok()?;
    let mut v = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split(' ').collect();
        let st = |x: &str| unhex(x).and_then(|b| String::from_utf8(b).ok());
        v.push(match w.as_slice() {
            ["E", n, val] => Change::Set(st(n)?, st(val)?),
            ["U", n] => Change::Unset(st(n)?),
            ["C"] => Change::Clear,
            ["S", sig, h, f, m] => Change::Signal(sig.parse().ok()?, h.parse().ok()?, f.parse().ok()?, unhex(m)?),
            _ => return None,
        });
    }
    Some(v)
}

/// Makes the checkpoint's changes this process's record, to be replayed.
pub fn set_changes(v: Vec<Change>) {
    *CHANGES.lock().unwrap_or_else(|e| e.into_inner()) = v;
}

extern "C" {
    static __executable_start: u8;
    static etext: u8;
}

fn replay_env() {
    let v = CHANGES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for c in v {
        match c {
            Change::Set(n, val) => std::env::set_var(n, val),
            Change::Unset(n) => std::env::remove_var(n),
            // SAFETY: clearenv, at restart, before the program runs again.
            Change::Clear => unsafe {
                libc::clearenv();
            },
            Change::Signal(..) => {}
        }
    }
}

fn replay_signals() {
    let v = CHANGES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let (lo, hi) = (std::ptr::addr_of!(__executable_start) as usize, std::ptr::addr_of!(etext) as usize);
    for c in v {
        let Change::Signal(sig, h, flags, mask) = c else { continue };
        let special = h == libc::SIG_DFL || h == libc::SIG_IGN;
        if !special && (h < lo || h >= hi) {
            crate::diag::warn(format_args!("the handler of signal {sig} at {h:#x} lies outside the executable: not installed again after the restart"));
            continue;
        }
        // SAFETY: a sigaction built from what the checkpointed run installed
        // (a handler of this executable, or SIG_DFL/SIG_IGN).
        unsafe {
            let mut a: libc::sigaction = std::mem::zeroed();
            a.sa_sigaction = h;
            a.sa_flags = flags;
            std::ptr::copy_nonoverlapping(mask.as_ptr(), &mut a.sa_mask as *mut _ as *mut u8, mask.len().min(std::mem::size_of::<libc::sigset_t>()));
            libc::sigaction(sig, &a, std::ptr::null_mut());
        }
    }
}

/// `strtok(s, delim)` with its position in `save` (the runtime module's).
///
/// # Safety
/// As strtok(3).
pub unsafe fn strtok(str: *mut c_char, delim: *const c_char, save: *mut *mut c_char) -> *mut c_char {
    // SAFETY: forwarded contract; `save` is the runtime's saved position.
    unsafe { libc::strtok_r(str, delim, save) }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_round_trip_and_keep_the_last_per_name() {
        set_changes(vec![]);
        record(Change::Set("A".into(), "1 2".into()));
        record(Change::Signal(2, 0x401000, 0, vec![0; 128]));
        record(Change::Set("A".into(), "3".into()));
        record(Change::Unset("B".into()));
        let v = decode(&encode()).unwrap();
        assert_eq!(v, vec![Change::Signal(2, 0x401000, 0, vec![0; 128]), Change::Set("A".into(), "3".into()), Change::Unset("B".into())]);
        set_changes(vec![]);
    }

    #[test]
    fn random_state_survives_a_read_and_a_write() {
        // SAFETY: libc's generator, in a test of its own process.
        unsafe { libc::srand(12345) };
        let mut s = Saved::new();
        capture(&mut s);
        let a: Vec<i32> = (0..5).map(|_| unsafe { libc::rand() }).collect();
        write_random(&s, |_| false);
        let b: Vec<i32> = (0..5).map(|_| unsafe { libc::rand() }).collect();
        assert_eq!(a, b, "the same numbers after the state was written back");
    }
}
