//! Heap objects (ABI 14): the heap blocks the pass knows one by one, and
//! which of them a checkpoint leaves out.
//!
//! A heap object is the block of one allocation call in `main` that runs at
//! most once per run and whose address never leaves its module's code
//! (`pass/plugin/src/heap.rs`). The module's writable records
//! (`dao_heap_desc`) hold its address and the bytes asked for, written by
//! the program after the call (null before it frees the block). In a
//! site's `globals`, `cdead`, `dead` and `kept` lists object index
//! `n_globals + k` is heap object `k`.
//!
//! The rule: in a walked frame of module m (any thread's chain, or a
//! worker's non-blocking snapshot) heap object k is *live* when the frame's
//! site lists `n_globals + k` in `globals`, or in `cdead` with a condition
//! of it failing now (`DaoModuleDesc::conds_hold`); otherwise *dead* there.
//! Its block is left out of the checkpoint (neither saved nor scanned for
//! pointers: its contents, pointers included, are never read before being
//! rewritten) only when (a) the checkpoint is not DAO_SAVE=all or
//! DAO_HEAP=all, (b) some walked frame belongs to m, (c) every walked frame
//! of m has it dead, and (d) its record validates: its address is the
//! payload start of an allocated block of the dao heap at least `size`
//! bytes long. Any doubt saves: a record that does not validate is not
//! known (its block, if any, stays subject to the reachability scan), and a
//! block that two records name is left out only when both say so.
//! `collect.rs` walks the frames (`Verdicts::frame`) and excludes the
//! blocks from its scan; the checkpoint lists every validated object
//! (`records`: dao-format's `HeapObject`), left out or saved, and a
//! restart writes their records back (startup.rs).
use crate::abi::{DaoModuleDesc, DaoSiteDesc};
use crate::desc;
use crate::diag::fatal;
use crate::heap::Block;

/// What the walked frames say of the heap objects: per module with a
/// walked frame (in the order first walked), whether each of its heap
/// objects is live in at least one of them.
#[derive(Clone, Default)]
pub struct Verdicts(Vec<(&'static DaoModuleDesc, Vec<bool>)>);

impl Verdicts {
    fn of(&mut self, m: &'static DaoModuleDesc) -> &mut Vec<bool> {
        let i = match self.0.iter().position(|(x, _)| x.module_hash == m.module_hash) {
            Some(i) => i,
            None => {
                self.0.push((m, vec![false; m.n_heaps as usize]));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    /// A walked frame of module `m` (of function `func`) at `site`. An
    /// index of the site's `globals` or `cdead` beyond the module's globals
    /// and heap objects is a fatal error (a pass bug).
    pub fn frame(&mut self, m: &'static DaoModuleDesc, func: &str, site: &DaoSiteDesc) {
        for &o in site.globals().iter().chain(site.cdead()) {
            if !m.object_in_range(o) {
                fatal(format_args!(
                    "module {}: a site of {func} names object {o}, but the module has {} globals and {} heap objects (pass bug)",
                    desc::name(m.source_name),
                    m.n_globals,
                    m.n_heaps
                ));
            }
        }
        let live = self.of(m);
        for &o in site.globals() {
            if let Some(k) = m.heap_index(o) {
                live[k as usize] = true;
            }
        }
        for &o in site.cdead() {
            if let Some(k) = m.heap_index(o) {
                if !m.conds_hold(o) {
                    live[k as usize] = true;
                }
            }
        }
    }

    /// Adds what another walk found (a worker's snapshot).
    pub fn extend(&mut self, o: &Verdicts) {
        for (m, l) in &o.0 {
            let live = self.of(m);
            for (a, &b) in live.iter_mut().zip(l) {
                *a |= b;
            }
        }
    }

    /// Whether heap object `k` of `m` is dead in every walked frame of `m`
    /// and some frame of `m` was walked.
    fn dead(&self, m: &DaoModuleDesc, k: u32) -> bool {
        self.0.iter().find(|(x, _)| x.module_hash == m.module_hash).is_some_and(|(_, l)| l.get(k as usize) == Some(&false))
    }
}

/// A heap object whose record validates at this checkpoint.
pub struct Known {
    pub module: &'static DaoModuleDesc,
    pub k: u32,
    /// Its block: an index into the collection's allocated blocks.
    pub block: usize,
    pub addr: usize,
    pub size: u64,
    /// The block is left out of the checkpoint.
    pub left_out: bool,
}

/// Every heap object of `modules` whose record validates against the
/// allocated `blocks` (sorted by address), and whether its block is left
/// out (`keep_all`: DAO_SAVE=all or DAO_HEAP=all, nothing is).
pub fn known(modules: &[&'static DaoModuleDesc], blocks: &[Block], verdicts: &Verdicts, keep_all: bool) -> Vec<Known> {
    let mut out: Vec<Known> = Vec::new();
    for &m in modules {
        for k in 0..m.n_heaps {
            let Some((addr, size)) = m.heap_record(k) else { continue };
            let Ok(block) = blocks.binary_search_by_key(&addr, |b| b.addr) else { continue };
            if !blocks[block].in_use || (blocks[block].size as u64) < size {
                continue;
            }
            let left_out = !keep_all && verdicts.dead(m, k);
            out.push(Known { module: m, k, block, addr, size, left_out });
        }
    }
    // a block that two records name (a record left set after its block was
    // freed and allocated again) is left out only when both are dead
    let mut keep = std::collections::HashSet::new();
    keep.extend(out.iter().filter(|o| !o.left_out).map(|o| o.block));
    for o in &mut out {
        o.left_out &= !keep.contains(&o.block);
    }
    out
}

/// The blocks (indices into the allocated blocks) left out: sorted, each once.
pub fn excluded(known: &[Known]) -> Vec<usize> {
    let mut v: Vec<usize> = known.iter().filter(|o| o.left_out).map(|o| o.block).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The checkpoint's list of heap objects: every known one with whether its
/// block is saved (`saved`, per allocated block) and why: for one left out,
/// what rewrites it first, from the innermost walked candidate of its
/// module that lists it in `dead`; for a saved one of at least
/// [`desc::KEPT_WHY`] bytes, why it is kept, from the innermost one that
/// lists it in `kept`. `sites`: the walked candidates, innermost first.
pub fn records(known: &[Known], saved: &[bool], sites: &[(&'static DaoModuleDesc, &'static DaoSiteDesc)]) -> Vec<dao_format::HeapObject<'static>> {
    known
        .iter()
        .map(|o| {
            let index = o.module.n_globals.saturating_add(o.k);
            let mut of_module = sites.iter().filter(|(m, _)| m.module_hash == o.module.module_hash).map(|(_, s)| s);
            let saved = saved.get(o.block).copied().unwrap_or(false);
            let why = if o.left_out {
                of_module.find_map(|s| s.dead_why(index))
            } else if saved && o.size >= desc::KEPT_WHY {
                of_module.find_map(|s| s.kept_why(index))
            } else {
                None
            };
            let d = &o.module.heaps()[o.k as usize];
            dao_format::HeapObject {
                module_hash: o.module.module_hash,
                index: o.k,
                name: desc::name(d.name),
                loc: desc::opt_name(d.loc),
                addr: o.addr as u64,
                size: o.size,
                saved,
                why,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{DaoCondDesc, DaoHeapDesc, DaoVarDesc, DAO_SITE_MARKER};
    use std::ptr::null;

    fn leak<T>(v: Vec<T>) -> &'static [T] {
        Box::leak(v.into_boxed_slice())
    }

    /// A module of one global (index 0) and `heaps` heap objects
    /// (indices 1..), with `conds`.
    fn module(hash: u64, heaps: &'static mut [DaoHeapDesc], conds: &'static [DaoCondDesc]) -> &'static DaoModuleDesc {
        let g: &'static mut [u64; 1] = Box::leak(Box::new([0]));
        let globals = leak(vec![DaoVarDesc { name: c"n".as_ptr(), loc: null(), size: 8, offset: 0, addr: g.as_mut_ptr() as *mut u8 }]);
        Box::leak(Box::new(DaoModuleDesc {
            module_hash: hash,
            source_name: c"m.c".as_ptr(),
            n_globals: 1,
            globals: globals.as_ptr(),
            n_conds: conds.len() as u32,
            conds: conds.as_ptr(),
            n_heaps: heaps.len() as u32,
            heaps: heaps.as_mut_ptr(),
            ..DaoModuleDesc::EMPTY
        }))
    }

    fn heap(name: &'static std::ffi::CStr, addr: usize, size: u64) -> DaoHeapDesc {
        DaoHeapDesc { name: name.as_ptr(), loc: c"m.c:3".as_ptr(), addr: addr as *mut u8, size }
    }

    /// A marker site listing `globals` live, `cdead` live under conditions,
    /// and `dead` with what rewrites each first.
    fn site(globals: Vec<u32>, cdead: Vec<u32>, dead: Vec<(u32, &'static std::ffi::CStr)>) -> &'static DaoSiteDesc {
        let (g, c) = (leak(globals), leak(cdead));
        let d = leak(dead.iter().map(|x| x.0).collect());
        let why = leak(dead.iter().map(|x| x.1.as_ptr()).collect());
        Box::leak(Box::new(DaoSiteDesc {
            kind: DAO_SITE_MARKER,
            flags: 0,
            loc: null(),
            callee: null(),
            n_slots: 0,
            slots: null(),
            n_allocas: 0,
            allocas: null(),
            n_globals: g.len() as u32,
            globals: g.as_ptr(),
            n_parts: 0,
            parts: null(),
            n_cdead: c.len() as u32,
            cdead: c.as_ptr(),
            n_dead: d.len() as u32,
            dead: d.as_ptr(),
            dead_why: why.as_ptr(),
            n_kept: 0,
            kept: null(),
            kept_why: null(),
            n_cboxes: 0,
            cboxes: null(),
            n_ddead: 0,
            ddead: null(),
        }))
    }

    fn blocks(v: &[(usize, usize)]) -> Vec<Block> {
        v.iter().map(|&(addr, size)| Block { addr, size, in_use: true }).collect()
    }

    /// The rule (a)-(d): a block is left out only when every walked frame
    /// of its module has the object dead (not in `globals`; in `cdead`
    /// with its conditions holding), some frame of the module was walked,
    /// nothing forces saving all, and the record names an allocated block
    /// at least `size` long.
    #[test]
    fn left_out_only_when_dead_in_every_frame_of_the_module_and_valid() {
        // heap objects 0..4: module indices 1..5
        let heaps = Box::leak(Box::new([heap(c"a", 0x1000, 64), heap(c"b", 0x2000, 64), heap(c"c", 0x3000, 64), heap(c"d", 0x4010, 64), heap(c"e", 0x5000, 65)]));
        let m = module(7, heaps, &[]);
        let bl = blocks(&[(0x1000, 64), (0x2000, 64), (0x3000, 64), (0x4000, 128), (0x5000, 64)]);
        let outer = site(vec![2], vec![], vec![(1, c"the loop at m.c:9")]);
        let inner = site(vec![], vec![], vec![(1, c"the call of 'f' at m.c:12"), (3, c"x")]);
        let mut v = Verdicts::default();
        // no frame of the module walked: nothing is left out
        let k = known(&[m], &bl, &v, false);
        assert!(k.iter().all(|o| !o.left_out));
        v.frame(m, "main", outer);
        v.frame(m, "f", inner);
        let k = known(&[m], &bl, &v, false);
        // d: not a payload start; e: its block is shorter than asked
        assert_eq!(k.iter().map(|o| o.k).collect::<Vec<_>>(), [0, 1, 2]);
        // a dead in both, b live in the outer frame, c dead in both
        assert_eq!(k.iter().map(|o| o.left_out).collect::<Vec<_>>(), [true, false, true]);
        assert_eq!(excluded(&k), [0, 2]);
        // DAO_SAVE=all / DAO_HEAP=all: nothing
        assert!(known(&[m], &bl, &v, true).iter().all(|o| !o.left_out));
        // the records: why from the innermost candidate that lists it
        let saved = [false, true, false, true, true];
        let r = records(&k, &saved, &[(m, inner), (m, outer)]);
        assert_eq!((r[0].name.as_ref(), r[0].saved, r[0].why.as_deref()), ("a", false, Some("the call of 'f' at m.c:12")));
        assert_eq!((r[1].saved, r[1].why.as_deref()), (true, None), "under 64 KiB: no reason");
        assert_eq!((r[2].saved, r[2].why.as_deref(), r[2].index, r[2].addr, r[2].size), (false, Some("x"), 2, 0x3000, 64));
        // a worker's snapshot with the object live keeps it
        let mut w = Verdicts::default();
        w.frame(m, "main.omp_outlined", site(vec![1], vec![], vec![]));
        v.extend(&w);
        assert_eq!(known(&[m], &bl, &v, false).iter().map(|o| o.left_out).collect::<Vec<_>>(), [false, false, true]);
        // a record set to null (block freed) is not known
        m.set_heap_record(2, 0, 0);
        assert_eq!(known(&[m], &bl, &v, false).len(), 2);
    }

    /// In `cdead`, a heap object is dead only while its cover conditions
    /// hold; two records naming one block leave it out only when both are
    /// dead; a frame of another module says nothing.
    #[test]
    fn conditions_shared_blocks_and_other_modules() {
        let conds = leak(vec![DaoCondDesc { object: 1, global: u32::MAX, offset: 0, bytes: 8, is_signed: 1, min: 64, max: 0, cover: 8, add: 0, global2: u32::MAX, bytes2: 0, offset2: 0, is_signed2: 0, reserved: 0, add2: 0 }]);
        let heaps = Box::leak(Box::new([heap(c"a", 0x1000, 64), heap(c"b", 0x1000, 32)]));
        let m = module(7, heaps, conds);
        let other = module(8, Box::leak(Box::new([heap(c"z", 0x2000, 16)])), &[]);
        let bl = blocks(&[(0x1000, 80), (0x2000, 16)]);
        let walk = || {
            let mut v = Verdicts::default();
            v.frame(m, "main", site(vec![], vec![1], vec![]));
            v.frame(other, "g", site(vec![1], vec![], vec![]));
            v
        };
        let k = known(&[m, other], &bl, &walk(), false);
        // a: conditions hold (0 * 8 + 64 >= 64), b: dead, z: live
        assert_eq!(k.iter().map(|o| (o.k, o.left_out)).collect::<Vec<_>>(), [(0, true), (1, true), (0, false)]);
        assert_eq!(excluded(&k), [0]);
        // a asks for more than its cover reaches (the conditions are read
        // when the frame is walked): live, and so the block b shares is
        // kept too
        m.set_heap_record(0, 0x1000, 72);
        assert!(known(&[m, other], &bl, &walk(), false).iter().all(|o| !o.left_out));
        // a module whose frames were never walked leaves nothing out
        let v2 = {
            let mut v2 = Verdicts::default();
            v2.frame(other, "g", site(vec![], vec![], vec![]));
            v2
        };
        m.set_heap_record(0, 0x1000, 64);
        let k = known(&[m, other], &bl, &v2, false);
        assert_eq!(k.iter().map(|o| o.left_out).collect::<Vec<_>>(), [false, false, true]);
    }
}
