//! Safe views of the descriptors the pass emits, and raw program memory.
//!
//! Descriptors (`dao_module_desc`, `dao_func_desc`, ...) are constant data in
//! the executable, so they are handed out as `&'static`. Frames and program
//! memory are only touched while the program is suspended inside a runtime
//! call on the same thread. Every dereference of a pointer coming from the
//! instrumented program happens in this file (or in heap.rs / stack.rs).
//!
//! Deliberate shortcut: these functions take raw pointers but are not
//! `unsafe fn`. The pointers are the ones the pass emitted (descriptor
//! tables) or the frames handed to the current runtime call; the C entry
//! points (entry.rs, all `unsafe extern "C"`) carry that contract, and
//! repeating `unsafe` at every descriptor access would only add noise.
#![allow(clippy::not_unsafe_ptr_arg_deref)]
use std::borrow::Cow;
use std::ffi::CStr;
use std::os::raw::c_char;

use crate::abi::*;

/// A C string from a descriptor (names are never NULL per the ABI; `?` if one is).
pub fn name(p: *const c_char) -> Cow<'static, str> {
    opt_name(p).unwrap_or(Cow::Borrowed("?"))
}

/// An optional C string from a descriptor.
pub fn opt_name(p: *const c_char) -> Option<Cow<'static, str>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: descriptor strings are NUL-terminated constants of the executable.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// `n` elements at `p` (empty when `p` is NULL).
pub fn table<T>(p: *const T, n: u32) -> &'static [T] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: the pass emits `n` constant elements at `p`.
    unsafe { std::slice::from_raw_parts(p, n as usize) }
}

/// A descriptor reference from a pointer the pass emitted.
pub fn deref<T>(p: *const T) -> Option<&'static T> {
    // SAFETY: descriptor pointers point to constant data of the executable (or are NULL).
    unsafe { p.as_ref() }
}

impl DaoFuncDesc {
    pub fn sites(&self) -> &'static [DaoSiteDesc] {
        table(self.sites, self.n_sites)
    }
    pub fn slots(&self) -> &'static [DaoVarDesc] {
        table(self.slots, self.n_slots)
    }
    pub fn allocas(&self) -> &'static [DaoVarDesc] {
        table(self.allocas, self.n_allocas)
    }
    pub fn module(&self) -> Option<&'static DaoModuleDesc> {
        deref(self.module)
    }
}

impl DaoModuleDesc {
    pub fn globals(&self) -> &'static [DaoVarDesc] {
        table(self.globals, self.n_globals)
    }
    pub fn escaped(&self) -> &'static [u32] {
        table(self.escaped_globals, self.n_escaped)
    }
    /// flang's threadprivate variables used by the module.
    pub fn tp(&self) -> &'static [DaoVarDesc] {
        table(self.tp, self.n_tp)
    }
    /// The runtime-checked conditions of the sites' `cdead` globals.
    pub fn conds(&self) -> &'static [crate::abi::DaoCondDesc] {
        table(self.conds, self.n_conds)
    }
    /// Whether global `object` (an index) is dead where a site lists it in
    /// `cdead`: every condition of it holds now. A condition whose value
    /// lies outside its global, or an object with none, counts as failed.
    pub fn conds_hold(&self, object: u32) -> bool {
        let globals = self.globals();
        let mut any = false;
        for c in self.conds().iter().filter(|c| c.object == object) {
            any = true;
            let Some(d) = globals.get(c.global as usize) else { return false };
            let n = c.bytes as u64;
            if !matches!(n, 1 | 2 | 4 | 8) || d.addr.is_null() || c.offset < 0 || c.offset as u64 + n > d.size {
                return false;
            }
            let b = memory(d.addr as usize + c.offset as usize, n as usize);
            let mut raw = [0u8; 8];
            raw[..n as usize].copy_from_slice(b);
            let u = u64::from_le_bytes(raw);
            let v: i128 = if c.is_signed != 0 {
                let sh = 64 - 8 * n as u32;
                (((u << sh) as i64) >> sh) as i128
            } else {
                u as i128
            };
            if v < c.min as i128 || v > c.max as i128 {
                return false;
            }
        }
        any
    }
}

impl DaoSiteDesc {
    pub fn slots(&self) -> &'static [u32] {
        table(self.slots, self.n_slots)
    }
    pub fn allocas(&self) -> &'static [u32] {
        table(self.allocas, self.n_allocas)
    }
    pub fn globals(&self) -> &'static [u32] {
        table(self.globals, self.n_globals)
    }
    /// Globals live here unless their conditions hold
    /// ([`DaoModuleDesc::conds_hold`]).
    pub fn cdead(&self) -> &'static [u32] {
        table(self.cdead, self.n_cdead)
    }
    /// What rewrites global `g` (a module index) first after this
    /// candidate, as the pass described it, if the site says.
    pub fn dead_why(&self, g: u32) -> Option<std::borrow::Cow<'static, str>> {
        let k = table(self.dead, self.n_dead).iter().position(|&x| x == g)?;
        let whys = table(self.dead_why, self.n_dead);
        opt_name(*whys.get(k)?)
    }
    /// Why global `g` (a module index) is kept at this candidate, as the
    /// pass described it (ABI 10; globals of at least 64 KiB).
    pub fn kept_why(&self, g: u32) -> Option<std::borrow::Cow<'static, str>> {
        let k = table(self.kept, self.n_kept).iter().position(|&x| x == g)?;
        let whys = table(self.kept_why, self.n_kept);
        opt_name(*whys.get(k)?)
    }
    /// The live byte ranges of the globals live only in part here:
    /// (index into the module's globals, first byte, end byte).
    pub fn parts(&self) -> impl Iterator<Item = (u32, u64, u64)> {
        table(self.parts, self.n_parts.saturating_mul(3))
            .chunks_exact(3)
            .map(|c| (c[0] as u32, c[1], c[2]))
    }
}

/// A copy of the fields of a live `dao_frame` the runtime reads.
#[derive(Clone, Copy)]
pub struct FrameView {
    pub addr: usize,
    pub parent: *mut DaoFrame,
    pub func: &'static DaoFuncDesc,
    pub site: u32,
    pub slots: usize,
    allocas: *mut *mut u8,
}

impl FrameView {
    /// Reads a frame record. None when the pointer or its func is NULL.
    pub fn read(f: *mut DaoFrame) -> Option<FrameView> {
        // SAFETY: `f` is a frame record on the calling thread's chain (or the
        // argument of the current runtime call), alive for this call.
        let fr = unsafe { f.as_ref() }?;
        Some(FrameView {
            addr: f as usize,
            parent: fr.parent,
            func: deref(fr.func)?,
            site: fr.site,
            slots: fr.slots as usize,
            allocas: fr.allocas,
        })
    }

    /// Address of stack object `i` (i < func.n_allocas).
    pub fn alloca(&self, i: usize) -> usize {
        assert!(i < self.func.n_allocas as usize && !self.allocas.is_null());
        // SAFETY: the alloca table has func->n_allocas entries (ABI).
        unsafe { *self.allocas.add(i) as usize }
    }

    /// Sets `frame->site`.
    pub fn set_site(&self, site: u32) {
        // SAFETY: as in read(); the frame is live and owned by this thread.
        unsafe { (*(self.addr as *mut DaoFrame)).site = site };
    }
}

/// Program memory `[addr, addr+len)` as bytes.
///
/// Callers only pass ranges described by the pass (slots, stack objects,
/// globals) or allocated heap blocks, while the program is suspended.
pub fn memory(addr: usize, len: usize) -> &'static [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: see above: the range is mapped and not written until the
    // checkpoint has been written (the program is stopped in the runtime).
    unsafe { std::slice::from_raw_parts(addr as *const u8, len) }
}

/// Fills a described range (a writable global of a module's table) with
/// `byte` (DAO_DEAD=poison).
pub fn fill_memory(addr: usize, len: usize, byte: u8) {
    // SAFETY: callers pass a writable global the pass described (constants
    // and thread-locals are not in the table), with its recorded size.
    unsafe { std::ptr::write_bytes(addr as *mut u8, byte, len) };
}

/// Copies `bytes` to program memory at `addr`.
pub fn write_memory(addr: usize, bytes: &[u8]) {
    // SAFETY: callers restore a range that the pass described (frame slots,
    // stack objects, globals) or a heap block, with the recorded size.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
}

#[cfg(test)]
mod tests {
    use crate::abi::{DaoCondDesc, DaoModuleDesc, DaoVarDesc};
    use std::ptr::{null, null_mut};

    fn var(addr: *mut u8, size: u64) -> DaoVarDesc {
        DaoVarDesc { name: null(), loc: null(), size, offset: 0, addr }
    }

    fn module(globals: &'static [DaoVarDesc], conds: &'static [DaoCondDesc]) -> DaoModuleDesc {
        DaoModuleDesc {
            abi_version: crate::abi::DAO_ABI_VERSION,
            flags: 0,
            module_hash: 0,
            source_name: null(),
            n_globals: globals.len() as u32,
            globals: globals.as_ptr(),
            n_escaped: 0,
            escaped_globals: null(),
            n_funcs: 0,
            funcs: null(),
            n_tls: 0,
            tls: null(),
            tls_addrs: None,
            n_tp: 0,
            tp: null(),
            n_conds: conds.len() as u32,
            conds: conds.as_ptr(),
        }
    }

    fn cond(object: u32, global: u32, offset: i64, bytes: u32, is_signed: u32, min: i64, max: i64) -> DaoCondDesc {
        DaoCondDesc { object, global, offset, bytes, is_signed, min, max }
    }

    /// A global dead under conditions is dead only when every condition of
    /// it holds now; a condition that cannot be read, or an object with no
    /// condition at all, keeps it (saved).
    #[test]
    fn conds_hold_reads_the_values_now() {
        // global 0: the object; global 1: two i32 extents (64, -1)
        let ext: &'static mut [i32; 2] = Box::leak(Box::new([64, -1]));
        let globals: &'static [DaoVarDesc] = Box::leak(Box::new([var(null_mut(), 4096), var(ext.as_mut_ptr() as *mut u8, 8)]));
        let m = module(globals, Box::leak(Box::new([cond(0, 1, 0, 4, 1, 64, 1 << 30)])));
        assert!(m.conds_hold(0));
        // no condition for object 1: never dead under conditions
        assert!(!m.conds_hold(1));
        // every condition must hold: the second extent is -1 (signed) or
        // 2^32 - 1 (unsigned), outside [1, 2^30] either way
        for signed in [0, 1] {
            let m = module(globals, Box::leak(Box::new([cond(0, 1, 0, 4, 1, 64, 1 << 30), cond(0, 1, 4, 4, signed, 1, 1 << 30)])));
            assert!(!m.conds_hold(0), "is_signed {signed}");
        }
        // the value changed since: read when asked
        ext[0] = 63;
        assert!(!m.conds_hold(0));
        ext[0] = 64;
        // unreadable conditions keep the object: past the global's end, a
        // width that is not 1, 2, 4 or 8, a global index out of range, a
        // negative offset
        for bad in [cond(0, 1, 6, 4, 1, 0, 1 << 30), cond(0, 1, 0, 3, 1, 0, 1 << 30), cond(0, 7, 0, 4, 1, 0, 1 << 30), cond(0, 1, -4, 4, 1, 0, 1 << 30)] {
            let m = module(globals, Box::leak(Box::new([bad])));
            assert!(!m.conds_hold(0));
        }
    }
}
