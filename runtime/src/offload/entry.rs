//! The C boundary of offload (runtime/src/offload/mod.rs): the `dao_*`
//! functions the pass routes libomptarget's entry points and the OpenMP
//! device memory routines to (same signatures, dao-abi `entry::TGT_*`,
//! `OMP_TARGET_*`), and the `__wrap_*` forms `dao cc` links for objects
//! built without the pass (`LINK_WRAP` in driver/src/compile.rs). Each
//! records what the call does and forwards to the real function.
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use super::tgt::{self, Alloc, Associate, Disassociate, Kernel, Mapper, MapperNowait, TargetTaskAlloc};

macro_rules! real {
    ($ty:ty, $name:expr) => {{
        static F: OnceLock<$ty> = OnceLock::new();
        *F.get_or_init(|| tgt::must::<$ty>($name))
    }};
}

/// # Safety
/// libomptarget's mapper contract.
#[allow(clippy::too_many_arguments)]
unsafe fn mapper(
    name: &'static CStr,
    begin: Option<bool>,
    f: Mapper,
    ident: *mut c_void,
    dev: i64,
    n: i32,
    bases: *mut *mut c_void,
    ptrs: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
) {
    let _ = name;
    // SAFETY: the compiler's arrays of n entries.
    let entries = unsafe { tgt::entries(n, ptrs, sizes, types, names, mappers) };
    // libomptarget's own allocations stay out of the dao heap (wrap.rs)
    // SAFETY: forwarded.
    crate::libc_alloc::own(|| unsafe { f(ident, dev, n, bases, ptrs, sizes, types, names, mappers) });
    // SAFETY: libomp's ident_t or null.
    let at = unsafe { tgt::at(ident) };
    crate::libc_alloc::own(|| super::mapped(begin, dev, &entries, at));
}

/// # Safety
/// libomptarget's nowait mapper contract.
#[allow(clippy::too_many_arguments)]
unsafe fn mapper_nowait(
    begin: Option<bool>,
    f: MapperNowait,
    ident: *mut c_void,
    dev: i64,
    n: i32,
    bases: *mut *mut c_void,
    ptrs: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    nd: i32,
    d: *mut c_void,
    nna: i32,
    na: *mut c_void,
) {
    // SAFETY: the compiler's arrays of n entries.
    let entries = unsafe { tgt::entries(n, ptrs, sizes, types, names, mappers) };
    // SAFETY: forwarded.
    crate::libc_alloc::own(|| unsafe { f(ident, dev, n, bases, ptrs, sizes, types, names, mappers, nd, d, nna, na) });
    // SAFETY: libomp's ident_t or null.
    let at = unsafe { tgt::at(ident) };
    crate::libc_alloc::own(|| super::mapped(begin, dev, &entries, at));
}

macro_rules! mapper_entries {
    ($dao:ident, $real:expr, $begin:expr) => {
        /// # Safety
        /// libomptarget's contract of the function it replaces.
        #[no_mangle]
        pub unsafe extern "C" fn $dao(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void) {
            // SAFETY: forwarded contract.
            unsafe { mapper($real, $begin, real!(Mapper, $real), ident, dev, n, bases, ptrs, sizes, types, names, mappers) }
        }
    };
}

macro_rules! nowait_entries {
    ($dao:ident, $real:expr, $begin:expr) => {
        /// # Safety
        /// libomptarget's contract of the function it replaces.
        #[no_mangle]
        pub unsafe extern "C" fn $dao(
            ident: *mut c_void,
            dev: i64,
            n: i32,
            bases: *mut *mut c_void,
            ptrs: *mut *mut c_void,
            sizes: *mut i64,
            types: *mut i64,
            names: *mut *mut c_void,
            mappers: *mut *mut c_void,
            nd: i32,
            d: *mut c_void,
            nna: i32,
            na: *mut c_void,
        ) {
            // SAFETY: forwarded contract.
            unsafe { mapper_nowait($begin, real!(MapperNowait, $real), ident, dev, n, bases, ptrs, sizes, types, names, mappers, nd, d, nna, na) }
        }
    };
}

mapper_entries!(dao_tgt_data_begin_mapper, c"__tgt_target_data_begin_mapper", Some(true));
mapper_entries!(dao_tgt_data_end_mapper, c"__tgt_target_data_end_mapper", Some(false));
mapper_entries!(dao_tgt_data_update_mapper, c"__tgt_target_data_update_mapper", None);
nowait_entries!(dao_tgt_data_begin_nowait_mapper, c"__tgt_target_data_begin_nowait_mapper", Some(true));
nowait_entries!(dao_tgt_data_end_nowait_mapper, c"__tgt_target_data_end_nowait_mapper", Some(false));
nowait_entries!(dao_tgt_data_update_nowait_mapper, c"__tgt_target_data_update_nowait_mapper", None);

/// `__tgt_target_kernel`, routed here by the pass.
///
/// # Safety
/// libomptarget's contract.
#[no_mangle]
pub unsafe extern "C" fn dao_tgt_target_kernel(ident: *mut c_void, dev: i64, teams: i32, threads: i32, host_ptr: *mut c_void, args: *mut c_void) -> i32 {
    // SAFETY: clang's kernel arguments; libomp's ident_t or null.
    let (entries, at) = unsafe { (tgt::kernel_entries(args), tgt::at(ident)) };
    let t0 = crate::libc_alloc::own(|| super::kernel_start(&entries, at));
    // SAFETY: forwarded.
    let r = crate::libc_alloc::own(|| unsafe { real!(Kernel, c"__tgt_target_kernel")(ident, dev, teams, threads, host_ptr, args) });
    super::kernel_end(t0);
    r
}

/// # Safety
/// As [`dao_tgt_target_kernel`] (link-time wrap).
#[no_mangle]
pub unsafe extern "C" fn __wrap___tgt_target_kernel(ident: *mut c_void, dev: i64, teams: i32, threads: i32, host_ptr: *mut c_void, args: *mut c_void) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_target_kernel(ident, dev, teams, threads, host_ptr, args) }
}

fn alloc(real: Alloc, routine: &str, size: u64, dev: i32) -> *mut c_void {
    // SAFETY: forwarded.
    let p = crate::libc_alloc::own(|| unsafe { real(size as usize, dev) });
    crate::libc_alloc::own(|| super::held(dev, p as u64, format!("{size} bytes from {routine}")));
    p
}

macro_rules! alloc_entries {
    ($dao:ident, $real:expr, $routine:expr) => {
        /// Routed here by the pass (same signature).
        #[no_mangle]
        pub extern "C" fn $dao(size: u64, dev: i32) -> *mut c_void {
            alloc(real!(Alloc, $real), $routine, size, dev)
        }
    };
}

alloc_entries!(dao_omp_target_alloc, c"omp_target_alloc", "omp_target_alloc");
alloc_entries!(dao_llvm_omp_target_alloc_host, c"llvm_omp_target_alloc_host", "llvm_omp_target_alloc_host");
alloc_entries!(dao_llvm_omp_target_alloc_shared, c"llvm_omp_target_alloc_shared", "llvm_omp_target_alloc_shared");
alloc_entries!(dao_llvm_omp_target_alloc_device, c"llvm_omp_target_alloc_device", "llvm_omp_target_alloc_device");

/// `omp_target_free`, routed here.
///
/// # Safety
/// OpenMP's contract.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_target_free(p: *mut c_void, dev: i32) {
    // SAFETY: forwarded.
    crate::libc_alloc::own(|| unsafe { real!(tgt::Free, c"omp_target_free")(p, dev) });
    super::released(dev, p as u64);
}

/// # Safety
/// As [`dao_omp_target_free`] (link-time wrap).
#[no_mangle]
pub unsafe extern "C" fn __wrap_omp_target_free(p: *mut c_void, dev: i32) {
    // SAFETY: forwarded contract.
    unsafe { dao_omp_target_free(p, dev) }
}

/// `omp_target_associate_ptr`, routed here: the host range is mapped to
/// device memory the program gave (its address is the program's).
///
/// # Safety
/// OpenMP's contract.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_target_associate_ptr(host: *const c_void, devp: *const c_void, size: u64, off: u64, dev: i32) -> i32 {
    // SAFETY: forwarded.
    let r = crate::libc_alloc::own(|| unsafe { real!(Associate, c"omp_target_associate_ptr")(host, devp, size as usize, off as usize, dev) });
    if r == 0 {
        crate::libc_alloc::own(|| super::held(dev, host as u64, format!("{size} bytes of host memory associated with it by omp_target_associate_ptr")));
    }
    r
}

/// # Safety
/// As above (link-time wrap).
#[no_mangle]
pub unsafe extern "C" fn __wrap_omp_target_associate_ptr(host: *const c_void, devp: *const c_void, size: u64, off: u64, dev: i32) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { dao_omp_target_associate_ptr(host, devp, size, off, dev) }
}

/// `omp_target_disassociate_ptr`, routed here.
///
/// # Safety
/// OpenMP's contract.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_target_disassociate_ptr(host: *const c_void, dev: i32) -> i32 {
    // SAFETY: forwarded.
    let r = crate::libc_alloc::own(|| unsafe { real!(Disassociate, c"omp_target_disassociate_ptr")(host, dev) });
    if r == 0 {
        super::released(dev, host as u64);
    }
    r
}

/// # Safety
/// As above (link-time wrap).
#[no_mangle]
pub unsafe extern "C" fn __wrap_omp_target_disassociate_ptr(host: *const c_void, dev: i32) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { dao_omp_target_disassociate_ptr(host, dev) }
}

/// `__kmpc_omp_target_task_alloc`, routed here: a `target ... nowait` task.
///
/// # Safety
/// libomp's contract.
#[no_mangle]
pub unsafe extern "C" fn dao_omp_target_task_new(ident: *mut c_void, gtid: i32, flags: i32, sizeof_task: u64, sizeof_shareds: u64, entry: *mut c_void, dev: i64) -> *mut c_void {
    super::target_task();
    // SAFETY: forwarded.
    unsafe { real!(TargetTaskAlloc, c"__kmpc_omp_target_task_alloc")(ident, gtid, flags, sizeof_task as usize, sizeof_shareds as usize, entry, dev) }
}

/// # Safety
/// As above (link-time wrap).
#[no_mangle]
pub unsafe extern "C" fn __wrap___kmpc_omp_target_task_alloc(ident: *mut c_void, gtid: i32, flags: i32, sizeof_task: u64, sizeof_shareds: u64, entry: *mut c_void, dev: i64) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { dao_omp_target_task_new(ident, gtid, flags, sizeof_task, sizeof_shareds, entry, dev) }
}

// ---- the link-time wraps (`LINK_WRAP`): the same, for objects built without the pass

/// # Safety
/// As [`dao_tgt_data_begin_mapper`].
#[no_mangle]
pub unsafe extern "C" fn __wrap___tgt_target_data_begin_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_begin_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers) }
}

/// # Safety
/// As [`dao_tgt_data_end_mapper`].
#[no_mangle]
pub unsafe extern "C" fn __wrap___tgt_target_data_end_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_end_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers) }
}

/// # Safety
/// As [`dao_tgt_data_update_mapper`].
#[no_mangle]
pub unsafe extern "C" fn __wrap___tgt_target_data_update_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_update_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers) }
}

/// # Safety
/// As [`dao_tgt_data_begin_nowait_mapper`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __wrap___tgt_target_data_begin_nowait_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void, nd: i32, d: *mut c_void, nna: i32, na: *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_begin_nowait_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers, nd, d, nna, na) }
}

/// # Safety
/// As [`dao_tgt_data_end_nowait_mapper`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __wrap___tgt_target_data_end_nowait_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void, nd: i32, d: *mut c_void, nna: i32, na: *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_end_nowait_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers, nd, d, nna, na) }
}

/// # Safety
/// As [`dao_tgt_data_update_nowait_mapper`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __wrap___tgt_target_data_update_nowait_mapper(ident: *mut c_void, dev: i64, n: i32, bases: *mut *mut c_void, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void, nd: i32, d: *mut c_void, nna: i32, na: *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { dao_tgt_data_update_nowait_mapper(ident, dev, n, bases, ptrs, sizes, types, names, mappers, nd, d, nna, na) }
}

/// As [`dao_omp_target_alloc`].
#[no_mangle]
pub extern "C" fn __wrap_omp_target_alloc(size: u64, dev: i32) -> *mut c_void {
    dao_omp_target_alloc(size, dev)
}

/// As [`dao_llvm_omp_target_alloc_host`].
#[no_mangle]
pub extern "C" fn __wrap_llvm_omp_target_alloc_host(size: u64, dev: i32) -> *mut c_void {
    dao_llvm_omp_target_alloc_host(size, dev)
}

/// As [`dao_llvm_omp_target_alloc_shared`].
#[no_mangle]
pub extern "C" fn __wrap_llvm_omp_target_alloc_shared(size: u64, dev: i32) -> *mut c_void {
    dao_llvm_omp_target_alloc_shared(size, dev)
}

/// As [`dao_llvm_omp_target_alloc_device`].
#[no_mangle]
pub extern "C" fn __wrap_llvm_omp_target_alloc_device(size: u64, dev: i32) -> *mut c_void {
    dao_llvm_omp_target_alloc_device(size, dev)
}
