//! flang's threadprivate variables: `__kmpc_threadprivate_cached`, which
//! the pass routes to [`dao_threadprivate_cached`] in every module.
//!
//! flang lowers `!$omp threadprivate` (common blocks, module variables) to a
//! call `__kmpc_threadprivate_cached(ident, gtid, data, size, cache)` before
//! each use; libomp answers with the calling thread's copy of `data`,
//! allocated in its own memory on first use, whose address differs from run
//! to run. A checkpoint could save a worker's copy, but the worker's frames
//! hold pointers to it (flang takes the address at function entry and keeps
//! it), and a restart could not put the copy back at that address.
//!
//! So the runtime keeps the copies itself, with libomp's calling convention:
//!
//! - the thread that runs `main` uses the original variable (as libomp does
//!   for the initial thread): the master's copy is a global, saved by the
//!   liveness analysis like any other;
//! - every other thread gets its copy in the threadprivate arena, a
//!   reservation at the fixed address [`TP_BASE`], initialised from the
//!   variable's value at program start (captured before a restart puts the
//!   globals back: OpenMP's initial value, which is what libomp copies too);
//! - `*cache` is the runtime's table of the threads' copies indexed by gtid
//!   (a header {magic, capacity} before entry 0), so the fast path is two
//!   loads and a compare, like libomp's;
//! - a checkpoint saves each worker's copies with that worker (`Worker::tp`
//!   in the format: address, and the bytes when live); a restart maps the
//!   arena, writes the saved bytes back at the same addresses and hands each
//!   copy to the thread with the same number when it first asks for it, so
//!   every saved pointer into a copy is valid again.
//!
//! A worker's copy is live at a checkpoint when the variable is live in one
//! of the saved frames (the sites' global lists name the variable: the
//! analysis treats every thread's copy as the one object `data`), or when
//! a parallel region may read a worker's copy before writing it whole
//! (`DAO_TP_IN_REGION`, set by the pass per module, ORed over modules):
//! then its value may carry into a later region, whatever the serial code
//! between does to the master's copy.
use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::*};
use std::sync::Mutex;

use crate::abi::DAO_TP_IN_REGION;
use crate::diag::fatal;

/// Address of the threadprivate arena (below the worker stacks at
/// 0x0c00_0000_0000, above the executable and the shared libraries' usual
/// places).
pub const TP_BASE: usize = 0x0a00_0000_0000;
/// Bytes of address space reserved for it.
pub const TP_RESERVE: usize = 64 << 30;
const COMMIT_CHUNK: usize = 4 << 20;
/// Copies start on their own cache line (threads write their copies
/// concurrently).
const ALIGN: usize = 64;
const CACHE_MAGIC: usize = 0x4441_4f54_5043_4143; // "DAOTPCAC"
const CACHE_HDR: usize = 2;

/// One threadprivate variable, as the modules' `tp` tables describe it.
struct Var {
    data: usize,
    size: u64,
    name: String,
    in_region: bool,
    /// Its value at program start (None: all zero).
    init: Option<Vec<u8>>,
}

/// A worker's copy of a variable.
#[derive(Clone, Copy, Debug)]
pub struct Copy {
    pub data: usize,
    pub addr: usize,
    pub size: u64,
}

/// The copies of one thread (by gtid), with its number in the team of its
/// last instrumented region.
struct Thread {
    gtid: i32,
    thread: u32,
    copies: Vec<Copy>,
}

struct State {
    vars: Vec<Var>,
    captured: bool,
    /// Arena: next free byte and committed end.
    top: usize,
    committed: usize,
    mapped: bool,
    threads: Vec<Thread>,
    /// Restart: (thread number, variable, address of its restored copy).
    pending: Vec<(u32, usize, usize)>,
}

static STATE: Mutex<State> = Mutex::new(State { vars: Vec::new(), captured: false, top: TP_BASE, committed: TP_BASE, mapped: false, threads: Vec::new(), pending: Vec::new() });

thread_local! {
    /// The calling thread's gtid, once it has a copy.
    static MY_GTID: Cell<i32> = const { Cell::new(-1) };
}

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every registered module's threadprivate variables, with their values
/// now. Called at program start, before a restart writes the globals back.
pub fn capture_initial() {
    let mut st = state();
    if st.captured {
        return;
    }
    st.captured = true;
    for m in crate::modules::all() {
        for d in m.tp() {
            let data = d.addr as usize;
            if data == 0 || d.size == 0 {
                continue;
            }
            let in_region = d.offset & DAO_TP_IN_REGION != 0;
            if let Some(v) = st.vars.iter_mut().find(|v| v.data == data) {
                v.in_region |= in_region;
                v.size = v.size.max(d.size);
                continue;
            }
            let bytes = crate::desc::memory(data, d.size as usize);
            let init = bytes.iter().any(|b| *b != 0).then(|| bytes.to_vec());
            st.vars.push(Var { data, size: d.size, name: crate::desc::name(d.name).into_owned(), in_region, init });
        }
    }
}

impl State {
    fn map(&mut self) {
        if self.mapped {
            return;
        }
        if let Err(e) = crate::heap::reserve_fixed(TP_BASE, TP_RESERVE) {
            fatal(format_args!("cannot reserve the threadprivate arena: {e}"));
        }
        self.mapped = true;
    }

    /// Makes `[TP_BASE, end)` usable.
    fn commit(&mut self, end: usize) {
        self.map();
        if end <= self.committed {
            return;
        }
        if end > TP_BASE + TP_RESERVE {
            fatal(format_args!("the threadprivate arena is full ({} GiB of copies)", TP_RESERVE >> 30));
        }
        let to = (end.div_ceil(COMMIT_CHUNK) * COMMIT_CHUNK).min(TP_BASE + TP_RESERVE);
        // SAFETY: inside the reservation made by map().
        let r = unsafe { libc::mprotect(self.committed as *mut libc::c_void, to - self.committed, libc::PROT_READ | libc::PROT_WRITE) };
        if r != 0 {
            fatal(format_args!("cannot commit threadprivate arena memory: {}", std::io::Error::last_os_error()));
        }
        self.committed = to;
    }

    fn alloc(&mut self, size: u64) -> usize {
        let a = self.top.next_multiple_of(ALIGN);
        let end = a + (size as usize).max(1);
        self.commit(end);
        self.top = end;
        a
    }

    fn var(&self, data: usize) -> Option<&Var> {
        self.vars.iter().find(|v| v.data == data)
    }

    fn thread_mut(&mut self, gtid: i32, thread: u32) -> &mut Thread {
        if let Some(i) = self.threads.iter().position(|t| t.gtid == gtid) {
            return &mut self.threads[i];
        }
        self.threads.push(Thread { gtid, thread, copies: Vec::new() });
        self.threads.last_mut().unwrap()
    }
}

/// The runtime's table behind `*cache`: entries indexed by gtid, after a
/// header {CACHE_MAGIC, capacity}. Tables are never freed (a thread may
/// still read an old one after it has grown).
fn table_ok(c: *mut usize) -> Option<usize> {
    // SAFETY: c is non-null and was stored by this file (header before it)
    // or by libomp (its allocator also keeps a header there: readable).
    let (magic, cap) = unsafe { (*c.sub(CACHE_HDR), *c.sub(CACHE_HDR - 1)) };
    (magic == CACHE_MAGIC).then_some(cap)
}

fn new_table(cap: usize, old: *mut usize, old_cap: usize) -> *mut usize {
    let mut v = vec![0usize; cap + CACHE_HDR].into_boxed_slice();
    v[0] = CACHE_MAGIC;
    v[1] = cap;
    for i in 0..old_cap {
        // SAFETY: old has old_cap entries.
        v[CACHE_HDR + i] = unsafe { AtomicUsize::from_ptr(old.add(i)).load(Acquire) };
    }
    let p = Box::leak(v).as_mut_ptr();
    // SAFETY: inside the leaked slice.
    unsafe { p.add(CACHE_HDR) }
}

/// The calling thread's copy of `data` (see the module comment).
///
/// # Safety
/// `cache` points to the compiler's cache variable of `data`.
#[inline]
pub unsafe fn cached(gtid: i32, data: *mut u8, size: u64, cache: *mut *mut u8) -> *mut u8 {
    // SAFETY: the cache variable is pointer-sized and aligned.
    let c = unsafe { AtomicPtr::from_ptr(cache).load(Acquire) } as *mut usize;
    if !c.is_null() && gtid >= 0 {
        if let Some(cap) = table_ok(c) {
            if (gtid as usize) < cap {
                // SAFETY: gtid < capacity.
                let r = unsafe { AtomicUsize::from_ptr(c.add(gtid as usize)).load(Acquire) };
                if r != 0 {
                    return r as *mut u8;
                }
            }
        }
    }
    slow(gtid, data as usize, size, cache)
}

#[cold]
fn slow(gtid: i32, data: usize, size: u64, cache: *mut *mut u8) -> *mut u8 {
    if gtid < 0 {
        fatal(format_args!("a threadprivate variable was requested with the invalid thread id (gtid) {gtid}: the code calling __kmpc_threadprivate_cached does not follow libomp's convention"));
    }
    let g = gtid as usize;
    let mut st = state();
    // SAFETY: as in cached().
    let cell = unsafe { AtomicPtr::from_ptr(cache) };
    let mut c = cell.load(Acquire) as *mut usize;
    let name = || st_name(data);
    if !c.is_null() && table_ok(c).is_none() {
        drop(st);
        fatal(format_args!(
            "the threadprivate variable {} is also used by code not compiled with the dao pass (libomp set up its per-thread copies): compile every file that uses it with `dao fc`/`dao cc`",
            name()
        ));
    }
    let cap = if c.is_null() { 0 } else { table_ok(c).unwrap_or(0) };
    if g >= cap {
        c = new_table((g + 1).next_power_of_two().max(64), c, cap);
        cell.store(c as *mut u8, Release);
    }
    // SAFETY: g < capacity now.
    let entry = unsafe { AtomicUsize::from_ptr(c.add(g)) };
    let have = entry.load(Acquire);
    if have != 0 {
        return have as *mut u8; // set while we waited for the lock
    }
    let addr = if super::threads::is_main_thread() {
        data
    } else {
        let thread = super::libomp::thread_num().max(0) as u32;
        let size = st.var(data).map_or(size, |v| v.size.max(size));
        let restored = st.pending.iter().position(|(t, d, _)| *t == thread && *d == data).map(|i| st.pending.swap_remove(i).2);
        let addr = match restored {
            Some(a) => a,
            None => {
                let a = st.alloc(size);
                match st.var(data).and_then(|v| v.init.as_ref()) {
                    Some(init) => crate::desc::write_memory(a, init),
                    None if st.var(data).is_none() => {
                        // a variable no module table lists: its value now
                        let now = crate::desc::memory(data, size as usize).to_vec();
                        crate::desc::write_memory(a, &now);
                    }
                    None => {} // zero (fresh arena memory)
                }
                a
            }
        };
        st.thread_mut(gtid, thread).copies.push(Copy { data, addr, size });
        MY_GTID.with(|m| m.set(gtid));
        addr
    };
    entry.store(addr, Release);
    addr as *mut u8
}

fn st_name(data: usize) -> String {
    state().var(data).map_or_else(|| format!("at {data:#x}"), |v| v.name.clone())
}

/// At a worker's entry into an instrumented region: its current number.
pub(crate) fn enter(thread: u32) {
    let g = MY_GTID.with(|m| m.get());
    if g < 0 {
        return;
    }
    let mut st = state();
    if let Some(t) = st.threads.iter_mut().find(|t| t.gtid == g) {
        t.thread = thread;
    }
}

/// The copies of team thread `thread` (not the main thread's: its copies
/// are the originals).
pub fn copies_of(thread: u32) -> Vec<Copy> {
    state().threads.iter().filter(|t| t.thread == thread).flat_map(|t| t.copies.iter().copied()).collect()
}

/// Team threads that have copies.
pub fn threads_with_copies() -> Vec<u32> {
    let st = state();
    let mut v: Vec<u32> = st.threads.iter().filter(|t| !t.copies.is_empty()).map(|t| t.thread).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Name of the variable at `data` and whether code that may run in a
/// parallel region uses it (unknown variables: yes).
pub fn var_info(data: usize) -> (String, bool) {
    let st = state();
    match st.var(data) {
        Some(v) => (v.name.clone(), v.in_region),
        None => (format!("threadprivate variable at {data:#x}"), true),
    }
}

/// Whether `data` is the original of a threadprivate variable.
pub fn is_var(data: usize) -> bool {
    state().var(data).is_some()
}

/// At restart, before main: the workers' saved copies, written back at
/// their addresses and handed out by thread number at first use.
pub fn restore(workers: &[dao_format::Worker<'_>], file: &str) -> u64 {
    let mut st = state();
    let mut bytes = 0;
    let end = workers.iter().flat_map(|w| w.tp.iter()).map(|c| (c.addr + c.size.max(1)) as usize).max();
    let Some(end) = end else { return 0 };
    for w in workers {
        for c in &w.tp {
            let a = c.addr as usize;
            if a < TP_BASE || a + c.size as usize > TP_BASE + TP_RESERVE {
                fatal(format_args!(
                    "{file}: the copy of threadprivate variable {} of thread {} lies outside the threadprivate arena ({:#x}); the file is damaged: remove it to restart from the previous checkpoint",
                    c.name, w.thread, c.addr
                ));
            }
        }
    }
    st.commit(end);
    st.top = st.top.max(end);
    for w in workers {
        for c in &w.tp {
            if let Some(b) = &c.bytes {
                crate::desc::write_memory(c.addr as usize, b);
                bytes += b.len() as u64;
            }
            st.pending.push((w.thread, c.var as usize, c.addr as usize));
        }
    }
    bytes
}
