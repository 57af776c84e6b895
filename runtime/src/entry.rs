//! Every C entry point of the runtime (dao_abi.h and dao.h).
//!
//! Each one catches panics (a Rust panic must never unwind into C) and
//! aborts with a message; fatal errors exit with status 3 (diag.rs).
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::Relaxed;

use crate::abi::{DaoFrame, DaoModuleDesc};
use crate::diag::{self, fatal};
use crate::omp::libomp;
use crate::{chain, checkpoint, heap, modules, policy, stack, startup};

#[inline(always)]
fn guard<R>(name: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            diag::info(format_args!("internal error in {name}: {msg}; aborting"));
            std::process::abort()
        }
    }
}

const NOT_INSTRUMENTED: &str = "dao_potential_checkpoint() called from code not compiled with the dao pass; no checkpoint taken";

/// Reached only from code the pass did not instrument.
#[no_mangle]
pub extern "C" fn dao_potential_checkpoint() {
    guard("dao_potential_checkpoint", || diag::warn_once("uninstrumented", NOT_INSTRUMENTED));
}

/// Reached only from code the pass did not instrument.
#[no_mangle]
pub extern "C" fn dao_checkpoint_now() {
    guard("dao_checkpoint_now", || {
        diag::warn_once(
            "uninstrumented-now",
            "dao_checkpoint_now() called from code not compiled with the dao pass; no checkpoint taken",
        )
    });
}

/// # Safety
/// `m` must point to a module descriptor per dao_abi.h.
#[no_mangle]
pub unsafe extern "C" fn dao_register_module(m: *const DaoModuleDesc) {
    guard("dao_register_module", || modules::register(m));
}

/// # Safety
/// `frame` must be a live frame record with func/allocas/slots set.
#[no_mangle]
pub unsafe extern "C" fn dao_frame_enter(frame: *mut DaoFrame) -> u32 {
    // SAFETY: forwarded contract.
    guard("dao_frame_enter", || unsafe { chain::enter(frame) })
}

/// The restart half of dao_frame_enter, for code that pushes the frame
/// inline (what the pass emits): called only while dao_restart_pending is
/// set. Returns the saved site to resume at, or 0.
///
/// # Safety
/// `frame` must point to a live frame record, already linked to its parent.
#[no_mangle]
pub unsafe extern "C" fn dao_frame_restore(frame: *mut DaoFrame) -> u32 {
    guard("dao_frame_restore", || chain::restore(frame))
}

/// # Safety
/// `frame` must be the live frame record entered last on this thread.
#[no_mangle]
pub unsafe extern "C" fn dao_frame_leave(frame: *mut DaoFrame) {
    // SAFETY: forwarded contract.
    guard("dao_frame_leave", || unsafe { chain::leave(frame) })
}

fn candidate(frame: *mut DaoFrame, forced: bool) {
    if !policy::ACTIVE.load(Relaxed) {
        return;
    }
    if let Some(at) = crate::omp::region::held() {
        held_candidate(frame, forced, &at);
        return;
    }
    if !crate::omp::is_main_thread() {
        // A worker of a team: it stops here if the master is gathering the
        // team for a checkpoint (protocol/); it never decides one itself.
        crate::protocol::worker_stop(frame);
        return;
    }
    // Counting re-arms the countdown, so it happens even when no checkpoint
    // can be taken here. Forced checkpoints are not candidates.
    let due = forced || policy::candidate_due();
    if forced {
        policy::set_trigger(policy::TRIGGER_FORCED);
    }
    if crate::profile::enabled() {
        if !forced {
            crate::profile::record(frame);
        }
        return;
    }
    // MPI: every rank looks at this candidate together (checkpoint.rs)
    let due = if crate::mpi::coordinated() { checkpoint::mpi_look(frame, due) } else { due };
    if due {
        // with what a batch system's signal or deadline asks (stop.rs)
        crate::stop::take(frame);
    } else if forced {
        policy::clear_trigger();
    }
}

/// A candidate inside a held region (omp/region.rs): never a checkpoint. A
/// worker goes on (its master cannot be gathering: it decides only outside
/// held regions). The master counts the candidate; one that is due (or
/// forced) is owed to the next candidate outside. In an MPI job the master
/// neither counts nor looks: every rank looks at the same candidates, the
/// first ones after the region.
fn held_candidate(frame: *mut DaoFrame, forced: bool, at: &str) {
    if !crate::omp::is_main_thread() || crate::mpi::coordinated() {
        return;
    }
    let due = policy::candidate_due() || forced;
    if crate::profile::enabled() {
        return;
    }
    crate::omp::region::count_held(due);
    if due {
        policy::owe();
        crate::diag::warn_once(
            "held region",
            format_args!(
                "checkpoint due at {} not taken: it is inside a parallel region whose worksharing loop at {at} has a dynamic, guided, runtime or ordered schedule (which chunks libomp has handed out cannot be restored); the next candidate outside the region takes it (this warning is shown once)",
                checkpoint::site_name(frame)
            ),
        );
    }
}

/// # Safety
/// `frame` must be the innermost live frame record of this thread.
#[no_mangle]
pub unsafe extern "C" fn dao_candidate(frame: *mut DaoFrame) {
    guard("dao_candidate", || candidate(frame, false));
}

/// # Safety
/// As dao_candidate.
#[no_mangle]
pub unsafe extern "C" fn dao_forced(frame: *mut DaoFrame) {
    guard("dao_forced", || candidate(frame, true));
}

/// # Safety
/// Called by the main emitted by the pass with main's arguments.
#[no_mangle]
pub unsafe extern "C" fn dao_main(
    argc: c_int,
    argv: *mut *mut c_char,
    envp: *mut *mut c_char,
    user_main: Option<stack::UserMain>,
) -> c_int {
    let size = guard("dao_main", || {
        crate::config::prepare_env();
        let cfg = crate::config::Config::from_env();
        crate::placement::setup(&cfg);
        crate::profile::setup(&cfg);
        crate::task_ft::setup(&cfg);
        let size = stack::stack_size(cfg.stack_size);
        startup::start(cfg);
        // (libc's registration itself, not the program's `atexit`, which
        // `--wrap=atexit` makes the recording one)
        crate::process::runtime_atexit(at_exit);
        size
    });
    let Some(f) = user_main else { fatal("dao_main called without a main function") };
    // main returned: a background writer is waited for on its thread (the
    // writer dies with the thread that forked it, PR_SET_PDEATHSIG)
    stack::run_on_fixed_stack(size, f, argc, argv, envp, || {
        crate::session::with(crate::background::finish);
    })
}

extern "C" fn at_exit() {
    // The program's C stdio output goes out before the run is marked
    // finished (glibc flushes streams only after the atexit handlers): a
    // kill after the marker then loses no output of a run that is not
    // resumed any more.
    // SAFETY: fflush(NULL) flushes every open output stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    guard("exit hook", startup::at_exit);
}

/// First call of the emitted `__dao_main_adapter`, on the thread that runs
/// the program's main: hands over that thread's `dao_tls_poll` and puts
/// back its saved thread-local state (ICVs, threadprivate values).
///
/// # Safety
/// `poll` must be the calling thread's dao_tls_poll.
#[no_mangle]
pub unsafe extern "C" fn dao_thread_start(poll: *mut i64) {
    // SAFETY: forwarded contract.
    guard("dao_thread_start", || unsafe {
        policy::set_poll_cell(poll);
        crate::omp::main_thread_start();
    });
}

// ---- OpenMP teams (omp/ and protocol/; the protocol is in protocol/README.md) ----

/// # Safety
/// `frame` must be the calling thread's innermost live frame record.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_fork(frame: *mut DaoFrame) {
    guard("dao_omp_fork", || crate::protocol::fork(frame));
}

/// # Safety
/// As dao_omp_fork.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_join(frame: *mut DaoFrame) {
    guard("dao_omp_join", || crate::protocol::join(frame));
}

/// # Safety
/// As dao_omp_fork (the frame of an outlined function, just pushed).
#[no_mangle]
pub unsafe extern "C" fn dao_omp_begin(frame: *mut DaoFrame) {
    guard("dao_omp_begin", || crate::protocol::begin(frame));
}

/// # Safety
/// As dao_omp_begin, at a return of the outlined function.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_end(frame: *mut DaoFrame) {
    guard("dao_omp_end", || crate::protocol::end(frame));
}

/// # Safety
/// As dao_omp_fork, right before a barrier.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_park(frame: *mut DaoFrame) {
    guard("dao_omp_park", || crate::protocol::park(frame));
}

/// # Safety
/// As dao_omp_park, right after the barrier.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_unpark(frame: *mut DaoFrame) {
    guard("dao_omp_unpark", || crate::protocol::unpark(frame));
}

/// At the entry of a held region's outlined function (after dao_omp_begin):
/// no checkpoint while this thread is inside (omp/region.rs). `at`: the
/// position of the region's dynamic loop, a constant string.
#[no_mangle]
pub extern "C" fn dao_omp_hold_begin(at: *const c_char) {
    crate::omp::region::hold_begin(at);
}

/// At each return of a held region's outlined function.
#[no_mangle]
pub extern "C" fn dao_omp_hold_end() {
    crate::omp::region::hold_end();
}

/// The slow path of a shared-write guard: the pass emits
/// `if (dao_omp_guard) dao_omp_guard_wait();` before every write that may
/// touch shared data and every lock acquisition (hoisted to the entry of
/// loops with no check-in point). Waits while this thread has checked in
/// for a non-blocking round whose shared state is not saved yet.
#[no_mangle]
pub extern "C" fn dao_omp_guard_wait() {
    guard("dao_omp_guard_wait", crate::protocol::guard_wait);
}

/// `__kmpc_single`, routed here by the pass (omp/singles.rs: instances already won
/// before a checkpoint are not run again after the restart).
///
/// # Safety
/// libomp's contract of __kmpc_single.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_single(ident: *mut c_void, gtid: c_int) -> c_int {
    // SAFETY: forwarded contract.
    guard("dao_omp_single", || unsafe { crate::omp::single(ident, gtid) })
}

/// The `__kmpc_single` of a `single` block that reaches a marker, routed
/// here by the pass: the team's thread 0 runs it (omp/singles.rs).
#[no_mangle]
pub extern "C" fn dao_omp_single_master(_ident: *mut c_void, _gtid: c_int) -> c_int {
    guard("dao_omp_single_master", crate::omp::singles::master_single)
}

/// `__kmpc_threadprivate_cached`, routed here by the pass: the calling
/// thread's copy of a threadprivate variable (omp/tp.rs: the main thread's
/// is the original, the workers' lie in the fixed-address arena).
///
/// # Safety
/// libomp's contract of __kmpc_threadprivate_cached: `cache` is the
/// compiler's cache variable of `data`, `size` its size.
#[no_mangle]
pub unsafe extern "C" fn dao_threadprivate_cached(_ident: *mut c_void, gtid: c_int, data: *mut u8, size: u64, cache: *mut *mut u8) -> *mut u8 {
    // SAFETY: forwarded contract.
    guard("dao_threadprivate_cached", || unsafe { crate::omp::tp::cached(gtid, data, size, cache) })
}

// ---- explicit tasks in flight (omp/tasks.rs) ----

/// `__kmpc_omp_task_alloc`, routed here by the pass: the task is in flight
/// until its entry returns.
///
/// # Safety
/// libomp's contract of __kmpc_omp_task_alloc.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_task_new(ident: *mut c_void, gtid: c_int, flags: c_int, sizeof_task: u64, sizeof_shareds: u64, entry: *mut c_void) -> *mut c_void {
    crate::omp::tasks::created();
    // SAFETY: forwarded contract.
    unsafe { libomp::task_alloc(ident, gtid, flags, sizeof_task as usize, sizeof_shareds as usize, entry) as *mut c_void }
}

/// `__kmpc_omp_task_alloc` called by code the pass did not see, linked
/// statically (`dao cc`/`dao fc` link with `--wrap=__kmpc_omp_task_alloc`;
/// instrumented code calls `dao_omp_task_new` instead): the task cannot be
/// counted, so its region takes no checkpoint until it ends
/// (omp/tasks.rs `uninstrumented`).
///
/// # Safety
/// libomp's contract of __kmpc_omp_task_alloc.
#[no_mangle]
pub unsafe extern "C" fn __wrap___kmpc_omp_task_alloc(ident: *mut c_void, gtid: c_int, flags: c_int, sizeof_task: u64, sizeof_shareds: u64, entry: *mut c_void) -> *mut c_void {
    // SAFETY: libomp's ident_t, when the caller passed one.
    let psource = unsafe { libomp::psource(ident) };
    crate::omp::tasks::uninstrumented(psource);
    // SAFETY: forwarded contract.
    unsafe { libomp::task_alloc(ident, gtid, flags, sizeof_task as usize, sizeof_shareds as usize, entry) as *mut c_void }
}

/// The end of an instrumented task's entry (the pass's trampoline).
#[no_mangle]
pub extern "C" fn dao_omp_task_done() {
    crate::omp::tasks::finished();
}

/// `__kmpc_taskloop`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_taskloop.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_taskloop(
    ident: *mut c_void,
    gtid: c_int,
    task: *mut c_void,
    if_val: c_int,
    lb: *mut c_void,
    ub: *mut c_void,
    st: i64,
    nogroup: c_int,
    sched: c_int,
    grainsize: u64,
    task_dup: *mut c_void,
) {
    taskloop_start(nogroup);
    // SAFETY: forwarded contract.
    unsafe { libomp::taskloop(ident, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, task_dup) }
}

/// `__kmpc_taskloop_5`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_taskloop_5.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_taskloop_5(
    ident: *mut c_void,
    gtid: c_int,
    task: *mut c_void,
    if_val: c_int,
    lb: *mut c_void,
    ub: *mut c_void,
    st: i64,
    nogroup: c_int,
    sched: c_int,
    grainsize: u64,
    modifier: c_int,
    task_dup: *mut c_void,
) {
    taskloop_start(nogroup);
    // SAFETY: forwarded contract.
    unsafe { libomp::taskloop_5(ident, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier, task_dup) }
}

/// `__kmpc_taskgroup`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_taskgroup.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_taskgroup(ident: *mut c_void, gtid: c_int) {
    crate::omp::tasks::group_begin();
    // SAFETY: forwarded contract.
    unsafe { libomp::taskgroup(ident, gtid) }
}

/// `__kmpc_end_taskgroup`, routed here by the pass.
///
/// # Safety
/// libomp's contract of __kmpc_end_taskgroup.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_end_taskgroup(ident: *mut c_void, gtid: c_int) {
    // SAFETY: forwarded contract.
    unsafe { libomp::end_taskgroup(ident, gtid) };
    crate::omp::tasks::group_end();
}

/// The pattern task of a taskloop never runs as itself; with `nogroup` its
/// copies may outlive the call, uncounted.
fn taskloop_start(nogroup: c_int) {
    crate::omp::tasks::finished();
    if nogroup != 0 {
        crate::omp::tasks::untracked();
    }
}

// ---- fault-tolerant tasks (task_ft/) ----
//
// The hooks run for every load and store of a replica: no `guard` (a panic
// in them aborts, as any panic across this boundary).

/// The trampoline's body of a replicable task entry.
///
/// # Safety
/// libomp's contract of a task entry: `task` is the descriptor `entry` was
/// allocated for, `sizeof_task`/`sizeof_shareds` the sizes given to
/// `__kmpc_omp_task_alloc`; `replica` is the pass's replica of `entry`.
#[no_mangle]
pub unsafe extern "C" fn dao_ft_task(gtid: c_int, task: *mut u8, entry: *mut c_void, replica: *mut c_void, in_place: *mut c_void, sizeof_task: u64, sizeof_shareds: u64) {
    // SAFETY: all three are task entries of that type (contract above).
    let f = |p: *mut c_void| unsafe { std::mem::transmute::<*mut c_void, libomp::TaskEntry>(p) };
    // SAFETY: forwarded contract.
    unsafe { crate::task_ft::run_task(gtid, task, f(entry), f(replica), f(in_place), sizeof_task as usize, sizeof_shareds as usize) }
}

/// A replica's load of `size` bytes at `addr` into its scratch `dst`.
///
/// # Safety
/// As the load it replaces; `dst` is writable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn dao_ft_load(addr: *const u8, dst: *mut u8, size: u64, kind: c_int) {
    // SAFETY: forwarded contract.
    unsafe { crate::task_ft::load(addr, dst, size as usize, kind) }
}

/// A replica's store of `size` bytes from its scratch `src` at `addr`.
///
/// # Safety
/// As the store it replaces.
#[no_mangle]
pub unsafe extern "C" fn dao_ft_store(addr: *mut u8, src: *const u8, size: u64) {
    // SAFETY: forwarded contract.
    unsafe { crate::task_ft::store(addr, src, size as usize) }
}

/// A replica's memcpy or memmove.
///
/// # Safety
/// As the call it replaces.
#[no_mangle]
pub unsafe extern "C" fn dao_ft_copy(dst: *mut u8, src: *const u8, n: u64) {
    // SAFETY: forwarded contract.
    unsafe { crate::task_ft::copy(dst, src, n as usize) }
}

/// A replica's memset.
///
/// # Safety
/// As the call it replaces.
#[no_mangle]
pub unsafe extern "C" fn dao_ft_set(dst: *mut u8, byte: c_int, n: u64) {
    // SAFETY: forwarded contract.
    unsafe { crate::task_ft::set(dst, byte, n as usize) }
}

// ---- the fixed-address heap ----

fn set_errno(e: c_int) {
    // SAFETY: errno is thread-local storage of this thread.
    unsafe { *libc::__errno_location() = e };
}

fn malloc(n: u64) -> *mut u8 {
    let p = heap::with(|h| h.malloc(n as usize));
    if p.is_null() {
        set_errno(libc::ENOMEM);
    }
    p
}

#[no_mangle]
pub extern "C" fn dao_malloc(size: u64) -> *mut c_void {
    guard("dao_malloc", || malloc(size) as *mut c_void)
}

#[no_mangle]
pub extern "C" fn dao_calloc(n: u64, size: u64) -> *mut c_void {
    guard("dao_calloc", || {
        let Some(total) = n.checked_mul(size) else {
            set_errno(libc::ENOMEM);
            return std::ptr::null_mut();
        };
        let p = malloc(total);
        if !p.is_null() {
            // SAFETY: p has at least `total` bytes.
            unsafe { std::ptr::write_bytes(p, 0, total as usize) };
        }
        p as *mut c_void
    })
}

/// # Safety
/// `p` is NULL, a live block of this heap, or a live libc block.
#[no_mangle]
pub unsafe extern "C" fn dao_free(p: *mut c_void) {
    guard("dao_free", || {
        if p.is_null() {
            return;
        }
        if heap::in_region(p as *const u8) {
            if !heap::with(|h| h.free(p as *mut u8)) {
                fatal(format_args!("free({p:p}): not an allocated block of the dao heap (double free or invalid pointer)"));
            }
        } else {
            // SAFETY: a block of the C library's allocator (uninstrumented
            // code). __libc_free, not free: under `-Wl,--wrap=free` the
            // name `free` would come straight back here.
            unsafe { crate::libc_alloc::__libc_free(p) }
        }
    })
}

/// # Safety
/// As dao_free.
#[no_mangle]
pub unsafe extern "C" fn dao_realloc(p: *mut c_void, size: u64) -> *mut c_void {
    guard("dao_realloc", || {
        if p.is_null() {
            return malloc(size) as *mut c_void;
        }
        if size == 0 {
            // SAFETY: forwarded contract.
            unsafe { dao_free(p) };
            return std::ptr::null_mut();
        }
        if heap::in_region(p as *const u8) {
            let q = heap::with(|h| h.realloc(p as *mut u8, size as usize)).unwrap_or_else(|| {
                fatal(format_args!("realloc({p:p}): not an allocated block of the dao heap"))
            });
            if q.is_null() {
                set_errno(libc::ENOMEM);
            }
            return q as *mut c_void;
        }
        // A block from the C library: move it into the dao heap.
        let q = malloc(size);
        if !q.is_null() {
            // SAFETY: p is a live libc block of malloc_usable_size(p) bytes;
            // q has `size` bytes; they do not overlap.
            unsafe {
                let old = libc::malloc_usable_size(p) as u64;
                std::ptr::copy_nonoverlapping(p as *const u8, q, old.min(size) as usize);
                crate::libc_alloc::__libc_free(p);
            }
        }
        q as *mut c_void
    })
}

#[no_mangle]
pub extern "C" fn dao_aligned_alloc(align: u64, size: u64) -> *mut c_void {
    guard("dao_aligned_alloc", || {
        if !align.is_power_of_two() {
            set_errno(libc::EINVAL);
            return std::ptr::null_mut();
        }
        let p = heap::with(|h| h.aligned_alloc(align as usize, size as usize));
        if p.is_null() {
            set_errno(libc::ENOMEM);
        }
        p as *mut c_void
    })
}

/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn dao_posix_memalign(out: *mut *mut c_void, align: u64, size: u64) -> c_int {
    guard("dao_posix_memalign", || {
        if !align.is_power_of_two() || align % std::mem::size_of::<*mut c_void>() as u64 != 0 {
            return libc::EINVAL;
        }
        let p = heap::with(|h| h.aligned_alloc(align as usize, size as usize));
        if p.is_null() {
            return libc::ENOMEM;
        }
        // SAFETY: per the contract.
        unsafe { *out = p as *mut c_void };
        0
    })
}

/// # Safety
/// `s` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn dao_strdup(s: *const c_char) -> *mut c_char {
    // SAFETY: forwarded contract.
    guard("dao_strdup", || unsafe { dup(s, libc::strlen(s) as u64) })
}

/// # Safety
/// `s` must be readable up to NUL or `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn dao_strndup(s: *const c_char, n: u64) -> *mut c_char {
    // SAFETY: forwarded contract.
    guard("dao_strndup", || unsafe { dup(s, libc::strnlen(s, n as usize) as u64) })
}

/// # Safety
/// `s` must have `len` readable bytes.
unsafe fn dup(s: *const c_char, len: u64) -> *mut c_char {
    let p = malloc(len + 1);
    if !p.is_null() {
        // SAFETY: s has len bytes, p has len + 1.
        unsafe {
            std::ptr::copy_nonoverlapping(s as *const u8, p, len as usize);
            *p.add(len as usize) = 0;
        }
    }
    p as *mut c_char
}
