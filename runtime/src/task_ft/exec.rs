//! One execution of a replica: its write buffer (dual mode) or undo log
//! (serial mode), what it may write directly (its own stack, descriptor and
//! shareds block), its access budget, the fault injected into it; run under
//! the protected call of `signals.rs`, so that a crash or a runaway ends it
//! instead of the process.
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::buffer::WriteBuf;
use super::counters::C;
use super::faults::{self, mix, Inject};
use super::signals::{dao_ft_call_protected, jump, JmpBuf};
use super::undo::{Trace, Undo};
use crate::config::FaultKind;
use crate::omp::libomp::{self, TaskEntry};

pub(super) struct Exec {
    pub(super) jmp: JmpBuf,
    /// Inside the replica: a synchronous signal jumps back.
    pub(super) protected: bool,
    /// The signal that ended it, or [`RUNAWAY`].
    pub(super) crashed: i32,
    pub(super) buf: WriteBuf,
    /// In place (serial mode): writes go to memory, old bytes here.
    pub(super) undo: Option<Undo>,
    /// Written directly: the task descriptor, its shareds block.
    pub(super) private: [(usize, usize); 2],
    /// The replica's frames lie below this address.
    pub(super) stack_top: usize,
    pub(super) stores: u64,
    pub(super) ptr_loads: u64,
    pub(super) accesses: u64,
    /// Accesses after which the execution counts as a runaway.
    pub(super) budget: u64,
    pub(super) inject: Option<Inject>,
}

/// `crashed` of an execution stopped for running far past its entry's
/// longest run.
const RUNAWAY: i32 = -1;

thread_local! {
    static CUR: Cell<*mut Exec> = const { Cell::new(std::ptr::null_mut()) };
}

/// The execution running on this thread, if any.
#[inline]
pub(super) fn current() -> *mut Exec {
    CUR.with(|c| c.get())
}

/// The signal handler's question: a synchronous signal in the execution
/// running on this thread ends it (a jump back to its start); otherwise
/// this returns.
pub(super) fn catch(sig: i32) {
    let p = current();
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
}

fn here() -> usize {
    let x = 0u8;
    std::hint::black_box(&x) as *const u8 as usize
}

impl Exec {
    #[inline]
    pub(super) fn is_private(&self, a: usize) -> bool {
        (a >= here() && a < self.stack_top) || self.private.iter().any(|&(lo, hi)| a >= lo && a < hi)
    }

    #[inline]
    pub(super) fn tick(&mut self) {
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
pub(super) struct Outcome {
    pub(super) buf: Option<WriteBuf>,
    /// In place: the result (None: it crashed).
    pub(super) trace: Option<Trace>,
    /// In place: what to put back to discard this execution's writes.
    pub(super) undo: Option<Undo>,
    pub(super) injected: bool,
    pub(super) thread: i32,
}

struct Call {
    f: TaskEntry,
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
pub(super) unsafe fn run_exec(f: TaskEntry, gtid: i32, task: *mut u8, size: usize, shsize: usize, first_two: bool, in_place: bool) -> Outcome {
    // SAFETY: the live descriptor (contract above).
    let shareds = unsafe { libomp::task_shareds(task) } as usize;
    let long = longest(f as usize).load(Relaxed);
    let mut inject = if first_two { faults::draw() } else { None };
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
    let thread = libomp::thread_num();
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
