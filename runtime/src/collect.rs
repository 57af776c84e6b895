//! Gathers what a checkpoint saves, without copying it.
//!
//! Walks the calling thread's chain (innermost to outermost) and, per frame,
//! takes the slots and stack objects its current site lists (all of them
//! under DAO_SAVE=all), the union of the globals the sites list (every
//! global another module's code may read (`escaped_globals`: address
//! escaped, or read by a function other modules can enter) of the other
//! modules when a site has DAO_SITE_UNKNOWN_READS, its own module's being
//! in its list already, and always that list of a module without
//! instrumented functions; every global under
//! DAO_SAVE=all; a global that every site naming it lists as live only in
//! part, as byte ranges (`dao_site_desc.parts`), is saved as those ranges
//! only, one record each at its address), and the heap blocks to save: with DAO_HEAP=reachable the
//! blocks reachable from the saved bytes by a conservative scan (every
//! 8-byte-aligned word whose value lies in [payload start, payload end] of
//! an allocated block marks it; transitively), less the blocks of the heap
//! objects dead in every walked frame of their module (heap_objects.rs:
//! neither saved nor scanned), otherwise every block.
use crate::ranges::{coalesce, complement, intersect_ranges, merge_ranges, minus_ranges, MIN_GAP};
use std::borrow::Cow;
use std::collections::BTreeMap;

use dao_format::{Frame, Global, Heap, HeapBlock, Slot, StackObject, Worker};

use crate::abi::{DaoFrame, DaoModuleDesc, DAO_SITE_UNKNOWN_READS};
use crate::desc::{self, memory, FrameView};
use crate::diag::fatal;
use crate::heap::{self, Block};
use crate::reachable::reachable;
use crate::heap_objects::{self, Verdicts};
use crate::stats::Bytes;

pub struct Collected {
    /// Outermost frame first.
    pub chain: Vec<Frame<'static>>,
    /// The other threads of the team (checkpoint inside a parallel region),
    /// or the idle workers with thread-local values (outside).
    pub workers: Vec<Worker<'static>>,
    pub master_tls: Vec<dao_format::TlsValue<'static>>,
    pub globals: Vec<Global<'static>>,
    /// The defined globals of the instrumented modules not saved whole
    /// (dead at the checkpoint), for `dao inspect`.
    pub dead: Vec<dao_format::DeadGlobal<'static>>,
    pub heap: Heap<'static>,
    /// Program memory the checkpoint does not hold, as address ranges: the
    /// unsaved bytes of the defined globals and the heap blocks left out,
    /// each range at least `release::RELEASE_MIN` long. A forked writer
    /// gives their whole pages back first (`release::give_back_unsaved`).
    pub unsaved: Vec<(u64, u64)>,
    pub bytes: Bytes,
    pub heap_blocks_total: u64,
    pub heap_blocks_saved: u64,
    /// The heap objects whose records validate (`heap.objects`), and how
    /// many of them are left out (their bytes: `bytes.heap_dead`).
    pub heap_objects_total: u64,
    pub heap_objects_left_out: u64,
    /// The heap's part, not yet collected (`collect_team_deferred`): what
    /// `finish_heap` needs. None once collected.
    pub heap_pending: Option<HeapPending>,
}

/// What the heap's part of a collection needs from the rest of it: the
/// roots of the scan (every saved byte payload outside the heap), the
/// modules and the walked sites (heap objects: which are live, why).
/// The heap's part is the collection's longest (NPB MG.A: 60-70 of its
/// 65-80 ms, 246 798 blocks walked and 455 MB scanned), and a forked
/// writer can do it on its snapshot instead of the program
/// (docs/design.md section 15, "The heap collected by the writer").
pub struct HeapPending {
    modules: Vec<&'static DaoModuleDesc>,
    roots: Vec<(usize, &'static [u8])>,
    /// Indices in `Collected::workers` of the workers whose state is a
    /// non-blocking snapshot (owned bytes, also roots of the scan).
    snap_workers: Vec<usize>,
    heap_live: Verdicts,
    sites: Sites,
    save_all: bool,
    heap_all: bool,
}

// SAFETY: module and site descriptors are immutable constant data; the
// roots are program memory read while the program is stopped (or in the
// writer's snapshot), as everywhere in this collection.
unsafe impl Send for HeapPending {}

impl Collected {
    /// Collects the heap's part now, if it is still pending: the blocks in
    /// use, those reachable from the saved bytes (less the dead heap
    /// objects), their records and byte counts.
    pub fn finish_heap(&mut self) {
        let Some(p) = self.heap_pending.take() else { return };
        let HeapPending { modules, mut roots, snap_workers, heap_live, sites, save_all, heap_all } = p;
        let (meta, walk) = heap::with(|h| (h.meta(), h.walk()));
        let blocks: Vec<Block> = walk.into_iter().filter(|b| b.in_use).collect();
        // the heap objects whose records validate, and those left out:
        // dead in every walked frame of their module (heap_objects.rs)
        let known = heap_objects::known(&modules, &blocks, &heap_live, heap_all || save_all);
        let excluded = heap_objects::excluded(&known);
        let saved = if heap_all || save_all {
            vec![true; blocks.len()]
        } else {
            // a non-blocking worker's snapshot: its owned copies of its
            // frames and thread-local values are roots too
            let mut all: Vec<(usize, &[u8])> = std::mem::take(&mut roots);
            for &k in &snap_workers {
                let w = &self.workers[k];
                for f in &w.chain {
                    all.extend(f.slots.iter().map(|s| (0usize, &*s.bytes)));
                    all.extend(f.stack_objects.iter().map(|o| (o.addr as usize, &*o.bytes)));
                }
                all.extend(w.tls.iter().map(|v| (0usize, &*v.bytes)));
                all.extend(w.tp.iter().filter_map(|c| c.bytes.as_deref().map(|b| (c.addr as usize, b))));
            }
            reachable(&blocks, &all, &excluded)
        };
        let mut hb = Vec::with_capacity(blocks.len());
        let mut n_saved = 0;
        for (b, &s) in blocks.iter().zip(&saved) {
            let data = s.then(|| Cow::Borrowed(memory(b.addr, b.size)));
            if s {
                n_saved += 1;
                self.bytes.heap += b.size as u64;
            } else if b.size as u64 >= crate::release::RELEASE_MIN {
                self.unsaved.push((b.addr as u64, (b.addr + b.size) as u64));
            }
            hb.push(HeapBlock { addr: b.addr as u64, size: b.size as u64, bytes: data });
        }
        self.bytes.heap_dead = excluded.iter().map(|&i| blocks[i].size as u64).sum();
        let objects = heap_objects::records(&known, &saved, &sites);
        self.heap = Heap { meta: Cow::Owned(meta), blocks: hb, objects };
        self.heap_blocks_total = blocks.len() as u64;
        self.heap_blocks_saved = n_saved;
        self.heap_objects_total = known.len() as u64;
        self.heap_objects_left_out = known.iter().filter(|o| o.left_out).count() as u64;
    }

    /// Upper bounds of the number and bytes of the byte payloads a
    /// pending heap part adds (every block in use, and the allocator's
    /// metadata), without walking the heap.
    pub fn heap_pending_bound(&self) -> (usize, u64) {
        if self.heap_pending.is_none() {
            return (0, 0);
        }
        let ((n, bytes), meta) = heap::with(|h| (h.bound(), h.meta().len() as u64));
        // slack for what a thread still running (a non-blocking round's
        // checked-in workers) allocates before the fork: a hand-over that
        // does not fit is left out and the next checkpoint starts a new
        // chain; unused pages of the mapping cost nothing
        let n = n + n / 8 + 4096;
        (n + 1, bytes + bytes / 8 + meta + (16 << 20))
    }

    /// The checkpoint's parts with this collection's payloads.
    pub fn parts<'a>(&'a self, header: &'a dao_format::Header, runtime: &'a dao_format::RuntimeState, omp: &'a dao_format::OmpState) -> dao_format::Parts<'a> {
        dao_format::Parts {
            header,
            runtime,
            chain: &self.chain,
            omp,
            master_tls: &self.master_tls,
            workers: &self.workers,
            globals: &self.globals,
            dead: &self.dead,
            heap: &self.heap,
            // the devices' regions are the image's (image.rs)
            devices: &[],
        }
    }
}

/// A stopped worker, as the master collects it (protocol/master.rs
/// gathers them).
pub struct Stopped {
    pub thread: u32,
    pub state: u32,
    /// Non-blocking: the state the worker copied when it checked in (then
    /// `top` and `func` are unused).
    pub snap: Option<Snapshot>,
    /// Innermost frame (for EXITED: the address the outlined function's
    /// frame had; it is no longer live, so only `func` may be used).
    pub top: *mut DaoFrame,
    pub func: *const crate::abi::DaoFuncDesc,
}

/// The site a worker that has finished its part stands at: the Exit site of
/// its outlined function.
pub fn exit_site(func: &crate::abi::DaoFuncDesc) -> u32 {
    func.sites().iter().position(|s| s.kind == crate::abi::DAO_SITE_EXIT).map_or(0, |i| i as u32 + 1)
}

/// Collects the state reachable from the chain ending at `top`.
pub fn collect(top: *mut DaoFrame, save_all: bool, heap_all: bool) -> Collected {
    collect_team(top, &[], save_all, heap_all)
}

/// The globals the walked sites name, by (module hash, index): the
/// module, and the byte ranges live (None: all of it).
type Wanted = BTreeMap<(u64, u32), (&'static DaoModuleDesc, Option<Vec<(u64, u64)>>)>;

/// Adds what one site (or a snapshot) wants of a global: the union with
/// what others want, whole if any wants it whole.
fn want(
    wanted: &mut Wanted,
    key: (u64, u32),
    m: &'static DaoModuleDesc,
    ranges: Option<Vec<(u64, u64)>>,
) {
    match wanted.get_mut(&key) {
        None => {
            wanted.insert(key, (m, ranges));
        }
        Some((_, have)) => match (have.as_mut(), ranges) {
            (Some(h), Some(r)) => h.extend(r),
            (Some(_), None) => *have = None,
            (None, _) => {}
        },
    }
}

/// The wanted globals merged by address, in the order of their keys: one
/// entry per address, named by the key whose global is the largest there
/// (the first such key on a tie), wanting the union of the ranges (None:
/// whole, if any wants it whole, or if the merged ranges come from
/// globals of different sizes: then the largest is kept whole).
fn by_address(wanted: Wanted) -> Vec<((u64, u32), &'static DaoModuleDesc, Option<Vec<(u64, u64)>>)> {
    let mut out: Vec<((u64, u32), &'static DaoModuleDesc, Option<Vec<(u64, u64)>>)> = Vec::new();
    let mut at: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (key, (m, ranges)) in wanted {
        let Some(d) = m.globals().get(key.1 as usize) else {
            fatal(format_args!("module {}: global index {} out of range (pass bug)", desc::name(m.source_name), key.1))
        };
        match at.get(&(d.addr as usize)) {
            None => {
                at.insert(d.addr as usize, out.len());
                out.push((key, m, ranges));
            }
            Some(&k) => {
                let (okey, om, oranges) = &mut out[k];
                let osize = om.globals().get(okey.1 as usize).map_or(0, |od| od.size);
                if d.size != osize {
                    // a common block declared with different lengths in
                    // different files: the longest one, whole
                    if d.size > osize {
                        *okey = key;
                        *om = m;
                    }
                    *oranges = None;
                    continue;
                }
                match (oranges.as_mut(), ranges) {
                    (Some(h), Some(r)) => h.extend(r),
                    (Some(_), None) => *oranges = None,
                    (None, _) => {}
                }
            }
        }
    }
    out
}

/// What the chains of all threads contribute: frames, roots of the heap
/// scan, globals their sites name.
struct Walk {
    bytes: Bytes,
    roots: Vec<(usize, &'static [u8])>,
    wanted: Wanted,
    /// The modules (by hash; 0: a frame without one) of the walked sites
    /// whose continuation reads unknown memory.
    unknown_reads: UnknownFrom,
    /// The candidate sites walked, innermost frame first per thread (for
    /// what rewrites each dead global first: `dao inspect`).
    sites: Sites,
    /// Which heap objects the walked frames have live (heap_objects.rs).
    heap_live: Verdicts,
}

/// Modules whose sites read unknown memory: such a read may reach any
/// escaped global of another module (those of the site's own module are in
/// its live set when it may reach them: ABI version 8).
#[derive(Clone, Default)]
struct UnknownFrom(Vec<u64>);

impl UnknownFrom {
    fn add(&mut self, module_hash: u64) {
        if !self.0.contains(&module_hash) {
            self.0.push(module_hash);
        }
    }
    fn extend(&mut self, o: &UnknownFrom) {
        for &h in &o.0 {
            self.add(h);
        }
    }
    /// Whether module `m`'s escaped globals must be saved.
    fn reaches(&self, m: u64) -> bool {
        self.0.iter().any(|&h| h != m)
    }
}

/// (module, site) pairs, innermost first.
type Sites = Vec<(&'static DaoModuleDesc, &'static crate::abi::DaoSiteDesc)>;

impl Walk {
    /// Thread-local values (saved whole; they are roots of the heap scan).
    fn tls(&mut self, refs: &[crate::omp::TlsRef]) -> Vec<dao_format::TlsValue<'static>> {
        refs.iter()
            .map(|r| {
                let b = memory(r.addr, r.size as usize);
                self.bytes.globals += r.size;
                self.roots.push((r.addr, b));
                let d = desc::table(r.module.tls, r.module.n_tls).get(r.index as usize);
                dao_format::TlsValue { module_hash: r.module.module_hash, index: r.index, name: d.map_or(Cow::Borrowed("?"), |d| desc::name(d.name)), bytes: Cow::Borrowed(b) }
            })
            .collect()
    }

    /// The frames of the chain ending at `top`, outermost first.
    fn chain(&mut self, top: *mut DaoFrame, save_all: bool) -> Vec<Frame<'static>> {
        let mut chain = Vec::new();
        let mut f = top;
        while let Some(fv) = FrameView::read(f) {
            chain.push(self.frame(&fv, save_all));
            f = fv.parent;
        }
        chain.reverse();
        chain
    }

    fn frame(&mut self, fv: &FrameView, save_all: bool) -> Frame<'static> {
        let func = fv.func;
        let fname = desc::name(func.name);
        let module = func.module();
        let (slot_ix, alloca_ix): (Vec<u32>, Vec<u32>) = if save_all {
            ((0..func.n_slots).collect(), (0..func.n_allocas).collect())
        } else {
            let site = func.sites().get((fv.site as usize).wrapping_sub(1)).unwrap_or_else(|| {
                fatal(format_args!("frame of {fname} is on the chain at site {}, which does not exist (pass bug)", fv.site))
            });
            if site.flags & DAO_SITE_UNKNOWN_READS != 0 {
                self.unknown_reads.add(module.map_or(0, |m| m.module_hash));
            }
            if let Some(m) = module {
                if site.n_dead > 0 || site.n_kept > 0 {
                    self.sites.push((m, site));
                }
                // the heap objects (indices from n_globals on) live here
                self.heap_live.frame(m, &fname, site);
                // globals dead here only when their runtime-checked
                // conditions hold (a loop bound read from a global large
                // enough): live otherwise
                let cdead = site.cdead().iter().copied().filter(|&g| g < m.n_globals && !m.conds_hold(g));
                // parts of globals dead here when the conditions of their
                // boxes hold (ABI 12): evaluated with the bounds' values now
                let boxes: Vec<(u32, Vec<(u64, u64)>)> = site.cboxes().iter().filter_map(|&k| m.box_ranges(k)).collect();
                for g in site.globals().iter().copied().chain(cdead) {
                    let Some(d) = m.globals().get(g as usize) else {
                        continue;
                    };
                    // live in part: the ranges (object-relative, so the same
                    // in the module that defines it)
                    let r: Vec<(u64, u64)> = site
                        .parts()
                        .filter(|p| p.0 == g)
                        .map(|p| (p.1, p.2))
                        .collect();
                    let mut r = (!r.is_empty()).then_some(r);
                    if site.globals().contains(&g) && boxes.iter().any(|(o, _)| *o == g) {
                        let mut live = r.take().unwrap_or_else(|| vec![(0, d.size)]);
                        for (_, b) in boxes.iter().filter(|(o, _)| *o == g) {
                            live = minus_ranges(&live, b);
                        }
                        r = Some(live);
                    }
                    if d.offset == crate::abi::DAO_GLOBAL_DECLARED {
                        if let Some((dm, di)) = crate::modules::defining(d.addr as usize) {
                            want(&mut self.wanted, (dm.module_hash, di), dm, r);
                        }
                    } else {
                        want(&mut self.wanted, (m.module_hash, g), m, r);
                    }
                }
            }
            (site.slots().to_vec(), site.allocas().to_vec())
        };
        let mut slots = Vec::new();
        for i in slot_ix {
            let d = func.slots().get(i as usize).unwrap_or_else(|| fatal(format_args!("{fname}: slot index {i} out of range (pass bug)")));
            let addr = fv.slots + d.offset as usize;
            let b = memory(addr, d.size as usize);
            self.bytes.slots += d.size;
            self.roots.push((addr, b));
            slots.push(Slot { index: i, name: desc::name(d.name), loc: desc::opt_name(d.loc), bytes: Cow::Borrowed(b) });
        }
        let mut objs = Vec::new();
        for i in alloca_ix {
            let d = func.allocas().get(i as usize).unwrap_or_else(|| fatal(format_args!("{fname}: stack object index {i} out of range (pass bug)")));
            let addr = fv.alloca(i as usize);
            let b = memory(addr, d.size as usize);
            self.bytes.stack += d.size;
            self.roots.push((addr, b));
            objs.push(StackObject {
                index: i,
                name: desc::name(d.name),
                loc: desc::opt_name(d.loc),
                addr: addr as u64,
                bytes: Cow::Borrowed(b),
            });
        }
        Frame {
            function: fname,
            module_hash: module.map_or(0, |m| m.module_hash),
            site: fv.site,
            frame_addr: fv.addr as u64,
            slots,
            stack_objects: objs,
        }
    }
}

/// A worker's private state, copied by the worker itself when it checks in
/// for a non-blocking round (protocol/worker.rs): its chain from the candidate up to
/// the outlined function and its thread-local values, as owned bytes (the
/// worker goes on running and changes them), plus what its sites ask of
/// the shared state (globals, and which heap objects are live in its
/// frames), which the master saves later.
pub struct Snapshot {
    pub frames: Vec<Frame<'static>>,
    pub tls: Vec<dao_format::TlsValue<'static>>,
    /// Its copies of flang's threadprivate variables (bytes of the live ones).
    pub tp: Vec<dao_format::TpCopy<'static>>,
    pub singles: u64,
    wanted: Vec<(
        (u64, u32),
        (&'static DaoModuleDesc, Option<Vec<(u64, u64)>>),
    )>,
    unknown_reads: UnknownFrom,
    sites: Sites,
    heap_live: Verdicts,
    bytes: Bytes,
}

// SAFETY: module descriptors are immutable constant data; the rest is owned.
unsafe impl Send for Snapshot {}

/// On a worker at a candidate: copies its private state (see [`Snapshot`]).
pub fn snapshot(thread: u32, top: *mut DaoFrame, save_all: bool) -> Snapshot {
    let mut w = Walk {
        bytes: Bytes::default(),
        roots: Vec::new(),
        wanted: Wanted::new(),
        unknown_reads: UnknownFrom::default(),
        sites: Sites::new(),
        heap_live: Verdicts::default(),
    };
    let frames = w
        .chain(top, save_all)
        .into_iter()
        .map(Frame::into_owned)
        .collect();
    let tls = w
        .tls(&crate::omp::tls_here())
        .into_iter()
        .map(dao_format::TlsValue::into_owned)
        .collect();
    let live = wanted_addrs(&w.wanted);
    let tp = tp_copies(thread, &live, save_all, &mut w.bytes).into_iter().map(dao_format::TpCopy::into_owned).collect();
    Snapshot {
        frames,
        tls,
        tp,
        singles: crate::omp::singles_of(thread),
        wanted: w.wanted.into_iter().collect(),
        unknown_reads: w.unknown_reads,
        sites: w.sites,
        heap_live: w.heap_live,
        bytes: w.bytes,
    }
}

/// Collects the state of the main thread's chain ending at `top` and of the
/// stopped workers of its team (each its own chain; a worker that has
/// finished its part of the region is one frame at the Exit site; a worker
/// of a non-blocking round by its [`Snapshot`]).
pub fn collect_team(
    top: *mut DaoFrame,
    workers: &[Stopped],
    save_all: bool,
    heap_all: bool,
) -> Collected {
    let mut c = collect_team_deferred(top, workers, save_all, heap_all);
    c.finish_heap();
    c
}

/// As [`collect_team`], less the heap's part (`heap_pending`), which
/// [`Collected::finish_heap`] collects later: in the program, or in a
/// forked writer on its snapshot.
pub fn collect_team_deferred(
    top: *mut DaoFrame,
    workers: &[Stopped],
    save_all: bool,
    heap_all: bool,
) -> Collected {
    let mut w = Walk {
        bytes: Bytes::default(),
        roots: Vec::new(),
        wanted: Wanted::new(),
        unknown_reads: UnknownFrom::default(),
        sites: Sites::new(),
        heap_live: Verdicts::default(),
    };
    let chain = w.chain(top, save_all);
    let mut team = Vec::new();
    // snapshots' bytes are roots of the heap scan (their copies in `team`)
    let mut snap_workers: Vec<usize> = Vec::new();
    for st in workers {
        if let Some(sn) = &st.snap {
            w.bytes.slots += sn.bytes.slots;
            w.bytes.stack += sn.bytes.stack;
            w.bytes.globals += sn.bytes.globals;
            w.unknown_reads.extend(&sn.unknown_reads);
            w.sites.extend(sn.sites.iter().copied());
            w.heap_live.extend(&sn.heap_live);
            for (k, (m, r)) in &sn.wanted {
                want(&mut w.wanted, *k, m, r.clone());
            }
            snap_workers.push(team.len());
            team.push(Worker { thread: st.thread, state: st.state, singles: sn.singles, chain: sn.frames.clone(), tls: sn.tls.clone(), tp: sn.tp.clone() });
            continue;
        }
        let frames = if st.state == dao_format::WORKER_EXITED {
            let Some(func) = desc::deref(st.func) else { fatal("an exited worker without its function descriptor (runtime bug)") };
            vec![Frame {
                function: desc::name(func.name),
                module_hash: func.module().map_or(0, |m| m.module_hash),
                site: exit_site(func),
                frame_addr: st.top as u64,
                slots: vec![],
                stack_objects: vec![],
            }]
        } else {
            w.chain(st.top, save_all)
        };
        let tls = w.tls(&crate::omp::worker_tls(st.thread));
        team.push(Worker { thread: st.thread, state: st.state, singles: crate::omp::singles_of(st.thread), chain: frames, tls, tp: vec![] });
    }
    let master_tls = w.tls(&crate::omp::tls_here());
    if workers.is_empty() {
        // outside a region: the idle workers' threadprivate values persist
        let mut idle = crate::omp::tls_threads();
        idle.extend(crate::omp::tp::threads_with_copies());
        idle.sort_unstable();
        idle.dedup();
        for t in idle.into_iter().filter(|t| *t != 0) {
            let tls = w.tls(&crate::omp::worker_tls(t));
            team.push(Worker { thread: t, state: dao_format::WORKER_IDLE, singles: 0, chain: vec![], tls, tp: vec![] });
        }
    }
    // flang's threadprivate copies of the workers the master collects (a
    // worker that snapshotted itself brought its own): live when a saved
    // frame of any thread names the variable, or when a region may read a worker's copy before writing it whole
    let live = wanted_addrs(&w.wanted);
    for (k, wk) in team.iter_mut().enumerate() {
        if workers.get(k).is_some_and(|st| st.snap.is_some()) {
            continue;
        }
        wk.tp = tp_copies(wk.thread, &live, save_all, &mut w.bytes);
        for c in &wk.tp {
            if let Some(Cow::Borrowed(b)) = &c.bytes {
                w.roots.push((c.addr as usize, *b));
            }
        }
    }
    let Walk { mut bytes, mut roots, mut wanted, unknown_reads, sites, heap_live } = w;

    let modules = crate::modules::all();
    // why the runtime itself keeps a global (by address), for `dao inspect`
    let mut runtime_why: std::collections::HashMap<usize, &'static str> = std::collections::HashMap::new();
    for m in &modules {
        let reason = if save_all {
            "DAO_SAVE=all"
        } else if m.n_funcs == 0 {
            "its address escapes from a module without instrumented functions, whose code may run again and read it"
        } else {
            "its address escapes and a saved frame calls code the pass cannot see after the checkpoint, which may read it"
        };
        let extra: Vec<u32> = if save_all {
            (0..m.n_globals).filter(|&i| m.globals()[i as usize].offset != crate::abi::DAO_GLOBAL_DECLARED).collect()
        } else if m.n_funcs == 0 || unknown_reads.reaches(m.module_hash) {
            // A module without instrumented functions has no sites that
            // could say what it reads: its code runs again only when called
            // from elsewhere (an unknown call, a callback, a destructor at
            // exit), so what it may read is always kept. Another module's is
            // kept when a site of a different module reads unknown memory.
            m.escaped().to_vec()
        } else {
            Vec::new()
        };
        for g in extra {
            let Some(d) = m.globals().get(g as usize) else { continue };
            if d.offset == crate::abi::DAO_GLOBAL_DECLARED {
                // read here, defined elsewhere: saved under the module that
                // defines it, never when none does (libc's stdout)
                if let Some((dm, di)) = crate::modules::defining(d.addr as usize) {
                    want(&mut wanted, (dm.module_hash, di), dm, None);
                }
            } else {
                want(&mut wanted, (m.module_hash, g), m, None);
            }
            runtime_why.entry(d.addr as usize).or_insert(reason);
        }
    }
    let mut globals = Vec::new();
    // One record set per address: a Fortran common block (and any global
    // with common linkage) is a global of every module that names it, at
    // one address; the checkpoint holds it once, under the module index
    // with the largest size, with the union of what every module's sites
    // want of it (whole if any wants it whole).
    let mut saved_at: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut saved_ranges: std::collections::HashMap<u64, Vec<(u64, u64)>> = std::collections::HashMap::new();
    for ((hash, i), m, ranges) in by_address(wanted) {
        let Some(d) = m.globals().get(i as usize) else {
            fatal(format_args!("module {}: global index {i} out of range (pass bug)", desc::name(m.source_name)))
        };
        // whole, or one record per live range, at its own address
        let mut ranges = match ranges {
            None => vec![(0, d.size)],
            Some(r) => merge_ranges(r, d.size),
        };
        // bytes no code will ever read (outside every read box of the
        // global, evaluated with its bounds now): not saved (ABI 12)
        if !save_all {
            if let Some(mask) = m.read_mask(i) {
                ranges = intersect_ranges(&ranges, &mask);
            }
        }
        // a gap smaller than a record's cost is saved with its neighbours
        // (a padded field of every cell: thousands of 8-byte holes)
        let ranges = coalesce(ranges, MIN_GAP);
        *saved_at.entry(d.addr as u64).or_default() += ranges.iter().map(|(lo, hi)| hi - lo).sum::<u64>();
        saved_ranges.entry(d.addr as u64).or_default().extend(ranges.iter().copied());
        let why = if d.size >= desc::KEPT_WHY { kept_why(&sites, d.addr as usize).or_else(|| runtime_why.get(&(d.addr as usize)).map(|w| Cow::Borrowed(*w))) } else { None };
        // (the reason on the first range only: the reader gives it to the
        // others, `dao_format::read`)
        for (k, (lo, hi)) in ranges.into_iter().enumerate() {
            let addr = d.addr as usize + lo as usize;
            let b = memory(addr, (hi - lo) as usize);
            bytes.globals += hi - lo;
            roots.push((addr, b));
            globals.push(Global {
                module_hash: hash,
                index: i,
                name: desc::name(d.name),
                loc: desc::opt_name(d.loc),
                addr: addr as u64,
                bytes: Cow::Borrowed(b),
                why: if k == 0 { why.clone() } else { None },
            });
        }
    }

    let dead = if save_all { Vec::new() } else { dead_globals(&modules, &saved_at, &sites) };
    let unsaved = if save_all { Vec::new() } else { unsaved_globals(&modules, &saved_ranges) };

    Collected {
        chain,
        master_tls,
        workers: team,
        globals,
        dead,
        heap: Heap { meta: Cow::Owned(Vec::new()), blocks: Vec::new(), objects: Vec::new() },
        unsaved,
        bytes,
        heap_blocks_total: 0,
        heap_blocks_saved: 0,
        heap_objects_total: 0,
        heap_objects_left_out: 0,
        heap_pending: Some(HeapPending { modules, roots, snap_workers, heap_live, sites, save_all, heap_all }),
    }
}

/// Why the global at `addr` is kept, from the innermost walked candidate
/// whose descriptor says (any module's index at that address: a common
/// block is a global of each module that names it).
fn kept_why(sites: &Sites, addr: usize) -> Option<Cow<'static, str>> {
    sites.iter().find_map(|(m, s)| {
        let i = m.globals().iter().position(|d| d.addr as usize == addr && d.offset != crate::abi::DAO_GLOBAL_DECLARED)?;
        s.kept_why(i as u32)
    })
}

/// The defined globals of the instrumented modules that the checkpoint does
/// not hold whole: every module's globals (one entry per address) whose
/// saved bytes fall short of their size.
fn dead_globals(modules: &[&'static DaoModuleDesc], saved_at: &std::collections::HashMap<u64, u64>, sites: &Sites) -> Vec<dao_format::DeadGlobal<'static>> {
    let mut seen = std::collections::HashSet::new();
    let mut dead = Vec::new();
    for m in modules {
        for (i, d) in m.globals().iter().enumerate() {
            if d.offset == crate::abi::DAO_GLOBAL_DECLARED || d.size == 0 || !seen.insert(d.addr as u64) {
                continue;
            }
            let saved = saved_at.get(&(d.addr as u64)).copied().unwrap_or(0);
            if saved < d.size {
                // the innermost walked candidate of its module that says
                // what rewrites it first
                let why = sites.iter().filter(|(sm, _)| sm.module_hash == m.module_hash).find_map(|(_, s)| s.dead_why(i as u32));
                dead.push(dao_format::DeadGlobal { module_hash: m.module_hash, index: i as u32, name: desc::name(d.name), size: d.size, saved, why });
            }
        }
    }
    dead
}

/// The bytes of the defined globals (one entry per address, the largest
/// size any module gives it) that the checkpoint does not hold, as address
/// ranges of at least `release::RELEASE_MIN` bytes; `saved`: the saved
/// ranges per address, relative to it.
fn unsaved_globals(modules: &[&'static DaoModuleDesc], saved: &std::collections::HashMap<u64, Vec<(u64, u64)>>) -> Vec<(u64, u64)> {
    let mut size_at: BTreeMap<u64, u64> = BTreeMap::new();
    for m in modules {
        for d in m.globals() {
            if d.offset != crate::abi::DAO_GLOBAL_DECLARED && d.size >= crate::release::RELEASE_MIN {
                let e = size_at.entry(d.addr as u64).or_default();
                *e = (*e).max(d.size);
            }
        }
    }
    let mut out = Vec::new();
    for (addr, size) in size_at {
        let have = saved.get(&addr).cloned().unwrap_or_default();
        for (lo, hi) in complement(&merge_ranges(have, size), size) {
            if hi - lo >= crate::release::RELEASE_MIN {
                out.push((addr + lo, addr + hi));
            }
        }
    }
    out
}

/// Addresses of the globals the walked sites name.
fn wanted_addrs(wanted: &Wanted) -> std::collections::HashSet<usize> {
    wanted
        .iter()
        .filter_map(|((_, i), (m, _))| m.globals().get(*i as usize))
        .map(|d| d.addr as usize)
        .collect()
}

/// Team thread `thread`'s copies of flang's threadprivate variables, with
/// the bytes of the live ones (omp/tp.rs).
fn tp_copies(thread: u32, live: &std::collections::HashSet<usize>, save_all: bool, bytes: &mut Bytes) -> Vec<dao_format::TpCopy<'static>> {
    crate::omp::tp::copies_of(thread)
        .into_iter()
        .map(|c| {
            let (name, in_region) = crate::omp::tp::var_info(c.data);
            let keep = save_all || in_region || live.contains(&c.data);
            if keep {
                bytes.globals += c.size;
            }
            dao_format::TpCopy { name: Cow::Owned(name), var: c.data as u64, addr: c.addr as u64, size: c.size, bytes: keep.then(|| Cow::Borrowed(memory(c.addr, c.size as usize))) }
        })
        .collect()
}
