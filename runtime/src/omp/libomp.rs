//! libomp, looked up at run time with `dlsym`, so programs without OpenMP
//! do not need it at link time; the master's internal control variables
//! (ICVs) read and applied through it. The one place that knows libomp's
//! entry names (`omp_*`, `__kmpc_*`), their C function types and the
//! `kmp_task_t` / `ident_t` layouts: every other file calls through here.
use std::ffi::c_void;
use std::sync::OnceLock;

use dao_format::OmpState;

struct Omp {
    thread_num: unsafe extern "C" fn() -> i32,
    num_threads: unsafe extern "C" fn() -> i32,
    max_threads: unsafe extern "C" fn() -> i32,
    set_num_threads: unsafe extern "C" fn(i32),
    get_dynamic: unsafe extern "C" fn() -> i32,
    set_dynamic: unsafe extern "C" fn(i32),
    get_max_active_levels: unsafe extern "C" fn() -> i32,
    set_max_active_levels: unsafe extern "C" fn(i32),
    get_schedule: unsafe extern "C" fn(*mut i32, *mut i32),
    set_schedule: unsafe extern "C" fn(i32, i32),
}

/// A symbol of the process (libomp's, when it is loaded), as the function
/// pointer type `T`.
pub(crate) fn sym<T: Copy>(name: &std::ffi::CStr) -> Option<T> {
    // SAFETY: dlsym with a NUL-terminated name; the caller gives T the
    // function's C type (a function pointer of the same size).
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: see above.
    Some(unsafe { std::mem::transmute_copy::<*mut libc::c_void, T>(&p) })
}

fn omp() -> Option<&'static Omp> {
    static OMP: OnceLock<Option<Omp>> = OnceLock::new();
    OMP.get_or_init(|| {
        Some(Omp {
            thread_num: sym(c"omp_get_thread_num")?,
            num_threads: sym(c"omp_get_num_threads")?,
            max_threads: sym(c"omp_get_max_threads")?,
            set_num_threads: sym(c"omp_set_num_threads")?,
            get_dynamic: sym(c"omp_get_dynamic")?,
            set_dynamic: sym(c"omp_set_dynamic")?,
            get_max_active_levels: sym(c"omp_get_max_active_levels")?,
            set_max_active_levels: sym(c"omp_set_max_active_levels")?,
            get_schedule: sym(c"omp_get_schedule")?,
            set_schedule: sym(c"omp_set_schedule")?,
        })
    })
    .as_ref()
}

/// omp_get_thread_num (0 without libomp).
pub(crate) fn thread_num() -> i32 {
    // SAFETY: libomp's omp_get_thread_num, no arguments.
    omp().map_or(0, |o| unsafe { (o.thread_num)() })
}

/// omp_get_num_threads (1 without libomp).
pub(crate) fn num_threads() -> i32 {
    // SAFETY: libomp query inside the region.
    omp().map_or(1, |o| unsafe { (o.num_threads)() })
}

/// omp_get_max_threads (1 without libomp).
pub(crate) fn max_threads() -> i32 {
    // SAFETY: libomp query, no arguments.
    omp().map_or(1, |o| unsafe { (o.max_threads)() })
}

/// The master's internal control variables now (serial code).
pub fn icvs() -> OmpState {
    let Some(o) = omp() else { return OmpState::default() };
    let (mut kind, mut chunk) = (0i32, 0i32);
    // SAFETY: libomp getters; get_schedule writes the two ints we pass.
    unsafe {
        (o.get_schedule)(&mut kind, &mut chunk);
        OmpState {
            team_size: 0,
            nthreads: (o.max_threads)().max(0) as u32,
            dynamic: (o.get_dynamic)() as u32,
            max_active_levels: (o.get_max_active_levels)().max(0) as u32,
            sched_kind: kind as u32,
            sched_chunk: chunk,
            singles_won: 0,
            master_singles: 0,
        }
    }
}

/// Applies saved ICVs (at restart, before main runs).
pub fn apply_icvs(s: &OmpState) {
    let Some(o) = omp() else { return };
    if s.nthreads == 0 {
        return;
    }
    // SAFETY: libomp setters with plain integers.
    unsafe {
        (o.set_num_threads)(s.nthreads as i32);
        (o.set_dynamic)(s.dynamic as i32);
        (o.set_max_active_levels)(s.max_active_levels as i32);
        if s.sched_kind != 0 {
            (o.set_schedule)(s.sched_kind as i32, s.sched_chunk);
        }
    }
}

// ---- libomp's task and construct entry points (`__kmpc_*`) ----
//
// Every `__kmpc_*` name, its C function type and the `kmp_task_t` /
// `ident_t` layouts the runtime relies on are written here and nowhere
// else: entry.rs forwards the calls the pass routes to the runtime,
// singles.rs forwards `single`, task_ft/ queues replica tasks.

/// libomp's `ident_t` (source location of a construct), for the runtime's
/// own calls into libomp.
#[repr(C)]
pub struct Ident {
    reserved_1: i32,
    flags: i32,
    reserved_2: i32,
    reserved_3: i32,
    psource: *const u8,
}
// SAFETY: read-only after construction (a static string and integers).
unsafe impl Sync for Ident {}

impl Ident {
    /// An `ident_t` with flags `KMP_IDENT_KMPC` (2) and location string
    /// `psource` (libomp's `;file;function;line;col;;`).
    pub const fn new(psource: &'static std::ffi::CStr) -> Ident {
        Ident { reserved_1: 0, flags: 2, reserved_2: 0, reserved_3: 0, psource: psource.as_ptr() as *const u8 }
    }
}

/// Offset of `ident_t.psource`.
const IDENT_PSOURCE: usize = 16;

/// The `psource` string of a libomp `ident_t` (None for a null pointer or
/// a null string).
///
/// # Safety
/// `ident` is null or points to an `ident_t`.
pub unsafe fn psource(ident: *const c_void) -> Option<String> {
    if ident.is_null() {
        return None;
    }
    // SAFETY: the caller's ident_t (i32 reserved_1, flags, reserved_2,
    // reserved_3, then psource at offset 16): a C string or null.
    unsafe {
        let p = *(ident as *const u8).add(IDENT_PSOURCE).cast::<*const std::ffi::c_char>();
        (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// `kmp_task_t`, the descriptor `__kmpc_omp_task_alloc` returns:
/// `shareds` (pointer to the shareds block), `routine`, `part_id`,
/// `data1` (`kmp_cmplrdata_t`: destructors), `data2` (priority), then the
/// compiler's privates and firstprivate captures.
mod kmp_task {
    /// Offset of `shareds`, the descriptor's first word.
    pub const SHAREDS: usize = 0;
    /// The first two words (shareds, routine): what a copy of a task's
    /// private part leaves out.
    pub const HEAD: usize = 16;
    /// Offset of `data1` (the destructors thunk; unused by a task created
    /// without the destructors flag).
    pub const DATA1: usize = 24;
    /// Offset of `data2`: the task's priority.
    pub const DATA2: usize = 32;
    /// `sizeof(kmp_task_t)`.
    pub const SIZE: usize = 40;
}

/// `sizeof(kmp_task_t)`: a smaller descriptor is not a task's.
pub const TASK_DESC_SIZE: usize = kmp_task::SIZE;
/// Task flags `tiedness` (1: a tied task) and `priority_specified` (0x20).
pub const TASK_TIED_WITH_PRIORITY: i32 = 1 | 0x20;

/// The shareds block of task descriptor `task` (null when it has none).
///
/// # Safety
/// `task` is a live task descriptor.
pub unsafe fn task_shareds(task: *mut u8) -> *mut u8 {
    // SAFETY: kmp_task_t.shareds, a word of the live descriptor.
    unsafe { *(task.add(kmp_task::SHAREDS) as *const *mut u8) }
}

/// The private part of a descriptor of `size` bytes (everything after
/// `shareds` and `routine`: part_id, data1, data2, the privates and
/// captures), copied.
///
/// # Safety
/// `task` is a live task descriptor of `size >= TASK_DESC_SIZE` bytes.
pub unsafe fn task_private(task: *mut u8, size: usize) -> Vec<u8> {
    // SAFETY: see above.
    unsafe { std::slice::from_raw_parts(task.add(kmp_task::HEAD), size - kmp_task::HEAD).to_vec() }
}

/// Writes a private part taken by [`task_private`] back into a descriptor
/// of the same size, and `shareds` into its shareds block (when it has
/// one).
///
/// # Safety
/// `task` is a live task descriptor of `private.len() + 16` bytes whose
/// shareds block, if any, has `shareds.len()` bytes.
pub unsafe fn set_task_state(task: *mut u8, private: &[u8], shareds: &[u8]) {
    // SAFETY: see above.
    unsafe {
        std::ptr::copy_nonoverlapping(private.as_ptr(), task.add(kmp_task::HEAD), private.len());
        let sh = task_shareds(task);
        if !sh.is_null() {
            std::ptr::copy_nonoverlapping(shareds.as_ptr(), sh, shareds.len());
        }
    }
}

/// Stores `slot` in the descriptor's `data1` word (the destructors thunk,
/// unused by a task allocated without the destructors flag) and
/// `priority` in `data2`, until the task starts: see [`task_slot`] and
/// [`clear_task_slot`].
///
/// # Safety
/// `task` is a fresh descriptor from `__kmpc_omp_task_alloc`, not queued.
pub unsafe fn set_task_slot(task: *mut u8, slot: *mut c_void, priority: u64) {
    // SAFETY: see above.
    unsafe {
        *(task.add(kmp_task::DATA1) as *mut *mut c_void) = slot;
        *(task.add(kmp_task::DATA2) as *mut u64) = priority;
    }
}

/// The slot [`set_task_slot`] stored.
///
/// # Safety
/// `task` is the running descriptor [`set_task_slot`] was given, before
/// [`clear_task_slot`].
pub unsafe fn task_slot(task: *mut u8) -> *mut c_void {
    // SAFETY: see above.
    unsafe { *(task.add(kmp_task::DATA1) as *const *mut c_void) }
}

/// Gives `data1` and `data2` their bytes from `private` (a
/// [`task_private`] of the task's original) back, so that the running task
/// does not find the slot or priority as data.
///
/// # Safety
/// `task` is a live descriptor, `private` a private part of its size.
pub unsafe fn clear_task_slot(task: *mut u8, private: &[u8]) {
    // SAFETY: see above (data1 and data2 lie inside the private part).
    unsafe { std::ptr::copy_nonoverlapping(private.as_ptr().add(kmp_task::DATA1 - kmp_task::HEAD), task.add(kmp_task::DATA1), 16) }
}

/// A task's routine (`kmp_routine_entry_t`).
pub type TaskEntry = unsafe extern "C" fn(i32, *mut u8) -> i32;
/// `__kmpc_omp_task_alloc(ident, gtid, flags, sizeof_kmp_task_t,
/// sizeof_shareds, task_entry)`: the descriptor.
pub type TaskAlloc = unsafe extern "C" fn(*const c_void, i32, i32, usize, usize, *const c_void) -> *mut u8;
/// `__kmpc_omp_task(ident, gtid, task)`.
pub type TaskQueue = unsafe extern "C" fn(*const c_void, i32, *mut u8) -> i32;
/// `__kmpc_omp_taskwait(ident, gtid)`.
pub type Taskwait = unsafe extern "C" fn(*const c_void, i32) -> i32;
/// `__kmpc_single(ident, gtid)`.
pub type Single = unsafe extern "C" fn(*mut c_void, i32) -> i32;
/// `__kmpc_taskgroup` / `__kmpc_end_taskgroup(ident, gtid)`.
pub type Taskgroup = unsafe extern "C" fn(*mut c_void, i32);
/// `__kmpc_taskloop(ident, gtid, task, if_val, lb, ub, st, nogroup, sched,
/// grainsize, task_dup)`.
pub type Taskloop = unsafe extern "C" fn(*mut c_void, i32, *mut c_void, i32, *mut c_void, *mut c_void, i64, i32, i32, u64, *mut c_void);
/// `__kmpc_taskloop_5`: `__kmpc_taskloop` with `modifier` before `task_dup`.
pub type Taskloop5 = unsafe extern "C" fn(*mut c_void, i32, *mut c_void, i32, *mut c_void, *mut c_void, i64, i32, i32, u64, i32, *mut c_void);

const TASK_ALLOC: &std::ffi::CStr = c"__kmpc_omp_task_alloc";

/// libomp's function `name`, which the program calls, so it is there
/// (else a fatal error).
fn called<T: Copy>(cell: &'static OnceLock<T>, name: &'static std::ffi::CStr) -> T {
    *cell.get_or_init(|| sym(name).unwrap_or_else(|| crate::diag::fatal(format!("{} is not in the process", name.to_string_lossy()))))
}

/// `__kmpc_omp_task_alloc`, for a call the program makes.
///
/// # Safety
/// libomp's contract of `__kmpc_omp_task_alloc`.
pub unsafe fn task_alloc(ident: *const c_void, gtid: i32, flags: i32, sizeof_task: usize, sizeof_shareds: usize, entry: *const c_void) -> *mut u8 {
    static F: OnceLock<TaskAlloc> = OnceLock::new();
    // SAFETY: forwarded contract.
    unsafe { called(&F, TASK_ALLOC)(ident, gtid, flags, sizeof_task, sizeof_shareds, entry) }
}

/// `__kmpc_taskloop`, for a call the program makes.
///
/// # Safety
/// libomp's contract of `__kmpc_taskloop`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn taskloop(ident: *mut c_void, gtid: i32, task: *mut c_void, if_val: i32, lb: *mut c_void, ub: *mut c_void, st: i64, nogroup: i32, sched: i32, grainsize: u64, task_dup: *mut c_void) {
    static F: OnceLock<Taskloop> = OnceLock::new();
    // SAFETY: forwarded contract.
    unsafe { called(&F, c"__kmpc_taskloop")(ident, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, task_dup) }
}

/// `__kmpc_taskloop_5`, for a call the program makes.
///
/// # Safety
/// libomp's contract of `__kmpc_taskloop_5`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn taskloop_5(
    ident: *mut c_void,
    gtid: i32,
    task: *mut c_void,
    if_val: i32,
    lb: *mut c_void,
    ub: *mut c_void,
    st: i64,
    nogroup: i32,
    sched: i32,
    grainsize: u64,
    modifier: i32,
    task_dup: *mut c_void,
) {
    static F: OnceLock<Taskloop5> = OnceLock::new();
    // SAFETY: forwarded contract.
    unsafe { called(&F, c"__kmpc_taskloop_5")(ident, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier, task_dup) }
}

/// `__kmpc_taskgroup`, for a call the program makes.
///
/// # Safety
/// libomp's contract of `__kmpc_taskgroup`.
pub unsafe fn taskgroup(ident: *mut c_void, gtid: i32) {
    static F: OnceLock<Taskgroup> = OnceLock::new();
    // SAFETY: forwarded contract.
    unsafe { called(&F, c"__kmpc_taskgroup")(ident, gtid) }
}

/// `__kmpc_end_taskgroup`, for a call the program makes.
///
/// # Safety
/// libomp's contract of `__kmpc_end_taskgroup`.
pub unsafe fn end_taskgroup(ident: *mut c_void, gtid: i32) {
    static F: OnceLock<Taskgroup> = OnceLock::new();
    // SAFETY: forwarded contract.
    unsafe { called(&F, c"__kmpc_end_taskgroup")(ident, gtid) }
}

/// `__kmpc_single` (the program calls it: a fatal error when libomp is not
/// loaded).
pub fn single_fn() -> Single {
    static REAL: OnceLock<Option<Single>> = OnceLock::new();
    let Some(real) = *REAL.get_or_init(|| sym(c"__kmpc_single")) else {
        crate::diag::fatal("__kmpc_single not found: the program calls it but libomp is not loaded");
    };
    real
}

/// libomp's task functions the runtime calls itself (fault-tolerant tasks:
/// a replica task is allocated, queued and waited for).
pub struct Tasks {
    pub alloc: TaskAlloc,
    pub queue: TaskQueue,
    pub taskwait: Taskwait,
}

/// libomp's task functions, None when libomp is not in the process.
pub fn tasks() -> Option<&'static Tasks> {
    static T: OnceLock<Option<Tasks>> = OnceLock::new();
    T.get_or_init(|| Some(Tasks { alloc: sym(TASK_ALLOC)?, queue: sym(c"__kmpc_omp_task")?, taskwait: sym(c"__kmpc_omp_taskwait")? })).as_ref()
}
