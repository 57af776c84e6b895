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
