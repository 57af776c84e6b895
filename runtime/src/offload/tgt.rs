//! libomptarget and the OpenMP device memory routines, looked up at run
//! time with `dlsym` (programs without offload do not link libomptarget):
//! their C types, and every call the runtime makes to them. The one place
//! that reads the map arrays the compiler passes (`unsafe`: raw C arrays).
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use super::table::Entry;
use crate::omp::libomp::sym;

pub type Mapper = unsafe extern "C" fn(*mut c_void, i64, i32, *mut *mut c_void, *mut *mut c_void, *mut i64, *mut i64, *mut *mut c_void, *mut *mut c_void);
pub type MapperNowait =
    unsafe extern "C" fn(*mut c_void, i64, i32, *mut *mut c_void, *mut *mut c_void, *mut i64, *mut i64, *mut *mut c_void, *mut *mut c_void, i32, *mut c_void, i32, *mut c_void);
pub type Kernel = unsafe extern "C" fn(*mut c_void, i64, i32, i32, *mut c_void, *mut c_void) -> i32;
pub type Alloc = unsafe extern "C" fn(usize, i32) -> *mut c_void;
pub type Free = unsafe extern "C" fn(*mut c_void, i32);
pub type Associate = unsafe extern "C" fn(*const c_void, *const c_void, usize, usize, i32) -> i32;
pub type Disassociate = unsafe extern "C" fn(*const c_void, i32) -> i32;
pub type TargetTaskAlloc = unsafe extern "C" fn(*mut c_void, i32, i32, usize, usize, *mut c_void, i64) -> *mut c_void;
type MappedPtr = unsafe extern "C" fn(*const c_void, i32) -> *mut c_void;
type Memcpy = unsafe extern "C" fn(*mut c_void, *const c_void, usize, usize, usize, i32, i32) -> i32;
type DeviceNum = unsafe extern "C" fn() -> i32;
type Taskwait = unsafe extern "C" fn(*mut c_void, i32) -> i32;
type Gtid = unsafe extern "C" fn(*mut c_void) -> i32;

/// A function of the process by name, or a fatal error naming it (only
/// called when the program itself called into libomptarget).
pub fn must<T: Copy>(name: &CStr) -> T {
    sym(name).unwrap_or_else(|| crate::diag::fatal(format_args!("{} not found in the process: an offload program must be linked with libomptarget (clang -fopenmp -fopenmp-targets=...)", name.to_string_lossy())))
}

struct Lib {
    mapped_ptr: MappedPtr,
    memcpy: Memcpy,
    initial_device: DeviceNum,
    default_device: DeviceNum,
    begin: Mapper,
}

fn lib() -> &'static Lib {
    static LIB: OnceLock<Lib> = OnceLock::new();
    LIB.get_or_init(|| Lib {
        mapped_ptr: must(c"omp_get_mapped_ptr"),
        memcpy: must(c"omp_target_memcpy"),
        initial_device: must(c"omp_get_initial_device"),
        default_device: must(c"omp_get_default_device"),
        begin: must(c"__tgt_target_data_begin_mapper"),
    })
}

/// The device a call names: `-1` (OFFLOAD_DEVICE_DEFAULT) is the default
/// device now.
pub fn resolve_device(d: i64) -> i32 {
    if d == -1 {
        // SAFETY: omp_get_default_device takes nothing.
        unsafe { (lib().default_device)() }
    } else {
        d as i32
    }
}

/// The variable name in a map name string (`;name;file;line;col;;`).
fn map_name(p: *const c_void) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: clang's map names are NUL-terminated constant strings.
    let s = unsafe { CStr::from_ptr(p.cast()) }.to_string_lossy();
    let f: Vec<&str> = s.split(';').collect();
    f.get(1).filter(|n| !n.is_empty()).map(|n| n.to_string())
}

/// The entries of a mapper call.
///
/// # Safety
/// The compiler's arrays: `n` elements each, `names` and `mappers` may be null.
pub unsafe fn entries(n: i32, ptrs: *mut *mut c_void, sizes: *mut i64, types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void) -> Vec<Entry> {
    let n = n.max(0) as usize;
    if n == 0 || ptrs.is_null() || types.is_null() {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            // SAFETY: the caller's arrays have n elements.
            unsafe {
                Entry {
                    begin: *ptrs.add(i) as u64,
                    size: if sizes.is_null() { 0 } else { (*sizes.add(i)).max(0) as u64 },
                    map_type: *types.add(i) as u64,
                    mapper: !mappers.is_null() && !(*mappers.add(i)).is_null(),
                    name: if names.is_null() { None } else { map_name(*names.add(i)) },
                }
            }
        })
        .collect()
}

/// The map entries of a kernel's `__tgt_kernel_arguments` (LLVM 19:
/// version u32, count u32, base pointers, pointers, sizes, types, names,
/// mappers, ...).
///
/// # Safety
/// `args` is clang's kernel arguments struct (or null).
pub unsafe fn kernel_entries(args: *mut c_void) -> Vec<Entry> {
    if args.is_null() {
        return Vec::new();
    }
    let w = args as *const u32;
    let p = args as *const *mut c_void;
    // SAFETY: the struct's layout above.
    unsafe { entries(*w.add(1) as i32, p.add(2).read() as _, p.add(3).read() as _, p.add(4).read() as _, p.add(5).read() as _, p.add(6).read() as _) }
}

/// The device address of the host range at `addr` on `device`.
pub fn device_ptr(addr: u64, device: i32) -> *mut c_void {
    // SAFETY: omp_get_mapped_ptr only looks the address up.
    unsafe { (lib().mapped_ptr)(addr as *const c_void, device) }
}

/// Copies `buf.len()` bytes of the device copy at `dev_ptr` to `buf`.
pub fn copy_from_device(buf: &mut [u8], dev_ptr: *mut c_void, device: i32) -> bool {
    let l = lib();
    // SAFETY: buf is host memory of that length; dev_ptr a device address
    // libomptarget gave for a mapped range at least that long.
    unsafe { (l.memcpy)(buf.as_mut_ptr().cast(), dev_ptr, buf.len(), 0, 0, (l.initial_device)(), device) == 0 }
}

/// Copies `bytes` to the device copy at `dev_ptr`.
pub fn copy_to_device(dev_ptr: *mut c_void, bytes: &[u8], device: i32) -> bool {
    let l = lib();
    // SAFETY: as above, the other way.
    unsafe { (l.memcpy)(dev_ptr, bytes.as_ptr().cast(), bytes.len(), 0, 0, device, (l.initial_device)()) == 0 }
}

/// Maps `[addr, addr + size)` on `device` once more, without copying
/// (map type `alloc`, or `ompx_hold` with `hold`): a restart rebuilding the
/// data environment.
pub fn map_again(addr: u64, size: u64, device: i32, hold: bool) {
    let mut base = addr as *mut c_void;
    let mut ptr = addr as *mut c_void;
    let mut sz = size as i64;
    let mut ty = if hold { super::table::maptype::OMPX_HOLD as i64 } else { 0 };
    // SAFETY: one entry, arrays of one element; no names, no mappers.
    unsafe { (lib().begin)(std::ptr::null_mut(), device as i64, 1, &mut base, &mut ptr, &mut sz, &mut ty, std::ptr::null_mut(), std::ptr::null_mut()) }
}

/// Waits for the calling thread's child tasks (`target ... nowait` among
/// them): `__kmpc_omp_taskwait`.
pub fn taskwait() {
    let (Some(gtid), Some(wait)) = (sym::<Gtid>(c"__kmpc_global_thread_num"), sym::<Taskwait>(c"__kmpc_omp_taskwait")) else { return };
    // SAFETY: libomp accepts a null location.
    unsafe {
        let g = gtid(std::ptr::null_mut());
        wait(std::ptr::null_mut(), g);
    }
}

/// `;file;function;line;col;;` of an ident_t, as `file:line`.
///
/// # Safety
/// `ident` is libomp's ident_t or null.
pub unsafe fn at(ident: *mut c_void) -> Option<String> {
    // SAFETY: forwarded.
    let s = unsafe { crate::omp::libomp::psource(ident) }?;
    let f: Vec<&str> = s.split(';').collect();
    (f.len() > 3 && f[1] != "unknown").then(|| format!("{}:{}", f[1], f[3]))
}
