//! MPI functions and Open MPI's predefined objects, found with `dlsym` at
//! their first use (`pmpi!`), so that programs without MPI link the
//! runtime without `-lmpi`. Open MPI's names of predefined objects
//! (`ompi_mpi_comm_world`, ...) are used: dao supports Open MPI
//! (docs/design.md, section 16).
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use crate::diag::fatal;

/// An Open MPI C handle (a pointer to a library object).
pub type H = *mut c_void;

pub const PROC_NULL: c_int = -2;
pub const THREAD_FUNNELED: c_int = 1;
pub(super) const SUCCESS: c_int = 0;
/// MPI_COMM_NULL, MPI_DATATYPE_NULL, ... in Fortran.
pub(super) const F_NULL: i64 = 0;

/// The address of `name` (NUL-terminated) among the loaded objects, looked
/// up once into `cache`; fatal when absent.
pub fn resolve(cache: &AtomicUsize, name: &str) -> usize {
    let p = cache.load(Relaxed);
    if p != 0 {
        return p;
    }
    let q = lookup(name);
    if q == 0 {
        fatal(format_args!(
            "{} is not in this process: dao's MPI support needs Open MPI (build with `dao mpicc` / `dao mpifort`)",
            name.trim_end_matches('\0')
        ));
    }
    cache.store(q, Relaxed);
    q
}

/// The address of a symbol (NUL-terminated name), 0 when absent.
pub fn lookup(name: &str) -> usize {
    debug_assert!(name.ends_with('\0'));
    // SAFETY: dlsym with RTLD_DEFAULT only looks a NUL-terminated name up.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr() as *const c_char) as usize }
}

/// An MPI function of the given C type, found at its first use.
macro_rules! pmpi {
    ($name:literal, $ty:ty) => {{
        static P: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let p = $crate::mpi::sym::resolve(&P, concat!($name, "\0"));
        // SAFETY: p is the address of the named MPI function, whose C
        // signature (Open MPI 4.1's mpi.h / its Fortran bindings) is $ty.
        #[allow(unused_unsafe)]
        let f = unsafe { std::mem::transmute::<usize, $ty>(p) };
        f
    }};
}
pub(crate) use pmpi;

/// A predefined object of Open MPI (`ompi_mpi_comm_world`, ...).
pub(super) fn object(name: &str) -> H {
    static CACHE: Mutex<Vec<(&'static str, usize)>> = Mutex::new(Vec::new());
    let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, a)) = c.iter().find(|(n, _)| *n == name) {
        return *a as H;
    }
    let a = lookup(&format!("{name}\0"));
    if a == 0 {
        fatal(format_args!("{name} is not in this process: dao's MPI support needs Open MPI"));
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    c.push((leaked, a));
    a as H
}

pub fn comm_world() -> H {
    object("ompi_mpi_comm_world")
}
pub fn request_null() -> H {
    static R: AtomicUsize = AtomicUsize::new(0);
    resolve(&R, "ompi_request_null\0") as H
}

/// MPI_INT64_T.
pub(super) fn int64() -> H {
    object("ompi_mpi_int64_t")
}
