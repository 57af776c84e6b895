//! threadprivate (thread-local) variables.
//!
//! clang makes `threadprivate` variables thread_local globals; every module
//! describes its own and emits an accessor that writes the calling thread's
//! addresses of them (dao_module_desc.tls_addrs). A thread's addresses can
//! only be computed on that thread, so every worker publishes them when it
//! enters an instrumented region; they stay valid for the thread's life. The
//! values are saved whole for every thread (not by liveness), at every
//! checkpoint: they are small, and they live across regions.
use std::sync::OnceLock;

use dao_format::OmpState;

/// A thread-local variable of one thread.
#[derive(Clone, Copy)]
pub struct TlsRef {
    pub module: &'static crate::abi::DaoModuleDesc,
    pub index: u32,
    pub addr: usize,
    pub size: u64,
}
// SAFETY: descriptor references are immutable constant data; addr is a plain address.
unsafe impl Send for TlsRef {}

/// The calling thread's thread-local variables of every registered module.
pub fn tls_here() -> Vec<TlsRef> {
    let mut out = Vec::new();
    for m in crate::modules::all() {
        let (Some(f), n) = (m.tls_addrs, m.n_tls) else { continue };
        if n == 0 {
            continue;
        }
        let mut addrs = vec![std::ptr::null_mut::<u8>(); n as usize];
        // SAFETY: the module's accessor writes n_tls pointers.
        unsafe { f(addrs.as_mut_ptr()) };
        for (i, (a, d)) in addrs.iter().zip(crate::desc::table(m.tls, n)).enumerate() {
            out.push(TlsRef { module: m, index: i as u32, addr: *a as usize, size: d.size });
        }
    }
    out
}

/// Workers' thread-local addresses, by thread number.
static WORKER_TLS: std::sync::Mutex<Vec<(u32, Vec<TlsRef>)>> = std::sync::Mutex::new(Vec::new());
/// Saved thread-local values still to be put back, by thread number (restart).
static PENDING_TLS: std::sync::Mutex<Vec<(u32, Vec<dao_format::TlsValue<'static>>)>> = std::sync::Mutex::new(Vec::new());

fn any_tls() -> bool {
    static ANY: OnceLock<bool> = OnceLock::new();
    *ANY.get_or_init(|| crate::modules::all().iter().any(|m| m.n_tls > 0))
}

/// At a worker's region entry: publish its addresses, put back saved values.
pub(crate) fn worker_tls_enter(t: u32) {
    if !any_tls() {
        return;
    }
    let refs = tls_here();
    let pending = {
        let mut p = PENDING_TLS.lock().unwrap_or_else(|e| e.into_inner());
        p.iter().position(|(w, _)| *w == t).map(|i| p.swap_remove(i).1)
    };
    if let Some(vals) = pending {
        write_tls(&refs, &vals);
    }
    let mut g = WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner());
    match g.iter_mut().find(|(w, _)| *w == t) {
        Some(e) => e.1 = refs,
        None => g.push((t, refs)),
    }
}

/// Writes saved values to the matching variables of `refs`.
pub fn write_tls(refs: &[TlsRef], vals: &[dao_format::TlsValue<'_>]) {
    for v in vals {
        let Some(r) = refs.iter().find(|r| r.module.module_hash == v.module_hash && r.index == v.index) else {
            crate::diag::fatal(format_args!("thread-local variable {} of the checkpoint does not exist in this executable", v.name));
        };
        if r.size != v.bytes.len() as u64 {
            crate::diag::fatal(format_args!("thread-local variable {} has another size in this executable", v.name));
        }
        crate::desc::write_memory(r.addr, &v.bytes);
    }
}

/// The published thread-local variables of worker `t`.
pub fn worker_tls(t: u32) -> Vec<TlsRef> {
    WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(w, _)| *w == t).map(|(_, r)| r.clone()).unwrap_or_default()
}

/// Threads that have published thread-local variables (for a checkpoint
/// outside any region: their values persist into later regions).
pub fn tls_threads() -> Vec<u32> {
    WORKER_TLS.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(t, _)| *t).collect()
}

/// At restart: the workers' saved thread-local values, put back when each
/// enters its first instrumented region.
pub fn set_pending_tls(v: Vec<(u32, Vec<dao_format::TlsValue<'static>>)>) {
    *PENDING_TLS.lock().unwrap_or_else(|e| e.into_inner()) = v.into_iter().filter(|(_, x)| !x.is_empty()).collect();
}

static PENDING_MASTER: std::sync::Mutex<Option<(OmpState, Vec<dao_format::TlsValue<'static>>)>> = std::sync::Mutex::new(None);

/// At restart: what the thread that runs main must put back when it starts.
pub fn set_pending_master(icvs: OmpState, tls: Vec<dao_format::TlsValue<'static>>) {
    *PENDING_MASTER.lock().unwrap_or_else(|e| e.into_inner()) = Some((icvs, tls));
}

/// On the thread that runs main, before main (dao_thread_start).
pub fn main_thread_start() {
    let p = PENDING_MASTER.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((icvs, tls)) = p {
        super::libomp::apply_icvs(&icvs);
        write_tls(&tls_here(), &tls);
    }
}

