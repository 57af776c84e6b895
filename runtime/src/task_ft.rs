//! Fault-tolerant tasks, after FT-TPP (Wang et al. 2016;
//! `../shared/papers.md`, section 5), on libomp's own task queues:
//! buffer-commit dual execution (`DAO_TASK_FT=dual`, described first) and
//! in-place serial execution with an undo log (`DAO_TASK_FT=serial`,
//! [`run_serial`]). docs/design.md, section 17, has the design; this is the
//! runtime half.
//!
//! For every task entry the pass could replicate it emits a *replica* (the
//! entry and its callees cloned, every load, store, memcpy and memset of
//! memory that is not the function's own stack going through [`load`],
//! [`store`], [`copy`], [`set`]) and a trampoline that takes the entry's
//! place in `__kmpc_omp_task_alloc` and calls [`run_task`]. Off, that runs
//! the original entry. On:
//!
//! 1. the task's private part (everything after the `shareds` and `routine`
//!    words of its `kmp_task_t`: part_id, and the privates and firstprivate
//!    captures that follow) and its shareds block are snapshot;
//! 2. a second libomp task (the replica task, [`replica_entry`]) is made
//!    from the snapshot and queued with `__kmpc_omp_task`: an idle thread
//!    steals it, or this thread runs it at step 4;
//! 3. this thread runs the replica on the original descriptor;
//! 4. `__kmpc_omp_taskwait` waits for the replica task (the task's only
//!    child: a task that creates tasks is never replicated);
//! 5. the two write buffers are compared; equal, the buffer is written to
//!    memory and the task ends (its dependences are released only then);
//!    different, or an execution that crashed (SIGSEGV, SIGBUS, SIGFPE,
//!    SIGILL: [`on_fault`] jumps back to the execution's start) or ran far
//!    past the longest run of its entry so far (a fault that made it loop),
//!    one more execution is queued as a task from the snapshot, until two
//!    executions agree (at most [`MAX_RUNS`]; then the program stops with
//!    an error).
//!
//! An execution writes its own stack (the frames below its start) and its
//! own task descriptor and shareds block directly; every other write goes to
//! its buffer, and its reads see its buffered writes. The stack test is an
//! address range (the frames of this execution lie between the hook's frame
//! and the execution's start), so a shared variable in the frame of the task
//! that created this one is buffered even when both run on this thread.
//!
//! The jump out of a crashed execution is a hand-written setjmp/longjmp pair
//! (x86-64 only; elsewhere a crash in a replica kills the process as
//! before): the frames it skips are the replica's (C) and the hooks' (no
//! destructors, no locks held while program memory is touched).
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use crate::config::{Config, FaultKind, TaskFaults, TaskFt};
use crate::stats;

/// Executions of one task before the program gives up on it.
pub const MAX_RUNS: usize = 6;

/// `sizeof(kmp_task_t)`'s first two words (shareds, routine): not copied.
const TASK_HEAD: usize = 16;
/// Offset of `kmp_task_t.data1` (the destructors thunk, unused by a
/// replica task, created without the destructors flag): the replica
/// task's slot until it starts.
const TASK_DATA1: usize = 24;
/// Offset of `kmp_task_t.data2`: a replica task's priority.
const TASK_DATA2: usize = 32;
/// `sizeof(kmp_task_t)`.
const TASK_T: usize = 40;

static ON: AtomicBool = AtomicBool::new(false);
static SERIAL: AtomicBool = AtomicBool::new(false);

/// How many running executions buffer a word, by `(address >> 3) & mask`
/// (`dao_abi::FT_WORDS`): a replica loads a word whose counter is 0 without
/// calling [`load`] (the pass's inline test). An execution counts each word
/// when it first buffers it and uncounts its words when it ends; other
/// executions' words sharing the index only send loads the slow way.
#[no_mangle]
pub static dao_ft_words: [AtomicU32; 1 << dao_abi::FT_WORDS_BITS] = [const { AtomicU32::new(0) }; 1 << dao_abi::FT_WORDS_BITS];

fn word_counter(w: usize) -> &'static AtomicU32 {
    &dao_ft_words[(w >> 3) & ((1 << dao_abi::FT_WORDS_BITS) - 1)]
}
static FAULTS: OnceLock<Option<Faults>> = OnceLock::new();

/// Counters of the summary.
struct Counters {
    tasks: AtomicU64,
    runs: AtomicU64,
    other_thread: AtomicU64,
    reruns: AtomicU64,
    crashes: AtomicU64,
    runaways: AtomicU64,
    mismatches: AtomicU64,
    injected: AtomicU64,
    not_landed: AtomicU64,
    detected: AtomicU64,
    corrected: AtomicU64,
    benign: AtomicU64,
}
static C: Counters = Counters {
    tasks: AtomicU64::new(0),
    runs: AtomicU64::new(0),
    other_thread: AtomicU64::new(0),
    reruns: AtomicU64::new(0),
    crashes: AtomicU64::new(0),
    runaways: AtomicU64::new(0),
    mismatches: AtomicU64::new(0),
    injected: AtomicU64::new(0),
    not_landed: AtomicU64::new(0),
    detected: AtomicU64::new(0),
    corrected: AtomicU64::new(0),
    benign: AtomicU64::new(0),
};

/// Set up from the configuration, at program start (before any task).
pub fn setup(cfg: &Config) {
    let Some(mode) = cfg.task_ft else {
        if cfg.task_faults.is_some() {
            crate::diag::warn("DAO_TASK_FAULTS is ignored without DAO_TASK_FT=dual or serial");
        }
        return;
    };
    let _ = FAULTS.set(cfg.task_faults.map(Faults::new));
    install_handlers();
    SERIAL.store(mode == TaskFt::Serial, Relaxed);
    ON.store(true, Relaxed);
}

pub fn enabled() -> bool {
    ON.load(Relaxed)
}

// ---- the write buffer ----

/// Open-addressing table of buffered words: word address (0: empty) ->
/// (value, mask of the bytes written). Linear probing, at most half full.
struct WordTable {
    keys: Vec<usize>,
    vals: Vec<(u64, u8)>,
    len: usize,
    shift: u32,
}

impl WordTable {
    fn new() -> Self {
        WordTable { keys: vec![0; 64], vals: vec![(0, 0); 64], len: 0, shift: 64 - 6 }
    }
    #[inline]
    fn slot(&self, w: usize) -> usize {
        ((w as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }
    #[inline]
    fn find(&self, w: usize) -> Result<usize, usize> {
        let m = self.keys.len() - 1;
        let mut i = self.slot(w);
        loop {
            let k = self.keys[i];
            if k == w {
                return Ok(i);
            }
            if k == 0 {
                return Err(i);
            }
            i = (i + 1) & m;
        }
    }
    #[inline]
    fn get(&self, w: usize) -> Option<&(u64, u8)> {
        if self.len == 0 {
            return None;
        }
        self.find(w).ok().map(|i| &self.vals[i])
    }
    /// The entry of `w`, inserted empty if new (then `on_new` runs).
    #[inline]
    fn entry(&mut self, w: usize, on_new: impl FnOnce()) -> &mut (u64, u8) {
        match self.find(w) {
            Ok(i) => &mut self.vals[i],
            Err(mut i) => {
                if 2 * (self.len + 1) > self.keys.len() {
                    self.grow();
                    i = self.find(w).unwrap_err();
                }
                on_new();
                self.keys[i] = w;
                self.len += 1;
                &mut self.vals[i]
            }
        }
    }
    fn grow(&mut self) {
        let old: Vec<(usize, (u64, u8))> = self.iter().map(|(k, v)| (k, *v)).collect();
        let n = self.keys.len() * 4;
        self.keys = vec![0; n];
        self.vals = vec![(0, 0); n];
        self.shift = 64 - n.trailing_zeros();
        for (k, v) in old {
            let i = self.find(k).unwrap_err();
            self.keys[i] = k;
            self.vals[i] = v;
        }
    }
    fn iter(&self) -> impl Iterator<Item = (usize, &(u64, u8))> {
        self.keys.iter().zip(&self.vals).filter(|(k, _)| **k != 0).map(|(k, v)| (*k, v))
    }
}

impl PartialEq for WordTable {
    fn eq(&self, o: &Self) -> bool {
        self.len == o.len && self.iter().all(|(k, v)| o.get(k) == Some(v))
    }
}

/// One execution's writes to non-private memory: 8-byte words with the
/// bytes written (mask) and their values (unwritten bytes zero).
struct WriteBuf {
    words: WordTable,
    /// Counted in `dao_ft_words` (a running execution's buffer; not a
    /// result collected after the execution).
    counted: bool,
    /// One bit per word address hash: a read of words none of whose bits is
    /// set needs no lookup.
    filter: [u64; 64],
}

impl Default for WriteBuf {
    fn default() -> Self {
        WriteBuf { words: WordTable::new(), counted: true, filter: [0; 64] }
    }
}

impl PartialEq for WriteBuf {
    fn eq(&self, o: &Self) -> bool {
        self.words == o.words
    }
}

/// A byte mask as a mask of the bits of those bytes.
#[inline]
fn mask_bytes(m: u8) -> u64 {
    let mut r = 0u64;
    for k in 0..8 {
        if m & (1 << k) != 0 {
            r |= 0xff << (8 * k);
        }
    }
    r
}

fn filter_bit(w: usize) -> (usize, u64) {
    let h = (w >> 3) & 4095;
    (h >> 6, 1u64 << (h & 63))
}

impl WriteBuf {
    /// The entry of word `w`, new ones counted in `dao_ft_words` (a running
    /// execution's buffer) and marked in the filter.
    #[inline]
    fn word(&mut self, w: usize) -> &mut (u64, u8) {
        let (i, bit) = filter_bit(w);
        self.filter[i] |= bit;
        let counted = self.counted;
        self.words.entry(w, || {
            if counted {
                word_counter(w).fetch_add(1, Relaxed);
            }
        })
    }

    #[inline]
    fn put(&mut self, addr: usize, bytes: &[u8]) {
        if bytes.len() == 8 && addr & 7 == 0 {
            *self.word(addr) = (u64::from_le_bytes(bytes.try_into().unwrap()), 0xff);
            return;
        }
        self.put_bytes(addr, bytes)
    }

    fn put_bytes(&mut self, addr: usize, bytes: &[u8]) {
        let mut a = addr;
        for chunk in WordChunks::new(addr, bytes.len()) {
            let e = self.word(chunk.0);
            let mut v = e.0.to_le_bytes();
            for k in chunk.1..chunk.2 {
                v[k] = bytes[a - addr];
                e.1 |= 1 << k;
                a += 1;
            }
            e.0 = u64::from_le_bytes(v);
        }
    }

    /// Overlay the buffered bytes of `[addr, addr + dst.len())` on `dst`.
    #[inline]
    fn overlay(&self, addr: usize, dst: &mut [u8]) {
        if self.words.len == 0 {
            return;
        }
        if dst.len() == 8 && addr & 7 == 0 {
            if let Some(&(v, m)) = self.words.get(addr) {
                let old = u64::from_le_bytes((&*dst).try_into().unwrap());
                let mm = mask_bytes(m);
                dst.copy_from_slice(&((old & !mm) | (v & mm)).to_le_bytes());
            }
            return;
        }
        let mut a = addr;
        for (w, lo, hi) in WordChunks::new(addr, dst.len()) {
            let (i, bit) = filter_bit(w);
            if self.filter[i] & bit != 0 {
                if let Some(&(v, m)) = self.words.get(w) {
                    let v = v.to_le_bytes();
                    for k in lo..hi {
                        if m & (1 << k) != 0 {
                            dst[a - addr + k - lo] = v[k];
                        }
                    }
                }
            }
            a += hi - lo;
        }
    }

    /// Uncount the buffered words (the execution has ended).
    fn release(&self) {
        if !self.counted {
            return;
        }
        for (w, _) in self.words.iter() {
            word_counter(w).fetch_sub(1, Relaxed);
        }
    }

    /// Write the buffer to memory.
    ///
    /// # Safety
    /// Every buffered address is writable program memory (the replica would
    /// have written it there).
    unsafe fn commit(&self) {
        for (w, &(v, m)) in self.words.iter() {
            if m == 0xff {
                // SAFETY: see above.
                unsafe { (w as *mut u64).write_unaligned(v) };
            } else {
                let b = v.to_le_bytes();
                for (k, byte) in b.iter().enumerate() {
                    if m & (1 << k) != 0 {
                        // SAFETY: see above.
                        unsafe { ((w + k) as *mut u8).write(*byte) };
                    }
                }
            }
        }
    }

    /// Flip bit `r` (mod the written bits) of one written byte: a fault in
    /// a buffered write. The word flipped; None when nothing was written.
    fn flip(&mut self, r: u64) -> Option<usize> {
        if self.words.len == 0 {
            return None;
        }
        let mut keys: Vec<usize> = self.words.iter().map(|(k, _)| k).collect();
        keys.sort_unstable();
        let w = keys[(r % keys.len() as u64) as usize];
        let e = self.words.entry(w, || unreachable!("a buffered word"));
        let bytes: Vec<u32> = (0..8).filter(|k| e.1 & (1 << k) != 0).collect();
        let k = bytes[((r >> 16) % bytes.len() as u64) as usize];
        e.0 ^= 1u64 << (k * 8 + ((r >> 32) % 8) as u32);
        Some(w)
    }
}

/// The 8-byte words `[addr, addr + n)` spans: (word, first byte, end byte).
struct WordChunks {
    a: usize,
    end: usize,
}
impl WordChunks {
    fn new(addr: usize, n: usize) -> Self {
        WordChunks { a: addr, end: addr + n }
    }
}
impl Iterator for WordChunks {
    type Item = (usize, usize, usize);
    fn next(&mut self) -> Option<Self::Item> {
        if self.a >= self.end {
            return None;
        }
        let w = self.a & !7;
        let lo = self.a - w;
        let hi = (self.end - w).min(8);
        self.a = w + hi;
        Some((w, lo, hi))
    }
}

type Spans = Vec<(usize, u32, u64)>;

thread_local! {
    /// Span vectors of finished executions, kept for the next ones (a
    /// fresh large vector would be fresh pages: page faults every task).
    static SPARE: std::cell::RefCell<Vec<Spans>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn spans() -> Spans {
    SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default()
}

fn spare(mut v: Spans) {
    v.clear();
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < 8 {
            s.push(v);
        }
    });
}

/// What an execution in place (`DAO_TASK_FT=serial`) overwrote: spans of
/// memory with their old bytes (inline up to 8 bytes), in order.
struct Undo {
    spans: Spans,
    big: Vec<u8>,
}

impl Default for Undo {
    fn default() -> Self {
        Undo { spans: spans(), big: Vec::new() }
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        spare(std::mem::take(&mut self.spans));
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        spare(std::mem::take(&mut self.spans));
    }
}

/// Read `n <= 8` bytes at `a` as a little-endian u64.
///
/// # Safety
/// The range is readable.
#[inline]
unsafe fn read_small(a: usize, n: usize) -> u64 {
    // SAFETY: see above.
    unsafe {
        match n {
            8 => (a as *const u64).read_unaligned(),
            4 => (a as *const u32).read_unaligned() as u64,
            _ => {
                let mut b = [0u8; 8];
                std::ptr::copy_nonoverlapping(a as *const u8, b.as_mut_ptr(), n);
                u64::from_le_bytes(b)
            }
        }
    }
}

/// # Safety
/// The range is writable.
#[inline]
unsafe fn write_small(a: usize, n: usize, v: u64) {
    // SAFETY: see above.
    unsafe {
        match n {
            8 => (a as *mut u64).write_unaligned(v),
            4 => (a as *mut u32).write_unaligned(v as u32),
            _ => std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), a as *mut u8, n),
        }
    }
}

/// An in-place execution's result: every span it wrote, in order, with
/// what the span holds at its end (spans up to 8 bytes inline).
#[derive(PartialEq)]
struct Trace {
    spans: Spans,
    big: Vec<u8>,
}

impl Undo {
    /// Record the bytes at `[addr, addr + n)` before a write.
    ///
    /// # Safety
    /// The range is readable (a fault is caught in a replica).
    #[inline]
    unsafe fn record(&mut self, addr: usize, n: usize) {
        if n <= 8 {
            // SAFETY: see above.
            let v = unsafe { read_small(addr, n) };
            self.spans.push((addr, n as u32, v));
        } else {
            let off = self.big.len();
            // SAFETY: see above.
            self.big.extend_from_slice(unsafe { std::slice::from_raw_parts(addr as *const u8, n) });
            self.spans.push((addr, n as u32, off as u64));
        }
    }

    /// What the execution left in the spans it wrote.
    ///
    /// # Safety
    /// The spans are readable (they were written).
    unsafe fn trace(&self) -> Trace {
        let mut t = Trace { spans: spans(), big: Vec::new() };
        t.spans.reserve(self.spans.len());
        for &(a, n, _) in &self.spans {
            let n = n as usize;
            if n <= 8 {
                // SAFETY: see above.
                t.spans.push((a, n as u32, unsafe { read_small(a, n) }));
            } else {
                let off = t.big.len() as u64;
                // SAFETY: see above.
                t.big.extend_from_slice(unsafe { std::slice::from_raw_parts(a as *const u8, n) });
                t.spans.push((a, n as u32, off));
            }
        }
        t
    }

    /// Put the old bytes back, newest first.
    ///
    /// # Safety
    /// The spans are writable (they were written).
    unsafe fn undo(&self) {
        for &(a, n, v) in self.spans.iter().rev() {
            let n = n as usize;
            // SAFETY: see above.
            unsafe {
                if n <= 8 {
                    write_small(a, n, v);
                } else {
                    std::ptr::copy_nonoverlapping(self.big.as_ptr().add(v as usize), a as *mut u8, n);
                }
            }
        }
    }
}

impl Trace {
    /// Flip one bit of one span's final bytes, in the trace and in memory:
    /// a fault in a written value. False when nothing was written.
    ///
    /// # Safety
    /// The spans are writable.
    unsafe fn flip(&mut self, r: u64) -> bool {
        if self.spans.is_empty() {
            return false;
        }
        let k = (r % self.spans.len() as u64) as usize;
        let (a, n, v) = self.spans[k];
        let n = n as usize;
        let bit = ((r >> 16) % (8 * n.min(8) as u64)) as usize;
        // SAFETY: see above.
        unsafe {
            if n <= 8 {
                let f = v ^ (1u64 << bit);
                self.spans[k].2 = f;
                write_small(a, n, f);
            } else {
                let off = v as usize + bit / 8;
                self.big[off] ^= 1 << (bit % 8);
                *((a + bit / 8) as *mut u8) = self.big[off];
            }
        }
        true
    }
}

// ---- faults injected ----

/// splitmix64.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Faults {
    cfg: TaskFaults,
    /// The execution numbers (first and second runs of replicated tasks,
    /// counted from 0) that get a fault.
    targets: Vec<u64>,
    next: AtomicU64,
}

impl Faults {
    fn new(cfg: TaskFaults) -> Faults {
        let mut targets = Vec::new();
        let n = cfg.count.min(cfg.span);
        let mut k = 0;
        while (targets.len() as u64) < n {
            let t = mix(cfg.seed ^ mix(k)) % cfg.span;
            k += 1;
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        Faults { cfg, targets, next: AtomicU64::new(0) }
    }

    /// The fault for the next first-or-second execution, if it gets one.
    fn draw(&self) -> Option<Inject> {
        let n = self.next.fetch_add(1, Relaxed);
        if !self.targets.contains(&n) {
            return None;
        }
        let r = mix(self.cfg.seed ^ n.wrapping_mul(0xA24B_AED4_963E_E407));
        let kind = self.cfg.kind.unwrap_or(match r % 3 {
            0 => FaultKind::Write,
            1 => FaultKind::Value,
            _ => FaultKind::Pointer,
        });
        Some(Inject { kind, r: mix(r), at: u64::MAX, landed: false })
    }
}

struct Inject {
    kind: FaultKind,
    r: u64,
    /// The load (value) or pointer load (pointer) it lands on.
    at: u64,
    landed: bool,
}

// ---- one execution ----

/// Callee-saved registers, stack pointer and return address of
/// `dao_ft_call_protected` (x86-64).
type JmpBuf = [u64; 8];

struct Exec {
    jmp: JmpBuf,
    /// Inside the replica: a synchronous signal jumps back.
    protected: bool,
    /// The signal that ended it, or [`RUNAWAY`].
    crashed: i32,
    buf: WriteBuf,
    /// In place (serial mode): writes go to memory, old bytes here.
    undo: Option<Undo>,
    /// Written directly: the task descriptor, its shareds block.
    private: [(usize, usize); 2],
    /// The replica's frames lie below this address.
    stack_top: usize,
    stores: u64,
    ptr_loads: u64,
    accesses: u64,
    /// Accesses after which the execution counts as a runaway.
    budget: u64,
    inject: Option<Inject>,
}

/// `crashed` of an execution stopped for running far past its entry's
/// longest run.
const RUNAWAY: i32 = -1;

thread_local! {
    static CUR: Cell<*mut Exec> = const { Cell::new(std::ptr::null_mut()) };
}

fn here() -> usize {
    let x = 0u8;
    std::hint::black_box(&x) as *const u8 as usize
}

impl Exec {
    #[inline]
    fn is_private(&self, a: usize) -> bool {
        (a >= here() && a < self.stack_top) || self.private.iter().any(|&(lo, hi)| a >= lo && a < hi)
    }

    #[inline]
    fn tick(&mut self) {
        self.accesses += 1;
        if self.accesses > self.budget && self.protected {
            self.crashed = RUNAWAY;
            self.protected = false;
            // SAFETY: we are inside this execution's dao_ft_call_protected
            // (protected), called from the replica through a hook: the jump
            // returns there, skipping the replica's frames and this one.
            unsafe { jump(&self.jmp) }
        }
    }
}

/// The longest run (accesses) of each replica entry so far, hashed by its
/// address; an execution may make 16 times that plus 2^22 accesses.
static LONGEST: [AtomicU64; 256] = [const { AtomicU64::new(0) }; 256];
/// Stores of the last execution that finished: where a value fault is
/// drawn.
static LAST_STORES: AtomicU64 = AtomicU64::new(0);

fn longest(f: usize) -> &'static AtomicU64 {
    &LONGEST[(mix(f as u64) % 256) as usize]
}

/// What one execution left: its buffer (None: it crashed), whether a fault
/// was injected into it, the thread it ran on.
struct Outcome {
    buf: Option<WriteBuf>,
    /// In place: the result (None: it crashed).
    trace: Option<Trace>,
    /// In place: what to put back to discard this execution's writes.
    undo: Option<Undo>,
    injected: bool,
    thread: i32,
}

type Entry = unsafe extern "C" fn(i32, *mut u8) -> i32;

struct Call {
    f: Entry,
    gtid: i32,
    task: *mut u8,
}

extern "C" fn call_entry(c: *mut c_void) {
    // SAFETY: `c` is the Call of run_exec, alive for this call.
    let c = unsafe { &*(c as *const Call) };
    // SAFETY: the replica entry with its task, as libomp would call it.
    unsafe { (c.f)(c.gtid, c.task) };
}

/// Run replica entry `f` on task descriptor `task` against a fresh buffer.
///
/// # Safety
/// `task` is a live task descriptor of `size` bytes for `f`, with a shareds
/// block of `shsize` bytes.
unsafe fn run_exec(f: Entry, gtid: i32, task: *mut u8, size: usize, shsize: usize, first_two: bool, in_place: bool) -> Outcome {
    // SAFETY: kmp_task_t.shareds, the descriptor's first word.
    let shareds = unsafe { *(task as *const usize) };
    let long = longest(f as usize).load(Relaxed);
    let mut inject = if first_two { FAULTS.get().and_then(|f| f.as_ref()).and_then(Faults::draw) } else { None };
    if let Some(i) = &mut inject {
        i.at = match i.kind {
            FaultKind::Write => u64::MAX,
            FaultKind::Value => i.r % LAST_STORES.load(Relaxed).max(1),
            // the first pointer it loads: an execution that loads any
            // pointer gets the fault (a later index could be past its last)
            FaultKind::Pointer => 0,
        };
    }
    let mut e = Exec {
        jmp: [0; 8],
        protected: false,
        crashed: 0,
        buf: WriteBuf::default(),
        undo: in_place.then(Undo::default),
        private: [(task as usize, task as usize + size), (shareds, shareds + if shareds == 0 { 0 } else { shsize })],
        stack_top: here(),
        stores: 0,
        ptr_loads: 0,
        accesses: 0,
        budget: if long == 0 { u64::MAX } else { long.saturating_mul(16).saturating_add(1 << 22) },
        inject,
    };
    let prev = CUR.with(|c| c.replace(&mut e));
    let call = Call { f, gtid, task };
    e.protected = true;
    // SAFETY: call_entry with its Call; the jump buffer lives in `e` until
    // the call returns (normally or through `jump`).
    let r = unsafe { dao_ft_call_protected(call_entry, &call as *const Call as *mut c_void, e.jmp.as_mut_ptr()) };
    e.protected = false;
    CUR.with(|c| c.set(prev));
    e.buf.release();
    if r != 0 && e.crashed == 0 {
        e.crashed = libc::SIGSEGV;
    }
    let mut trace = None;
    if let Some(u) = &e.undo {
        if e.crashed != 0 {
            // SAFETY: the spans this execution wrote.
            unsafe { u.undo() };
        } else {
            // SAFETY: as above.
            trace = Some(unsafe { u.trace() });
        }
    }
    let mut injected = false;
    if let Some(i) = &mut e.inject {
        if !i.landed && e.crashed == 0 {
            // a value or pointer fault whose load never came: a write fault
            i.landed = match &mut trace {
                // SAFETY: the spans this execution wrote.
                Some(t) => unsafe { t.flip(i.r) },
                None => e.buf.flip(i.r).is_some(),
            };
        }
        injected = i.landed;
        C.injected.fetch_add(injected as u64, Relaxed);
        C.not_landed.fetch_add((!injected) as u64, Relaxed);
    }
    C.runs.fetch_add(1, Relaxed);
    let thread = crate::omp::libomp::thread_num();
    if e.crashed != 0 {
        if e.crashed == RUNAWAY {
            C.runaways.fetch_add(1, Relaxed);
        } else {
            C.crashes.fetch_add(1, Relaxed);
        }
        return Outcome { buf: None, trace: None, undo: None, injected, thread };
    }
    if !injected {
        longest(f as usize).fetch_max(e.accesses, Relaxed);
        LAST_STORES.store(e.stores, Relaxed);
    }
    let buf = if e.undo.is_some() { None } else { Some(e.buf) };
    Outcome { buf, trace, undo: e.undo, injected, thread }
}

// ---- the hooks the replica calls ----

/// # Safety
/// As the load it replaces: `addr` readable for `size` bytes (a fault there
/// is caught when it happens in a replica), `dst` writable.
pub unsafe fn load(addr: *const u8, dst: *mut u8, size: usize, kind: i32) {
    // SAFETY: the replica's load (see above); a fault jumps out.
    unsafe {
        match size {
            8 => (dst as *mut u64).write_unaligned((addr as *const u64).read_unaligned()),
            4 => (dst as *mut u32).write_unaligned((addr as *const u32).read_unaligned()),
            _ => std::ptr::copy_nonoverlapping(addr, dst, size),
        }
    }
    let p = CUR.with(|c| c.get());
    if p.is_null() {
        return;
    }
    // SAFETY: the current execution, on this thread's stack, alive while it
    // runs.
    let e = unsafe { &mut *p };
    e.tick();
    if kind == 1 {
        e.ptr_loads += 1;
    }
    // SAFETY: dst is the replica's scratch of `size` bytes.
    let d = unsafe { std::slice::from_raw_parts_mut(dst, size) };
    if !e.is_private(addr as usize) {
        e.buf.overlay(addr as usize, d);
    }
    if let Some(i) = &mut e.inject {
        if !i.landed && i.kind == FaultKind::Pointer && kind == 1 && e.ptr_loads - 1 == i.at && size == 8 {
            i.landed = true;
            d[7] ^= 1 << 6; // bit 62: a non-canonical address
        }
    }
}

/// # Safety
/// As the store it replaces.
pub unsafe fn store(addr: *mut u8, src: *const u8, size: usize) {
    let p = CUR.with(|c| c.get());
    // SAFETY: src is the replica's scratch of `size` bytes.
    let s = unsafe { std::slice::from_raw_parts(src, size) };
    if p.is_null() {
        // SAFETY: the store the replica makes, outside an execution.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
        return;
    }
    // SAFETY: as in `load`.
    let e = unsafe { &mut *p };
    e.tick();
    e.stores += 1;
    if let Some(i) = &mut e.inject {
        if !i.landed && i.kind == FaultKind::Value && e.stores - 1 == i.at {
            // a fault in the value computed: one bit of what is stored
            i.landed = true;
            let mut v = s.to_vec();
            let bit = (i.r >> 8) % (size as u64 * 8);
            v[(bit / 8) as usize] ^= 1 << (bit % 8);
            let private = e.is_private(addr as usize);
            if private {
                // SAFETY: the replica's own stack or descriptor.
                unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), addr, size) };
            } else if let Some(u) = &mut e.undo {
                // SAFETY: in place: the old bytes, then the write.
                unsafe {
                    guard();
                    u.record(addr as usize, size);
                    std::ptr::copy_nonoverlapping(v.as_ptr(), addr, size);
                }
            } else {
                e.buf.put(addr as usize, &v);
            }
            return;
        }
    }
    let private = e.is_private(addr as usize);
    if let Some(u) = &mut e.undo {
        if !private {
            guard();
            // SAFETY: in place: the old bytes (a fault is caught), then the
            // store the replica makes.
            unsafe { u.record(addr as usize, size) };
        }
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
        return;
    }
    if e.is_private(addr as usize) {
        // SAFETY: the replica's own stack or descriptor.
        unsafe { std::ptr::copy_nonoverlapping(src, addr, size) };
    } else {
        e.buf.put(addr as usize, s);
    }
}

/// memcpy / memmove.
///
/// # Safety
/// As the call it replaces.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    let overlap = (dst as usize) < src as usize + n && (src as usize) < dst as usize + n;
    if overlap || n <= 4096 {
        let mut all = vec![0u8; n];
        // SAFETY: the replaced call's ranges, through one buffer (memmove).
        unsafe {
            load(src, all.as_mut_ptr(), n, 0);
            store(dst, all.as_ptr(), n);
        }
        return;
    }
    let mut tmp = vec![0u8; 4096];
    let mut off = 0;
    while off < n {
        let k = (n - off).min(4096);
        // SAFETY: chunks of the replaced call's (disjoint) ranges.
        unsafe {
            load(src.add(off), tmp.as_mut_ptr(), k, 0);
            store(dst.add(off), tmp.as_ptr(), k);
        }
        off += k;
    }
}

/// memset.
///
/// # Safety
/// As the call it replaces.
pub unsafe fn set(dst: *mut u8, byte: i32, n: usize) {
    let tmp = vec![byte as u8; n.min(4096)];
    let mut off = 0;
    while off < n {
        let k = (n - off).min(4096);
        // SAFETY: chunks of the replaced call's range.
        unsafe { store(dst.add(off), tmp.as_ptr(), k) };
        off += k;
    }
}

/// In place, a replica writes shared memory itself: the guards' rule (a
/// checked-in worker of a non-blocking round waits until the master has
/// saved the shared state) applies to it as to the program's writes.
#[inline]
fn guard() {
    if crate::protocol::dao_omp_guard.load(std::sync::atomic::Ordering::Acquire) != 0 {
        crate::protocol::guard_wait();
    }
}

// ---- the task ----

/// `ident_t` for the runtime's own task calls.
#[repr(C)]
struct Ident {
    reserved_1: i32,
    flags: i32,
    reserved_2: i32,
    reserved_3: i32,
    psource: *const u8,
}
// SAFETY: read-only after construction.
unsafe impl Sync for Ident {}
static IDENT: Ident = Ident { reserved_1: 0, flags: 2, reserved_2: 0, reserved_3: 0, psource: c";dao;dao_ft_task;0;0;;".as_ptr() as *const u8 };

struct Omp {
    alloc: unsafe extern "C" fn(*const Ident, i32, i32, usize, usize, Entry) -> *mut u8,
    task: unsafe extern "C" fn(*const Ident, i32, *mut u8) -> i32,
    taskwait: unsafe extern "C" fn(*const Ident, i32) -> i32,
}

fn omp() -> &'static Omp {
    static O: OnceLock<Omp> = OnceLock::new();
    O.get_or_init(|| {
        use crate::omp::libomp::sym;
        (|| Some(Omp { alloc: sym(c"__kmpc_omp_task_alloc")?, task: sym(c"__kmpc_omp_task")?, taskwait: sym(c"__kmpc_omp_taskwait")? }))()
            .unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT=dual: libomp's task functions are not in the process"))
    })
}

/// A task's state between its executions: what a replica task needs.
struct Job {
    replica: Entry,
    size: usize,
    shsize: usize,
    /// Bytes TASK_HEAD..size of the descriptor, before any execution.
    private: Vec<u8>,
    /// The shareds block, before any execution.
    shareds: Vec<u8>,
}

/// What a replica task finds in its descriptor's data2 word.
struct Slot {
    job: *const Job,
    first_two: bool,
    out: Option<Outcome>,
}

/// Queue one more execution of `job` as a libomp task; its outcome lands
/// in `slot` by the next taskwait.
///
/// # Safety
/// `slot` and `job` outlive that taskwait.
unsafe fn spawn(gtid: i32, job: &Job, slot: *mut Slot) {
    let o = omp();
    // SAFETY: libomp's task allocation, tied (1) with a priority (0x20,
    // priority_specified), sizes of the original task.
    let t = unsafe { (o.alloc)(&IDENT, gtid, 1 | 0x20, job.size, job.shsize, replica_entry) };
    // SAFETY: t is a fresh descriptor of job.size bytes (>= TASK_T) whose
    // shareds block has job.shsize bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(job.private.as_ptr(), t.add(TASK_HEAD), job.private.len());
        let sh = *(t as *const *mut u8);
        if !sh.is_null() {
            std::ptr::copy_nonoverlapping(job.shareds.as_ptr(), sh, job.shareds.len());
        }
        *(t.add(TASK_DATA1) as *mut *mut Slot) = slot;
        // data2 holds the priority (kmp_cmplrdata_t): 1, so that with
        // OMP_MAX_TASK_PRIORITY > 0 (config.rs sets it) libomp queues the
        // replica in the team's priority list, which every thread looks
        // at before its own deque: an idle thread, or one between two
        // tasks, takes it rather than the creator after its own execution
        *(t.add(TASK_DATA2) as *mut u64) = 1;
        (o.task)(&IDENT, gtid, t);
    }
}

/// The routine of a replica task.
unsafe extern "C" fn replica_entry(gtid: i32, t: *mut u8) -> i32 {
    // SAFETY: spawn put the slot there; it lives until the creator's taskwait.
    unsafe {
        let slot = &mut **(t.add(TASK_DATA1) as *const *mut Slot);
        let job = &*slot.job;
        // a replica task must not find its slot pointer or priority as
        // data: restore the snapshot's two words
        std::ptr::copy_nonoverlapping(job.private.as_ptr().add(TASK_DATA1 - TASK_HEAD), t.add(TASK_DATA1), 16);
        slot.out = Some(run_exec(job.replica, gtid, t, job.size, job.shsize, slot.first_two, false));
    }
    0
}

/// The trampoline's body: run `entry` once, or (DAO_TASK_FT=dual) the
/// replica until two executions agree, and commit.
///
/// # Safety
/// libomp's contract of a task entry; `entry`/`replica` the pass's pair for
/// a descriptor of `size` bytes with `shsize` bytes of shareds.
pub unsafe fn run_task(gtid: i32, task: *mut u8, entry: Entry, replica: Entry, in_place: Entry, size: usize, shsize: usize) {
    if !enabled() || size < TASK_T {
        // SAFETY: the task as libomp would run it.
        unsafe { entry(gtid, task) };
        return;
    }
    C.tasks.fetch_add(1, Relaxed);
    // SAFETY: the descriptor's bytes and shareds block (contract above).
    let job = unsafe {
        let sh = *(task as *const *const u8);
        Job {
            replica,
            size,
            shsize,
            private: std::slice::from_raw_parts(task.add(TASK_HEAD), size - TASK_HEAD).to_vec(),
            shareds: if sh.is_null() { Vec::new() } else { std::slice::from_raw_parts(sh, shsize).to_vec() },
        }
    };
    if SERIAL.load(Relaxed) {
        // SAFETY: the task's descriptor and its snapshot (contract above).
        unsafe { run_serial(gtid, task, &job, in_place) };
        return;
    }
    let mut slot = Slot { job: &job, first_two: true, out: None };
    // SAFETY: slot and job live until the taskwait below.
    unsafe { spawn(gtid, &job, &mut slot) };
    // SAFETY: the original descriptor, before anything else touches it.
    let a = unsafe { run_exec(replica, gtid, task, size, shsize, true, false) };
    // SAFETY: libomp's taskwait in the task that queued the replica task.
    unsafe { (omp().taskwait)(&IDENT, gtid) };
    let b = slot.out.take().unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT: a replica task did not run by the taskwait"));
    if a.thread != b.thread {
        C.other_thread.fetch_add(1, Relaxed);
    }
    // faults are counted per injected execution
    let injected = a.injected as u64 + b.injected as u64;
    let mut outs = vec![a, b];
    let agree = |o: &[Outcome]| -> Option<usize> {
        for i in 0..o.len() {
            for j in i + 1..o.len() {
                if let (Some(x), Some(y)) = (&o[i].buf, &o[j].buf) {
                    if x == y {
                        return Some(i);
                    }
                }
            }
        }
        None
    };
    let first = agree(&outs);
    if first.is_none() {
        C.detected.fetch_add(injected, Relaxed);
        if outs.iter().all(|o| o.buf.is_some()) {
            C.mismatches.fetch_add(1, Relaxed);
        }
    } else {
        C.benign.fetch_add(injected, Relaxed);
    }
    let mut pick = first;
    while pick.is_none() {
        if outs.len() >= MAX_RUNS {
            crate::diag::fatal(format_args!(
                "DAO_TASK_FT: {} executions of a task gave no two equal results ({} crashed); stopping rather than writing an unconfirmed result",
                outs.len(),
                outs.iter().filter(|o| o.buf.is_none()).count()
            ));
        }
        C.reruns.fetch_add(1, Relaxed);
        let mut slot = Slot { job: &job, first_two: false, out: None };
        // SAFETY: as above.
        unsafe {
            spawn(gtid, &job, &mut slot);
            (omp().taskwait)(&IDENT, gtid);
        }
        outs.push(slot.out.take().unwrap_or_else(|| crate::diag::fatal("DAO_TASK_FT: a replica task did not run by the taskwait")));
        pick = agree(&outs);
        if pick.is_some() {
            C.corrected.fetch_add(injected, Relaxed);
        }
    }
    let buf = outs[pick.unwrap()].buf.as_ref().unwrap();
    // a checked-in worker of a non-blocking round writes no shared data
    // until the master has saved it (the guards' rule)
    crate::protocol::guard_wait();
    // SAFETY: the addresses the replica wrote (twice, equally).
    unsafe { buf.commit() };
}

/// Serial mode: executions one after the other on this thread, in place;
/// each one's writes are undone unless its result equals an earlier one's
/// (then memory holds the agreed result).
///
/// # Safety
/// `task` is the live descriptor `job` was taken from.
unsafe fn run_serial(gtid: i32, task: *mut u8, job: &Job, in_place: Entry) {
    let mut outs: Vec<Outcome> = Vec::new();
    loop {
        if !outs.is_empty() {
            // the next execution starts from the task's state at creation
            // SAFETY: the descriptor and its shareds block (contract above).
            unsafe {
                std::ptr::copy_nonoverlapping(job.private.as_ptr(), task.add(TASK_HEAD), job.private.len());
                let sh = *(task as *const *mut u8);
                if !sh.is_null() {
                    std::ptr::copy_nonoverlapping(job.shareds.as_ptr(), sh, job.shareds.len());
                }
            }
        }
        if outs.len() >= 2 {
            C.reruns.fetch_add(1, Relaxed);
        }
        // SAFETY: the descriptor, as libomp would run it.
        let o = unsafe { run_exec(in_place, gtid, task, job.size, job.shsize, outs.len() < 2, true) };
        let agrees = o.trace.as_ref().is_some_and(|t| outs.iter().any(|p| p.trace.as_ref() == Some(t)));
        if !agrees {
            if let Some(u) = &o.undo {
                // SAFETY: the spans it wrote.
                unsafe { u.undo() };
            }
        }
        outs.push(o);
        if outs.len() == 2 {
            let injected = outs[0].injected as u64 + outs[1].injected as u64;
            if agrees {
                C.benign.fetch_add(injected, Relaxed);
            } else {
                C.detected.fetch_add(injected, Relaxed);
                if outs.iter().all(|o| o.trace.is_some()) {
                    C.mismatches.fetch_add(1, Relaxed);
                }
            }
        }
        if agrees {
            if outs.len() > 2 {
                C.corrected.fetch_add(outs[0].injected as u64 + outs[1].injected as u64, Relaxed);
            }
            return;
        }
        if outs.len() >= MAX_RUNS {
            crate::diag::fatal(format_args!(
                "DAO_TASK_FT: {} executions of a task gave no two equal results ({} crashed); stopping rather than keeping an unconfirmed result",
                outs.len(),
                outs.iter().filter(|o| o.trace.is_none()).count()
            ));
        }
    }
}

/// The `task_ft` line of DAO_STATS and the stderr summary, at exit.
pub fn summary(stats: Option<&std::path::Path>) {
    if !enabled() {
        return;
    }
    let counters = [
        ("tasks", &C.tasks),
        ("runs", &C.runs),
        ("other_thread", &C.other_thread),
        ("reruns", &C.reruns),
        ("mismatches", &C.mismatches),
        ("crashes", &C.crashes),
        ("runaways", &C.runaways),
        ("injected", &C.injected),
        ("not_landed", &C.not_landed),
        ("detected", &C.detected),
        ("corrected", &C.corrected),
        ("benign", &C.benign),
    ];
    let v: Vec<u64> = counters.iter().map(|(_, a)| a.load(Relaxed)).collect();
    let fields: Vec<String> = counters.iter().zip(&v).map(|((k, _), n)| format!("\"{k}\":{n}")).collect();
    stats::append(stats, &format!("{{\"event\":\"task_ft\",{}}}", fields.join(",")));
    crate::diag::info(format_args!(
        "fault-tolerant tasks: {} tasks replicated ({} executions, {} pairs on two threads, {} re-executions); {} mismatches, {} replica crashes and {} runaways recovered; faults injected {} (not landed {}), detected {}, corrected {}, benign {}",
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]
    ));
}

// ---- synchronous signals in a replica ----

fn install_handlers() {
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
    let p = CUR.with(|c| c.get());
    if !p.is_null() {
        // SAFETY: the current execution of this thread.
        let e = unsafe { &mut *p };
        if e.protected {
            e.protected = false;
            e.crashed = sig;
            // SAFETY: back to this execution's dao_ft_call_protected.
            unsafe { jump(&e.jmp) }
        }
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
    fn dao_ft_call_protected(f: extern "C" fn(*mut c_void), arg: *mut c_void, buf: *mut u64) -> i32;
    #[link_name = "__dao_ft_jump"]
    fn dao_ft_jump(buf: *const u64) -> !;
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn dao_ft_call_protected(f: extern "C" fn(*mut c_void), arg: *mut c_void, _buf: *mut u64) -> i32 {
    f(arg);
    0
}

/// Back to the `dao_ft_call_protected` that filled `buf`.
///
/// # Safety
/// That call is still running on this thread; the frames between hold no
/// destructors to run.
unsafe fn jump(buf: &JmpBuf) -> ! {
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
    fn buffer_overlays_and_compares() {
        let mut mem = [0u8; 32];
        let base = mem.as_mut_ptr() as usize;
        let mut b = WriteBuf::default();
        b.put(base + 5, &[1, 2, 3, 4, 5, 6]); // spans two words
        let mut d = [9u8; 12];
        b.overlay(base + 2, &mut d);
        assert_eq!(d, [9, 9, 9, 1, 2, 3, 4, 5, 6, 9, 9, 9]);
        let mut c = WriteBuf::default();
        c.put(base + 5, &[1, 2, 3]);
        assert!(b != c);
        c.put(base + 8, &[4, 5, 6]);
        assert!(b == c);
        // SAFETY: the addresses are `mem`'s.
        unsafe { b.commit() };
        assert_eq!(&mem[4..12], &[0, 1, 2, 3, 4, 5, 6, 0]);
        assert!(c.flip(12345).is_some());
        assert!(b != c);
    }

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

    #[test]
    fn faults_parse_and_draw_count_targets() {
        let f = TaskFaults::parse("7:3", 10).unwrap();
        let d = Faults::new(f);
        assert_eq!(d.targets.len(), 3);
        let hits = (0..10).filter(|_| d.draw().is_some()).count();
        assert_eq!(hits, 3);
        assert!(TaskFaults::parse("7:3:pointer", 10).unwrap().kind == Some(FaultKind::Pointer));
        assert!(TaskFaults::parse("x:3", 10).is_err());
    }
}
