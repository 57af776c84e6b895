//! The per-thread chain of instrumented frames, and its lazy restoration.
//!
//! Each thread has its own chain head (`TOP`, a const-initialised thread
//! local), so worker threads extend naturally later. `enter` and `leave` are
//! the hot path: one TLS load/store and one relaxed load of `RESTARTING`.
//!
//! Restart protocol: dao_main loads the saved chain (outermost first) into
//! `PENDING` and sets `RESTARTING`. Every frame entered on the main thread
//! must then be the next saved frame (same function and module, same frame
//! address, same stack-object addresses): its saved slots and stack objects
//! are copied in and its site is returned, so the function jumps to the call
//! that leads to the next frame. Entering the innermost (marker) frame
//! completes the restart.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use dao_format::Frame;

use crate::abi::DaoFrame;
use crate::desc::{self, FrameView};
use crate::diag::{self, fatal};
use crate::omp::is_main_thread;

thread_local! {
    static TOP: Cell<*mut DaoFrame> = const { Cell::new(std::ptr::null_mut()) };
}

static RESTARTING: AtomicBool = AtomicBool::new(false);

/// Read by the instrumented code at every function entry (one relaxed
/// byte load): non-zero while a restart is rebuilding the chain, and only
/// then does the entry call dao_frame_restore.
#[no_mangle]
pub static dao_restart_pending: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

fn set_restarting(on: bool) {
    RESTARTING.store(on, Ordering::Release);
    dao_restart_pending.store(on as u8, Ordering::Release);
}

struct Pending {
    frames: Vec<Frame<'static>>,
    next: usize,
}

/// What a restart still has to rebuild: the main thread's chain and, for a
/// checkpoint taken inside a parallel region, each worker's chain (by
/// thread number); a chain leaves when its innermost frame is entered.
struct Restart {
    master: Option<Pending>,
    workers: Vec<(u32, Pending)>,
    team_size: u32,
    file: String,
}
static PENDING: Mutex<Option<Restart>> = Mutex::new(None);

/// Innermost frame of the calling thread.
pub fn top() -> *mut DaoFrame {
    TOP.with(|t| t.get())
}

/// Arms the restart with the saved chains (the main thread's, and the
/// workers' of the team around the candidate).
pub fn begin_restart(frames: Vec<Frame<'static>>, workers: Vec<(u32, Vec<Frame<'static>>)>, team_size: u32, file: String) {
    if frames.is_empty() {
        return;
    }
    let workers = workers.into_iter().filter(|(_, f)| !f.is_empty()).map(|(t, frames)| (t, Pending { frames, next: 0 })).collect();
    *PENDING.lock().unwrap_or_else(|e| e.into_inner()) = Some(Restart { master: Some(Pending { frames, next: 0 }), workers, team_size, file });
    set_restarting(true);
}

/// Whether a restart has been armed and not yet completed.
pub fn restart_pending() -> Option<String> {
    let g = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    g.as_ref().map(|r| match &r.master {
        Some(p) => format!("{} (next frame {} of {} of the main thread)", r.file, p.next + 1, p.frames.len()),
        None => format!("{} ({} worker threads not yet back at their positions)", r.file, r.workers.len()),
    })
}

/// At the master's entry into a region during a restart: the region that
/// holds the checkpoint must have the team it had.
pub fn check_team_size(n: u32) {
    let g = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let Some(r) = g.as_ref() else { return };
    if r.team_size > 0 && r.master.is_some() && n != r.team_size {
        fatal(format_args!(
            "{} was taken inside a parallel region with {} threads, but the restarted region has {n}: the thread count cannot change inside a region (run with the same OMP_NUM_THREADS, or restart from a checkpoint taken between regions)",
            r.file, r.team_size
        ));
    }
}

/// dao_frame_enter.
///
/// # Safety
/// `frame` must point to a live frame record whose func/allocas/slots are set.
#[inline]
pub unsafe fn enter(frame: *mut DaoFrame) -> u32 {
    let parent = TOP.with(|t| t.replace(frame));
    // SAFETY: per the contract above.
    unsafe { (*frame).parent = parent };
    if !RESTARTING.load(Ordering::Relaxed) {
        return 0;
    }
    enter_restarting(frame)
}

/// dao_frame_leave.
///
/// # Safety
/// `frame` must be a live frame record previously entered on this thread.
#[inline]
pub unsafe fn leave(frame: *mut DaoFrame) {
    // SAFETY: per the contract above.
    let parent = unsafe { (*frame).parent };
    TOP.with(|t| t.set(parent));
}

/// dao_frame_restore: the frame was pushed by the instrumented code.
pub fn restore(frame: *mut DaoFrame) -> u32 {
    if !RESTARTING.load(Ordering::Acquire) {
        return 0;
    }
    enter_restarting(frame)
}

#[cold]
fn enter_restarting(frame: *mut DaoFrame) -> u32 {
    let mut g = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let Some(r) = g.as_mut() else { return 0 };
    let (who, p) = if is_main_thread() {
        let Some(p) = r.master.as_mut() else { return 0 };
        (String::from("the main thread"), p)
    } else {
        let t = crate::omp::tid();
        let Some((_, p)) = r.workers.iter_mut().find(|(w, _)| *w as i32 == t && t > 0) else { return 0 };
        (format!("thread {t}"), p)
    };
    let file = r.file.clone();
    let site = restore_frame(frame, p, &who, &file);
    if p.next == p.frames.len() {
        if is_main_thread() {
            r.master = None;
        } else {
            let t = crate::omp::tid();
            r.workers.retain(|(w, _)| *w as i32 != t);
        }
        if r.master.is_none() && r.workers.is_empty() {
            set_restarting(false);
            *g = None;
            if crate::session::verbose() {
                diag::info("restart complete: every thread resumed at its checkpointed position");
            }
        }
    }
    site
}

/// Checks `frame` against the next saved frame of `p` and restores it.
fn restore_frame(frame: *mut DaoFrame, p: &mut Pending, who: &str, file: &str) -> u32 {
    let saved = &p.frames[p.next];
    let Some(fv) = FrameView::read(frame) else { fatal("dao_frame_enter: frame without a function descriptor") };
    let name = desc::name(fv.func.name);
    let hash = fv.func.module().map_or(0, |m| m.module_hash);
    if name != saved.function || hash != saved.module_hash {
        fatal(format_args!(
            "restart diverged: {who} expected to enter {} at site {} (frame {} of {} in {}), entered {}; was the program, its input or its environment changed?",
            saved.function,
            saved.site,
            p.next + 1,
            p.frames.len(),
            file,
            name
        ));
    }
    if fv.addr as u64 != saved.frame_addr {
        fatal(format_args!(
            "stack layout differs: the frame of {} on {who} is at {:#x}, it was at {:#x} when {} was written (different binary, libc, libomp or stack settings?)",
            name, fv.addr, saved.frame_addr, file
        ));
    }
    let (slots, allocas) = (fv.func.slots(), fv.func.allocas());
    for o in &saved.stack_objects {
        let i = o.index as usize;
        let d = allocas.get(i).unwrap_or_else(|| fatal(format_args!("{file}: stack object {i} of {name} does not exist")));
        let addr = fv.alloca(i);
        if addr as u64 != o.addr || d.size != o.bytes.len() as u64 {
            fatal(format_args!(
                "stack layout differs: stack object {} of {} is at {:#x} ({} bytes), it was at {:#x} ({} bytes) in {}",
                o.name, name, addr, d.size, o.addr, o.bytes.len(), file
            ));
        }
        desc::write_memory(addr, &o.bytes);
    }
    for s in &saved.slots {
        let d = slots.get(s.index as usize);
        let ok = d.is_some_and(|d| d.size == s.bytes.len() as u64 && d.offset + d.size <= fv.func.slot_area_size);
        if !ok {
            fatal(format_args!("{file}: slot {} of {} does not match the function's slot table", s.name, name));
        }
        desc::write_memory(fv.slots + d.unwrap().offset as usize, &s.bytes);
    }
    let site = saved.site;
    if site == 0 || site > fv.func.n_sites {
        fatal(format_args!("{file}: site {site} of {name} does not exist"));
    }
    fv.set_site(site);
    p.next += 1;
    site
}
