//! libomp, looked up at run time with `dlsym`, so programs without OpenMP
//! do not need it at link time; the master's internal control variables
//! (ICVs) read and applied through it.
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
