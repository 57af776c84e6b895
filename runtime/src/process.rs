//! Process state the program creates through libc that a restart must put
//! back: the handlers registered with `atexit`, and the files it holds open
//! (recorded by files/; this module keeps their description in the
//! checkpoint and reopens them at a restart).
//!
//! A restart re-enters `main` and jumps to the checkpoint's position, so the
//! code that ran before it -- an `atexit(report)` in an initialisation
//! routine -- does not run again, and libc's list of exit handlers would
//! be empty: the restarted run would end without the report (seen in
//! issue #31's audit). `dao cc`/`dao fc` link with `--wrap=atexit`; each
//! registration is recorded in a table at a fixed address, which is the one
//! global of a module the runtime registers itself ("dao runtime", no
//! instrumented functions, so the table is saved at every checkpoint like
//! the state of any module without markers). After a restart has written
//! the globals back, [`after_restore`] registers the recorded handlers
//! again, in their order, before the program goes on; handlers it
//! registers later are appended, so they run first at exit, as in an
//! uninterrupted run. Handlers are functions of the executable (non-PIE,
//! same addresses); one outside it (a shared library's, whose address
//! changes from run to run) is not registered again, with a warning.
use std::cell::UnsafeCell;
use std::ffi::c_char;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::abi::{DaoModuleDesc, DaoVarDesc};

/// Handlers recorded; a restart re-registers at most this many (POSIX
/// promises 32).
pub const MAX_ATEXIT: usize = 64;

#[repr(C)]
pub struct State {
    /// Handlers recorded (may exceed MAX_ATEXIT: those past it are lost).
    n_atexit: u64,
    atexit: [usize; MAX_ATEXIT],
    /// The open files at the last checkpoint (files/snapshot.rs, its encoding), in a
    /// dao-heap block: saved with the heap, found through this pointer.
    files: usize,
    files_len: u64,
    /// libc's state (libc_state.rs): generators, strtok, signal mask.
    pub libc: crate::libc_state::Saved,
    /// Environment and signal-handler changes (libc_state.rs, its
    /// encoding), in a dao-heap block like `files`.
    changes: usize,
    changes_len: u64,
    /// OMP_NUM_THREADS of the checkpointed run (0: unset). A restart with
    /// the same value keeps the team size the program set itself
    /// (omp_set_num_threads); another value asks for another team size.
    omp_env_threads: u32,
}

struct Cell(UnsafeCell<State>);
// SAFETY: written only under LOCK (registration) or by the restart before
// the program runs; read by the checkpoint as program memory.
unsafe impl Sync for Cell {}

static STATE: Cell = Cell(UnsafeCell::new(State { n_atexit: 0, atexit: [0; MAX_ATEXIT], files: 0, files_len: 0, libc: crate::libc_state::Saved::new(), changes: 0, changes_len: 0, omp_env_threads: 0 }));
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Desc<T>(T);
// SAFETY: constant descriptor data (pointers to the static above and to
// string literals).
unsafe impl<T> Sync for Desc<T> {}

static GLOBALS: Desc<[DaoVarDesc; 1]> = Desc([DaoVarDesc {
    name: c"dao.atexit_handlers".as_ptr() as *const c_char,
    loc: std::ptr::null(),
    size: std::mem::size_of::<State>() as u64,
    offset: 0,
    addr: STATE.0.get() as *mut u8,
}]);
static ESCAPED: [u32; 1] = [0];

/// The runtime's own module: a fixed hash no pass-computed module hash
/// takes (those are xxh3 of the module's identity).
pub const MODULE_HASH: u64 = 0xda0_da0_da0_0001;

static MODULE: Desc<DaoModuleDesc> = Desc(DaoModuleDesc {
    // no code of the program's here: nothing a non-blocking round must
    // guard (a module without the flag makes the runtime fall back to the
    // blocking protocol)
    flags: crate::abi::DAO_MODULE_GUARDED,
    module_hash: MODULE_HASH,
    source_name: c"dao runtime".as_ptr() as *const c_char,
    n_globals: 1,
    globals: GLOBALS.0.as_ptr(),
    n_escaped: 1,
    escaped_globals: ESCAPED.as_ptr(),
    ..DaoModuleDesc::EMPTY
});

/// Registers the runtime's module (at start, before a restart reads the
/// checkpoint's globals).
pub fn register() {
    crate::modules::register(&MODULE.0);
}

extern "C" {
    // what libc_nonshared's atexit calls: `__cxa_atexit(f, NULL,
    // __dso_handle)` (the executable's handle, from crtbegin.o)
    fn __cxa_atexit(f: extern "C" fn(), arg: *mut std::ffi::c_void, dso: *const u8) -> i32;
    static __dso_handle: u8;
}

/// Registers `f` with libc, as `atexit` does.
fn real_atexit(f: extern "C" fn()) -> i32 {
    // SAFETY: libc registers `f` to be called (with a NULL argument, which
    // a function of no parameters ignores) at exit; __dso_handle is the
    // executable's (only its address is taken).
    unsafe { __cxa_atexit(f, std::ptr::null_mut(), std::ptr::addr_of!(__dso_handle)) }
}

/// Registers the runtime's own exit hook with libc, not in the table: a
/// restart's process registers it itself (`dao_main`), and the table the
/// restart restores holds only the program's handlers (recorded, the hook
/// ran twice at the end of every restarted run: the run marked finished
/// and its DAO_STATS summary lines written twice).
pub fn runtime_atexit(f: extern "C" fn()) -> i32 {
    real_atexit(f)
}

/// The handlers this process registered before a restart restored the
/// table (constructors run before main: the OpenMP offload registration's
/// `atexit(descriptor_unreg)`, say). The restored table holds them too,
/// from the checkpointed run's own constructors: they are not registered a
/// second time (libomptarget's unregistration run twice crashes at exit).
static EARLY: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

/// `atexit(f)` from the program: recorded, then registered with libc.
pub fn atexit(f: extern "C" fn()) -> i32 {
    if !RESTORED.load(Ordering::SeqCst) {
        EARLY.lock().unwrap_or_else(|e| e.into_inner()).push(f as usize);
    }
    {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: under LOCK; the table is ours.
        let st = unsafe { &mut *STATE.0.get() };
        let k = st.n_atexit as usize;
        if k < MAX_ATEXIT {
            st.atexit[k] = f as usize;
        } else if k == MAX_ATEXIT {
            crate::diag::warn(format_args!("more than {MAX_ATEXIT} atexit handlers: those past the {MAX_ATEXIT}th are not registered again after a restart"));
        }
        st.n_atexit += 1;
    }
    real_atexit(f)
}

extern "C" {
    static __executable_start: u8;
    static etext: u8;
    /// The end of the executable's data and bss.
    static end: u8;
}

/// At a checkpoint, after stdio was flushed: the open files, described in
/// a dao-heap block the runtime's module points to (replacing the last
/// one), or a reason why no checkpoint can be taken now.
pub fn before_checkpoint() -> Result<(), String> {
    if let Some(why) = crate::files::cannot_restore() {
        return Err(why);
    }
    let (open, written) = crate::files::snapshot();
    let text = crate::files::encode(&open, &written);
    let changes = crate::libc_state::encode();
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: under LOCK; the table is ours.
    let st = unsafe { &mut *STATE.0.get() };
    crate::libc_state::capture(&mut st.libc);
    st.omp_env_threads = crate::config::omp_num_threads().unwrap_or(0);
    (st.files, st.files_len) = into_block((st.files, st.files_len), &text)?;
    (st.changes, st.changes_len) = into_block((st.changes, st.changes_len), &changes)?;
    Ok(())
}

/// Replaces the dao-heap block `old` (address, length) with one holding
/// `bytes` (none when empty).
fn into_block(old: (usize, u64), bytes: &[u8]) -> Result<(usize, u64), String> {
    if old.0 != 0 {
        crate::heap::with(|h| h.free(old.0 as *mut u8));
    }
    if bytes.is_empty() {
        return Ok((0, 0));
    }
    let p = crate::heap::with(|h| h.malloc(bytes.len()));
    if p.is_null() {
        return Err("no memory in the dao heap for the runtime's tables (open files, environment)".into());
    }
    // SAFETY: a fresh dao-heap block of bytes.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    Ok((p as usize, bytes.len() as u64))
}

/// The bytes of a block [`into_block`] made, after a restart restored it.
fn block(b: (usize, u64)) -> Vec<u8> {
    if b.0 == 0 || b.1 == 0 {
        return Vec::new();
    }
    // SAFETY: the dao-heap block this pointer names was saved with the
    // heap (reachable from the runtime module's saved global) and restored.
    unsafe { std::slice::from_raw_parts(b.0 as *const u8, b.1 as usize) }.to_vec()
}

/// `strtok(s, delim)`, its position kept in the runtime's module.
///
/// # Safety
/// As strtok(3).
pub unsafe fn strtok(s: *mut c_char, delim: *const c_char) -> *mut c_char {
    // SAFETY: the position is a field of the runtime's state, used only by
    // strtok (which, like libc's, is not thread-safe).
    unsafe { crate::libc_state::strtok(s, delim, std::ptr::addr_of_mut!((*STATE.0.get()).libc.strtok)) }
}

/// After a restart wrote the heap and the globals back: registers the exit
/// handlers the checkpointed run had registered, in order, and reopens its
/// files (files/restore.rs: checked first; a file that changed stops the restart).
pub fn after_restore(checkpoint: &str) {
    RESTORED.store(true, Ordering::SeqCst);
    reregister_atexit();
    let (files, changes, libc) = {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: under LOCK, before the program runs again.
        let st = unsafe { &*STATE.0.get() };
        (block((st.files, st.files_len)), block((st.changes, st.changes_len)), st.libc)
    };
    match crate::libc_state::decode(&changes) {
        Some(v) => crate::libc_state::set_changes(v),
        None => crate::diag::fatal(format_args!("{checkpoint}: the table of environment and signal changes is damaged")),
    }
    // the program's memory: the executable's data and the dao heap
    let own = |a: usize| crate::heap::in_region(a as *const u8) || (std::ptr::addr_of!(__executable_start) as usize..std::ptr::addr_of!(end) as usize).contains(&a);
    crate::libc_state::restore(&libc, own);
    // files first written after the checkpoint are cut back even when
    // none was known at it (the journal)
    match crate::files::decode(&files) {
        Some((open, written)) => crate::files::restore(&open, &written, checkpoint),
        None => crate::diag::fatal(format_args!("{checkpoint}: the table of open files is damaged")),
    }
}

/// After a restart restored the globals: OMP_NUM_THREADS of the
/// checkpointed run (None: unset).
pub fn checkpointed_omp_env() -> Option<u32> {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: under LOCK.
    let n = unsafe { (*STATE.0.get()).omp_env_threads };
    (n != 0).then_some(n)
}

static RESTORED: AtomicBool = AtomicBool::new(false);

/// Whether this process resumed a checkpoint ([`after_restore`] ran).
pub fn restored() -> bool {
    RESTORED.load(Ordering::SeqCst)
}

fn reregister_atexit() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: under LOCK, before the program runs again.
    let st = unsafe { &*STATE.0.get() };
    let n = (st.n_atexit as usize).min(MAX_ATEXIT);
    // linker-defined symbols: only their addresses are taken
    let (lo, hi) = (std::ptr::addr_of!(__executable_start) as usize, std::ptr::addr_of!(etext) as usize);
    let mut early = std::mem::take(&mut *EARLY.lock().unwrap_or_else(|e| e.into_inner()));
    for &f in &st.atexit[..n] {
        // registered again by this process's own constructors
        if let Some(k) = early.iter().position(|&e| e == f) {
            early.swap_remove(k);
            continue;
        }
        if f < lo || f >= hi {
            crate::diag::warn(format_args!("an atexit handler at {f:#x} lies outside the executable (a shared library's function): not registered again after the restart"));
            continue;
        }
        // SAFETY: an address in the executable's text that the checkpointed
        // run registered as an exit handler (same executable: checked).
        real_atexit(unsafe { std::mem::transmute::<usize, extern "C" fn()>(f) });
    }
}
