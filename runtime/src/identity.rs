//! Identity of the running executable: content hash, size and load address.
//! A checkpoint is only resumed by the same executable loaded at the same
//! address (globals are restored in place).
use std::os::raw::{c_int, c_void};

/// Whether an MPI library is loaded in this process (a program linked
/// with MPI, run with or without a launcher): how it was seen.
pub fn mpi_library() -> Option<String> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks
    // the symbol up among the loaded objects.
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"PMPI_Init".as_ptr()) };
    (!f.is_null()).then(|| "an MPI library is loaded (PMPI_Init)".to_string())
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Identity {
    pub hash: u64,
    pub size: u64,
    pub image_base: u64,
}

/// Hashes /proc/self/exe and finds the image base.
pub fn current() -> std::io::Result<Identity> {
    let bytes = std::fs::read("/proc/self/exe")?;
    Ok(Identity {
        hash: xxhash_rust::xxh3::xxh3_64(&bytes),
        size: bytes.len() as u64,
        image_base: image_base(),
    })
}

/// Lowest address of the executable's loadable segments.
pub fn image_base() -> u64 {
    unsafe extern "C" fn first(info: *mut libc::dl_phdr_info, _: usize, out: *mut c_void) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid info; the first object is the
        // executable; `out` is the u64 passed below.
        unsafe {
            let info = &*info;
            let phdrs = std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize);
            let min = phdrs.iter().filter(|p| p.p_type == libc::PT_LOAD).map(|p| p.p_vaddr).min().unwrap_or(0);
            *(out as *mut u64) = info.dlpi_addr + min;
        }
        1
    }
    let mut base = 0u64;
    // SAFETY: the callback only reads the program headers and writes `base`.
    unsafe { libc::dl_iterate_phdr(Some(first), &mut base as *mut u64 as *mut c_void) };
    base
}
