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

/// Objects at least this large have the reason they are kept in the sites'
/// `kept_why` (the pass's `KEPT_REMARK`), and the checkpoint says it.
pub const KEPT_WHY: u64 = 64 * 1024;

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
    /// A module with no tables, of this ABI version: the start of the
    /// runtime's own module and of the tests' (`..DaoModuleDesc::EMPTY`).
    pub const EMPTY: DaoModuleDesc = DaoModuleDesc {
        abi_version: DAO_ABI_VERSION,
        flags: 0,
        module_hash: 0,
        source_name: std::ptr::null(),
        n_globals: 0,
        globals: std::ptr::null(),
        n_escaped: 0,
        escaped_globals: std::ptr::null(),
        n_funcs: 0,
        funcs: std::ptr::null(),
        n_tls: 0,
        tls: std::ptr::null(),
        tls_addrs: None,
        n_tp: 0,
        tp: std::ptr::null(),
        n_conds: 0,
        conds: std::ptr::null(),
        n_boxes: 0,
        boxes: std::ptr::null(),
        n_heaps: 0,
        heaps: std::ptr::null_mut(),
    };

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
    /// Whether object `object` (a module index: a global, or from
    /// `n_globals` on a heap object) is dead where a site lists it in
    /// `cdead`: every condition of it holds now. A condition whose value
    /// lies outside its global, or an object with none, counts as failed.
    /// A cover condition (`cover` > 0, ABI 14) holds when its value V (0
    /// when `global` is `u32::MAX`) lies in `[0, max]`, so does its second
    /// value W (`global2`, when not `u32::MAX`), and `cover * (V + add) *
    /// F + min`, F = W + `add2` or 1, reaches the heap object's `size`
    /// (computed in i128); it fails for a
    /// global, for a heap object whose record is null, and when `cover` is
    /// negative. (The record is not validated here: collect.rs leaves a
    /// block out only when its record names an allocated block of the dao
    /// heap at least `size` long, so a record that does not validate keeps
    /// its block whatever this says.)
    pub fn conds_hold(&self, object: u32) -> bool {
        // the heap object's size, when `object` is one with a record
        let heap_size = match self.heap_index(object) {
            Some(k) => match self.heap_record(k) {
                Some((_, size)) => Some(size),
                None => return false,
            },
            None => None,
        };
        let mut any = false;
        for c in self.conds().iter().filter(|c| c.object == object) {
            any = true;
            if c.cover == 0 {
                match self.value(c.global, c.offset, c.bytes, c.is_signed != 0) {
                    Some(v) if v >= c.min as i128 && v <= c.max as i128 => {}
                    _ => return false,
                }
                continue;
            }
            let Some(size) = heap_size.filter(|_| c.cover > 0) else { return false };
            let v = if c.global == u32::MAX { Some(0) } else { self.value(c.global, c.offset, c.bytes, c.is_signed != 0) };
            // the second factor of a flattened nest's count (1 without one)
            let f = if c.global2 == u32::MAX {
                Some(1)
            } else {
                self.value(c.global2, c.offset2, c.bytes2, c.is_signed2 != 0).filter(|w| *w >= 0 && *w <= c.max as i128).map(|w| w + c.add2 as i128)
            };
            match (v, f) {
                (Some(v), Some(f)) if v >= 0 && v <= c.max as i128 && c.cover as i128 * (v + c.add as i128) * f + c.min as i128 >= size as i128 => {}
                _ => return false,
            }
        }
        any
    }

    /// The module's heap records (ABI 14): object index `n_globals + k` of
    /// its sites' lists is `heaps()[k]`. The program writes their `addr`
    /// and `size`: read those with [`DaoModuleDesc::heap_record`].
    pub fn heaps(&self) -> &'static [DaoHeapDesc] {
        table(self.heaps, self.n_heaps)
    }

    /// The heap object `k` that module index `object` names, when it names
    /// one (`n_globals <= object < n_globals + n_heaps`).
    pub fn heap_index(&self, object: u32) -> Option<u32> {
        object.checked_sub(self.n_globals).filter(|&k| k < self.n_heaps)
    }

    /// Whether module index `object` names a global or a heap object.
    pub fn object_in_range(&self, object: u32) -> bool {
        (object as u64) < self.n_globals as u64 + self.n_heaps as u64
    }

    /// Heap record `k` as the program last wrote it: (the block's address,
    /// the bytes asked for); None when its address is null or `k` is out
    /// of range. Not validated: whoever trusts it checks that the address
    /// is the payload of an allocated block of the dao heap at least that
    /// long (collect.rs).
    pub fn heap_record(&self, k: u32) -> Option<(usize, u64)> {
        if k >= self.n_heaps || self.heaps.is_null() {
            return None;
        }
        // SAFETY: the pass emits `n_heaps` writable records at `heaps`; the
        // program writes `addr` and `size` (volatile: through the raw
        // pointer, no reference to memory the program changes).
        let (addr, size) = unsafe {
            let h = self.heaps.add(k as usize);
            (std::ptr::addr_of!((*h).addr).read_volatile(), std::ptr::addr_of!((*h).size).read_volatile())
        };
        (!addr.is_null()).then_some((addr as usize, size))
    }

    /// Writes heap record `k` (a restart puts back what the checkpoint
    /// recorded: the allocation call is not executed again); false when
    /// `k` is out of range.
    pub fn set_heap_record(&self, k: u32, addr: usize, size: u64) -> bool {
        if k >= self.n_heaps || self.heaps.is_null() {
            return false;
        }
        // SAFETY: as in heap_record; the records are writable program data
        // and the program is not running yet (startup).
        unsafe {
            let h = self.heaps.add(k as usize);
            std::ptr::addr_of_mut!((*h).addr).write_volatile(addr as *mut u8);
            std::ptr::addr_of_mut!((*h).size).write_volatile(size);
        }
        true
    }

    /// The `bytes`-wide integer at byte `offset` of global `global` now;
    /// None when it lies outside the global.
    fn value(&self, global: u32, offset: i64, bytes: u32, signed: bool) -> Option<i128> {
        let d = self.globals().get(global as usize)?;
        let n = bytes as u64;
        if !matches!(n, 1 | 2 | 4 | 8) || d.addr.is_null() || offset < 0 || offset as u64 + n > d.size {
            return None;
        }
        let b = memory(d.addr as usize + offset as usize, n as usize);
        let mut raw = [0u8; 8];
        raw[..n as usize].copy_from_slice(b);
        let u = u64::from_le_bytes(raw);
        Some(if signed {
            let sh = 64 - 8 * n as u32;
            (((u << sh) as i64) >> sh) as i128
        } else {
            u as i128
        })
    }

    /// The parts of globals rewritten under runtime-checked conditions
    /// (ABI 12).
    pub fn boxes(&self) -> &'static [crate::abi::DaoBoxDesc] {
        table(self.boxes, self.n_boxes)
    }

    /// The byte ranges of box `k` (global-relative, sorted, merged) when
    /// every condition of it holds now; None when one does not, when a
    /// count cannot be read, or when the box has more than `MAX_BOX_RANGES`
    /// runs (then nothing is left out: the global is saved as it is).
    pub fn box_ranges(&self, k: u32) -> Option<(u32, Vec<(u64, u64)>)> {
        let b = self.boxes().get(k as usize).filter(|b| b.kind == crate::abi::DAO_BOX_WRITE)?;
        Some((b.object, self.eval_box(b)?))
    }

    /// The bytes of global `g` that any code may still read, when the
    /// module describes every read of it by boxes (DAO_BOX_READ) and the
    /// conditions of each hold now (sorted, merged); None: any byte.
    pub fn read_mask(&self, g: u32) -> Option<Vec<(u64, u64)>> {
        let read = || self.boxes().iter().filter(move |b| b.kind == crate::abi::DAO_BOX_READ && b.object == g);
        read().next()?;
        // the values the boxes read: the bounds are frozen once a thread may
        // stop, so the mask of the last checkpoint usually holds again (a
        // few hundred boxes of NPB BT's lhs take 50 ms to evaluate)
        let inputs: Vec<Option<i128>> = read()
            .flat_map(|b| {
                let c = table(b.conds, b.n_conds).iter().map(|c| (c.global, c.offset, c.bytes, c.is_signed != 0));
                let d = table(b.dims, b.n_dims).iter().filter(|d| d.global != u32::MAX).map(|d| (d.global, d.offset, d.bytes, d.is_signed != 0));
                c.chain(d).collect::<Vec<_>>()
            })
            .map(|(gl, off, n, s)| self.value(gl, off, n, s))
            .collect();
        let key = (self as *const Self as usize, g);
        let cache = MASKS.get_or_init(Default::default);
        if let Some((i, m)) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            if *i == inputs {
                return m.clone();
            }
        }
        let m = self.eval_mask(g);
        cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (inputs, m.clone()));
        m
    }

    /// [`DaoModuleDesc::read_mask`] evaluated now.
    fn eval_mask(&self, g: u32) -> Option<Vec<(u64, u64)>> {
        let mut all = Vec::new();
        for b in self.boxes().iter().filter(|b| b.kind == crate::abi::DAO_BOX_READ && b.object == g) {
            all.extend(self.eval_box(b)?);
        }
        Some(crate::ranges::merge_ranges(all, u64::MAX))
    }

    /// A box's byte runs now (clipped to its global, sorted, merged); None
    /// when a condition does not hold or a value cannot be read.
    fn eval_box(&self, b: &crate::abi::DaoBoxDesc) -> Option<Vec<(u64, u64)>> {
        for c in table(b.conds, b.n_conds) {
            let v = self.value(c.global, c.offset, c.bytes, c.is_signed != 0)?;
            if v < c.min as i128 || v > c.max as i128 {
                return None;
            }
        }
        let size = self.globals().get(b.object as usize)?.size;
        let mut dims = Vec::new();
        for d in table(b.dims, b.n_dims) {
            let n = if d.global == u32::MAX {
                d.count as i128
            } else {
                (d.add as i128 + self.value(d.global, d.offset, d.bytes, d.is_signed != 0)?).max(d.count as i128).max(0)
            };
            dims.push((d.stride as i128, n));
        }
        box_runs(b.start as i128, b.size as i128, &dims, size)
    }
}

/// The read masks of the last checkpoint, by (module descriptor, global),
/// with the values they were computed from.
type MaskCache = std::sync::Mutex<std::collections::HashMap<(usize, u32), (Vec<Option<i128>>, Option<Vec<(u64, u64)>>)>>;
static MASKS: std::sync::OnceLock<MaskCache> = std::sync::OnceLock::new();

/// At most this many byte runs per box (a checkpoint evaluates each).
pub const MAX_BOX_RANGES: usize = 1 << 20;

/// The byte runs of the box of `size` bytes at `start` stepped by `dims`
/// ((stride, count)), clipped to `[0, limit)`, sorted and merged; None past
/// [`MAX_BOX_RANGES`] runs or when the counts make no sense.
pub fn box_runs(start: i128, size: i128, dims: &[(i128, i128)], limit: u64) -> Option<Vec<(u64, u64)>> {
    if dims.iter().any(|&(_, n)| n < 0) {
        return None;
    }
    if size <= 0 || dims.iter().any(|&(_, n)| n == 0) {
        return Some(Vec::new());
    }
    // steps that continue the run (stride = the run's size) widen it
    let mut size = size;
    let mut dims: Vec<(i128, i128)> = dims.iter().copied().filter(|&(st, n)| st != 0 && n > 1).collect();
    // innermost (smallest step) first: the runs then come out in order
    // for the usual boxes, and the sort below finds them sorted
    dims.sort_by_key(|&(st, _)| st.abs());
    while let Some(k) = dims.iter().position(|&(st, _)| st == size) {
        size *= dims[k].1;
        dims.remove(k);
    }
    let dims = &dims[..];
    let mut total: i128 = 1;
    for &(_, n) in dims {
        total = total.checked_mul(n)?;
        if total > MAX_BOX_RANGES as i128 {
            return None;
        }
    }
    let mut runs: Vec<(u64, u64)> = Vec::with_capacity(total as usize);
    let mut idx = vec![0i128; dims.len()];
    loop {
        let off: i128 = start + dims.iter().zip(&idx).map(|(&(st, _), &i)| st * i).sum::<i128>();
        let (a, b) = (off.clamp(0, limit as i128), (off + size).clamp(0, limit as i128));
        if a < b {
            runs.push((a as u64, b as u64));
        }
        // next combination
        let mut d = 0;
        while d < dims.len() {
            idx[d] += 1;
            if idx[d] < dims[d].1 {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
        if d == dims.len() {
            break;
        }
    }
    Some(crate::ranges::merge_ranges(runs, u64::MAX))
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
    /// Boxes (module indices) dead here when their conditions hold (ABI 12).
    pub fn cboxes(&self) -> &'static [u32] {
        table(self.cboxes, self.n_cboxes)
    }

    /// ABI 13: the globals whose device copies are dead at this site.
    pub fn ddead(&self) -> &'static [u32] {
        table(self.ddead, self.n_ddead)
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

/// Fills a described range (a writable global of a module's table, or an
/// allocated heap block) with `byte` (DAO_DEAD=poison).
pub fn fill_memory(addr: usize, len: usize, byte: u8) {
    // SAFETY: callers pass a writable global the pass described (constants
    // and thread-locals are not in the table), with its recorded size, or
    // an allocated block of the restored dao heap with its payload size.
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
        DaoModuleDesc { n_globals: globals.len() as u32, globals: globals.as_ptr(), n_conds: conds.len() as u32, conds: conds.as_ptr(), ..DaoModuleDesc::EMPTY }
    }

    fn cond(object: u32, global: u32, offset: i64, bytes: u32, is_signed: u32, min: i64, max: i64) -> DaoCondDesc {
        DaoCondDesc { object, global, offset, bytes, is_signed, min, max, cover: 0, add: 0, global2: u32::MAX, bytes2: 0, offset2: 0, is_signed2: 0, reserved: 0, add2: 0 }
    }

    /// A heap object dead under cover conditions (ABI 14) is dead only
    /// while its record is set and, for every condition, `0 <= V <= max`
    /// and `cover * V + min` reaches the record's size; V is 0 without a
    /// global. A cover condition of a global, a negative cover, or a null
    /// record keeps the object.
    #[test]
    fn cover_conditions_compare_with_the_heap_record() {
        use crate::abi::DaoHeapDesc;
        // global 0: a count n (i64); heap object 0 is module index 1
        let n: &'static mut [i64; 1] = Box::leak(Box::new([100]));
        let globals: &'static [DaoVarDesc] = Box::leak(Box::new([var(n.as_mut_ptr() as *mut u8, 8)]));
        let block: &'static mut [u8; 800] = Box::leak(Box::new([0u8; 800]));
        let heaps: &'static mut [DaoHeapDesc; 1] = Box::leak(Box::new([DaoHeapDesc { name: null(), loc: null(), addr: null_mut(), size: 0 }]));
        let hp = heaps.as_mut_ptr();
        let with = |conds: &'static [DaoCondDesc]| {
            let mut m = module(globals, conds);
            m.n_heaps = 1;
            m.heaps = hp;
            m
        };
        let cover = |global: u32, cover: i64, min: i64, max: i64| DaoCondDesc { cover, ..cond(1, global, 0, 8, 1, min, max) };
        let m = with(Box::leak(Box::new([cover(0, 8, 0, 1 << 40)])));
        assert_eq!(m.heap_index(0), None);
        assert_eq!(m.heap_index(1), Some(0));
        assert_eq!(m.heap_index(2), None);
        assert!(m.object_in_range(1) && !m.object_in_range(2));
        // no record yet: live
        assert_eq!(m.heap_record(0), None);
        assert!(!m.conds_hold(1));
        assert!(m.set_heap_record(0, block.as_mut_ptr() as usize, 800));
        assert!(!m.set_heap_record(1, 0, 0));
        assert_eq!(m.heap_record(0), Some((block.as_ptr() as usize, 800)));
        // 8 * 100 + 0 >= 800
        assert!(m.conds_hold(1));
        n[0] = 99;
        assert!(!m.conds_hold(1));
        // min makes up for it; max bounds V; V < 0 fails
        let m2 = with(Box::leak(Box::new([cover(0, 8, 8, 1 << 40)])));
        assert!(m2.conds_hold(1));
        let m3 = with(Box::leak(Box::new([cover(0, 8, 8, 98)])));
        assert!(!m3.conds_hold(1));
        n[0] = -1;
        let m4 = with(Box::leak(Box::new([cover(0, 1, 10_000, 1 << 40)])));
        assert!(!m4.conds_hold(1), "V < 0");
        // no global: V = 0, min alone must reach the size
        let m5 = with(Box::leak(Box::new([cover(u32::MAX, 8, 800, 0)])));
        assert!(m5.conds_hold(1));
        let m6 = with(Box::leak(Box::new([cover(u32::MAX, 8, 799, 0)])));
        assert!(!m6.conds_hold(1));
        // in i128: no overflow makes a huge product small
        n[0] = i64::MAX;
        let m7 = with(Box::leak(Box::new([cover(0, i64::MAX, i64::MIN, i64::MAX)])));
        assert!(m7.conds_hold(1));
        // a negative cover, and a cover condition of a global: live
        let m8 = with(Box::leak(Box::new([cover(u32::MAX, -8, 800, 0)])));
        assert!(!m8.conds_hold(1));
        let m9 = with(Box::leak(Box::new([DaoCondDesc { cover: 8, ..cond(0, u32::MAX, 0, 8, 1, 1 << 20, 0) }])));
        assert!(!m9.conds_hold(0));
        // a range condition of a heap object is read as before
        n[0] = 5;
        let m10 = with(Box::leak(Box::new([cond(1, 0, 0, 8, 1, 5, 5), cover(u32::MAX, 8, 800, 0)])));
        assert!(m10.conds_hold(1));
        // the record set to null (the block freed): live again
        assert!(m10.set_heap_record(0, 0, 800));
        assert!(!m10.conds_hold(1));
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

    /// A box's runs: every combination of its steps, contiguous steps
    /// folded into the run, clipped to the global, merged; counts that
    /// cannot be right (negative) or too many runs: None (nothing left out).
    #[test]
    fn box_runs_enumerate_and_clip() {
        use crate::desc::box_runs;
        // 2 x 3 cells of 8 bytes, rows of 40
        assert_eq!(box_runs(8, 8, &[(8, 2), (40, 3)], 1000), Some(vec![(8, 24), (48, 64), (88, 104)]));
        // a zero count: empty; a stride 0 step repeats the same run
        assert_eq!(box_runs(0, 8, &[(8, 0)], 100), Some(vec![]));
        assert_eq!(box_runs(16, 8, &[(0, 5)], 100), Some(vec![(16, 24)]));
        // clipped at both ends, negative strides
        assert_eq!(box_runs(-8, 16, &[(40, 3)], 90), Some(vec![(0, 8), (32, 48), (72, 88)]));
        assert_eq!(box_runs(80, 8, &[(-40, 3)], 1000), Some(vec![(0, 8), (40, 48), (80, 88)]));
        assert_eq!(box_runs(0, 8, &[(8, -1)], 100), None);
        assert_eq!(box_runs(0, 1, &[(2, 1 << 11), (1 << 12, 1 << 11)], u64::MAX), None);
    }

    /// A write box is left out only while all its conditions hold, with
    /// its counts read now (`max(0, add + value)`); a read box's count has
    /// a floor; a read mask is the union of a global's read boxes, none
    /// when any of them cannot be evaluated.
    #[test]
    fn boxes_are_evaluated_with_the_values_now() {
        use crate::abi::{DaoBoxDesc, DaoBoxDim, DAO_BOX_READ, DAO_BOX_WRITE};
        let ext: &'static mut [i32; 1] = Box::leak(Box::new([4]));
        let globals: &'static [DaoVarDesc] = Box::leak(Box::new([var(null_mut(), 800), var(ext.as_mut_ptr() as *mut u8, 4)]));
        let sym = |add: i64, floor: i64| DaoBoxDim { stride: 80, count: floor, global: 1, bytes: 4, offset: 0, add, is_signed: 1, reserved: 0 };
        let c: &'static [DaoCondDesc] = Box::leak(Box::new([cond(0, 1, 0, 4, 1, 3, 1 << 29)]));
        let wdims: &'static [DaoBoxDim] = Box::leak(Box::new([sym(-1, 0)]));
        let rdims: &'static [DaoBoxDim] = Box::leak(Box::new([sym(0, 6)]));
        let bx = |kind: u32, dims: &'static [DaoBoxDim], conds: &'static [DaoCondDesc]| DaoBoxDesc { object: 0, kind, n_dims: dims.len() as u32, n_conds: conds.len() as u32, start: 8, size: 16, dims: dims.as_ptr(), conds: conds.as_ptr() };
        let boxes: &'static [DaoBoxDesc] = Box::leak(Box::new([bx(DAO_BOX_WRITE, wdims, c), bx(DAO_BOX_READ, rdims, &[]), bx(DAO_BOX_READ, &[], &[])]));
        let mut m = module(globals, &[]);
        m.n_boxes = boxes.len() as u32;
        m.boxes = boxes.as_ptr();
        // value 4: the write box has 3 rows; the read boxes 6 (the floor)
        // and one
        assert_eq!(m.box_ranges(0), Some((0, vec![(8, 24), (88, 104), (168, 184)])));
        assert_eq!(m.box_ranges(1), None, "a read box is not a write box");
        assert_eq!(m.read_mask(0), Some(vec![(8, 24), (88, 104), (168, 184), (248, 264), (328, 344), (408, 424)]));
        assert_eq!(m.read_mask(1), None);
        ext[0] = 8;
        assert_eq!(m.box_ranges(0).map(|r| r.1.len()), Some(7));
        assert_eq!(m.read_mask(0).map(|r| r.len()), Some(8));
        // a condition that fails: nothing left out
        ext[0] = 2;
        assert_eq!(m.box_ranges(0), None);
    }
}
