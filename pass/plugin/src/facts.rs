//! Module-wide facts: the tracked globals (which escape, which are only
//! declared here, the bytes any code may read), the defined functions, how
//! each call is treated ([`CallKind`]), the interprocedural [`Summary`] of
//! a defined function, and the runtime-checked conditions' state
//! (`cond.rs`).
use crate::cond::CondFacts;
use crate::ir::{Module, Value};
use crate::known::{self, Effect, Intr, Role};
use crate::ir::{ArgFrom, ArgRead, ReadBox};
use crate::provenance::{address_taken, escapes, reads_seen};
use dao_analysis::BitSet;
use dao_analysis::fxhash::{HashMap, HashSet};

/// Module-wide facts: the tracked globals and which escape.
pub struct ModuleFacts {
    pub m: Module,
    pub globals: Vec<Value>,
    pub global_ix: HashMap<Value, usize>,
    pub global_size: Vec<u64>,
    pub global_escaped: Vec<bool>,
    /// Declared here, defined in another translation unit or a shared
    /// library: the runtime saves it only if a module compiled with the
    /// pass defines it (libc's `stderr` must never be restored).
    pub global_declared: Vec<bool>,
    /// Defined functions, indexable.
    pub funcs: Vec<Value>,
    pub func_ix: HashMap<Value, usize>,
    /// Per global, the bytes any code may ever read (`None`: any byte),
    /// set by the plan once every function's loads are known
    /// ([`ModuleFacts::set_readable`]); unset, every byte counts.
    /// Per global, the bytes any code may read with constant bounds, and
    /// the boxes of reads whose counts are known only at run time
    /// (`set_readable`); `None`: any byte.
    pub global_readable: std::cell::OnceCell<Vec<Option<(dao_analysis::intervals::Intervals, Vec<crate::ir::ReadBox>)>>>,
    /// Runtime-checked conditions: their globals and conditional kills
    /// (`cond.rs`).
    pub cond: CondFacts,
    /// The shim's loop facts per function, bindings, eligible globals and
    /// their writers (`FuncFacts::loop_facts`): world 1 of the conditions
    /// builds its specialised facts again, and the shim's answer depends
    /// only on these inputs.
    #[allow(clippy::type_complexity)]
    pub loop_cache: std::cell::RefCell<HashMap<(Value, Vec<(u32, i64, Value)>, Vec<Value>, Vec<(Value, Value)>), std::rc::Rc<crate::ir::LoopFacts>>>,
    /// Per defined function: whether every call in it is of a known
    /// external function that reads no memory or only through its
    /// arguments (`loop_kills::quiet_call`, asked at each call of it).
    pub quiet_defined: std::cell::RefCell<HashMap<Value, bool>>,
    /// The heap objects (issue #33, `heap.rs`): object `heap_from + k` of
    /// the numbering of `globals` is the block of tracked site `heap[k]`,
    /// its entry in `globals` a stand-in global of `scratch` (never part
    /// of the user's module; its size [`HEAP_SIZE`] a placeholder: the
    /// block's is known only at run time).
    pub heap: Vec<crate::heap::HeapSite>,
    pub heap_from: usize,
    /// The heap objects each value that may hold one's address may point
    /// into (every such value: `heap.rs`).
    pub heap_may: HashMap<Value, Vec<usize>>,
    /// The heap object a value certainly holds the address of.
    pub heap_exact: HashMap<Value, usize>,
    /// Per function, its values of `heap_exact` with the stand-in global
    /// of each (the shim replaces them in its clone).
    pub heap_repl: HashMap<Value, Vec<(Value, Value)>>,
    /// The allocation calls not tracked, with the reason (`-Rdao`).
    pub heap_untracked: Vec<crate::heap::Untracked>,
    scratch: Option<Module>,
}

/// The placeholder size of a heap object's stand-in (`heap::HEAP_SIZE`).
pub const HEAP_SIZE: u64 = crate::heap::HEAP_SIZE;

impl Drop for ModuleFacts {
    fn drop(&mut self) {
        // (after every clone of the shim is gone: no user of a stand-in
        // is left)
        if let Some(s) = self.scratch.take() {
            s.dispose();
        }
    }
}

/// Interprocedural summary of a defined function: the globals a call may
/// read before writing them whole (at first every global it may read at
/// all, `summaries::refine_summaries` narrows it), whether it reads unknown
/// memory, and the globals every path through it writes whole before any
/// read (`kills`, which the call then kills: empty until refined), and
/// the bytes of other globals every path through it writes before any
/// read (`partial`, the call's partial kills: `dao_analysis::bytelive`).
#[derive(Clone, Debug)]
pub struct Summary {
    pub globals: BitSet,
    pub reads_unknown: bool,
    pub kills: BitSet,
    /// (global, bytes of it certainly rewritten before any read).
    pub partial: Vec<(usize, dao_analysis::intervals::Intervals)>,
    /// (global of `globals`, the only bytes of it a call may read before
    /// rewriting them), for globals the function rewrites in part.
    pub exposed: Vec<(usize, dao_analysis::intervals::Intervals)>,
}

impl Summary {
    /// Reads nothing, kills nothing, over `n` objects.
    pub fn empty(n: usize) -> Summary {
        Summary { globals: BitSet::new_empty(n), reads_unknown: false, kills: BitSet::new_empty(n), partial: Vec::new(), exposed: Vec::new() }
    }

    pub fn join(&mut self, o: &Summary) -> bool {
        let mut c = self.globals.union_with(&o.globals);
        if o.reads_unknown && !self.reads_unknown {
            self.reads_unknown = true;
            c = true;
        }
        c
    }
}

/// The tracked globals (indices) that the module's address-taken functions
/// and the defined functions they call directly name in their
/// instructions (loaded, stored, or passed on).
pub fn callback_globals(mf: &ModuleFacts) -> Vec<usize> {
    let mut work: Vec<Value> = mf.funcs.iter().copied().filter(|f| address_taken(*f)).collect();
    let mut seen: HashSet<Value> = work.iter().copied().collect();
    let mut out = vec![false; mf.globals.len()];
    while let Some(f) = work.pop() {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if i.is_call() {
                if let Some(c) = i.called_function() {
                    if mf.func_ix.contains_key(&c) && seen.insert(c) {
                        work.push(c);
                    }
                }
            }
            for op in i.operands() {
                let base = if op.is_global_var() { Some(op) } else { op.strip_offset().map(|(b, _)| b) };
                if let Some(&g) = base.and_then(|b| mf.global_ix.get(&b)) {
                    out[g] = true;
                }
            }
        }
    }
    out.iter().enumerate().filter(|(_, x)| **x).map(|(i, _)| i).collect()
}

impl ModuleFacts {
    /// The objects of a body's variables after the stack objects: the
    /// tracked globals, then (in world 1 of the conditions) the boxes a
    /// loop rewrites under runtime-checked conditions (`cond::WBox`).
    pub fn n_objs(&self) -> usize {
        self.globals.len() + self.cond.n_boxes()
    }

    pub fn has_defined_globals(&self) -> bool {
        self.global_declared[..self.heap_from].iter().any(|d| !d) || !self.heap.is_empty()
    }

    /// The name of object `g` for messages: a global's, or a heap object's
    /// ("heap block 'w' (hs.c:9)").
    pub fn object_name(&self, g: usize) -> String {
        match self.is_heap(g).then(|| &self.heap[g - self.heap_from]) {
            Some(h) if h.name == "heap" => format!("heap block{}", h.loc.as_ref().map(|l| format!(" ({l})")).unwrap_or_default()),
            Some(h) => format!("heap block '{}'{}", h.name, h.loc.as_ref().map(|l| format!(" ({l})")).unwrap_or_default()),
            None => self.globals[g].name(),
        }
    }

    /// Whether heap object `g`'s size is known only at run time (the
    /// placeholder's: kills only under a cover condition).
    pub fn heap_size_unknown(&self, g: usize) -> bool {
        self.is_heap(g) && self.global_size[g] == HEAP_SIZE
    }

    /// Whether object `g` of the globals' numbering is a heap object.
    pub fn is_heap(&self, g: usize) -> bool {
        g >= self.heap_from && g < self.globals.len()
    }
    pub fn new(m: Module) -> Self {
        let mut globals = Vec::new();
        let mut global_size = Vec::new();
        let mut global_declared = Vec::new();
        let tp_caches = threadprivate_caches(m);
        for g in m.globals() {
            let name = g.name();
            if name.starts_with("llvm.") || g.is_global_constant() || g.is_thread_local() || known::is_omp_runtime_state(&name) || tp_caches.contains(&g) {
                continue;
            }
            let ty = g.global_value_type();
            if !m.is_sized(ty) {
                continue;
            }
            let size = m.alloc_size(ty);
            if size == 0 {
                continue;
            }
            globals.push(g);
            global_size.push(size);
            global_declared.push(g.is_declaration());
        }
        // the heap objects after the globals, each a stand-in global of a
        // scratch module (`heap.rs`)
        let heap_from = globals.len();
        let (heap, heap_untracked) = if crate::config::sections() { crate::heap::sites(m) } else { Default::default() };
        let scratch = (!heap.is_empty()).then(|| m.scratch_module("dao.heap"));
        let mut heap_may: HashMap<Value, Vec<usize>> = HashMap::default();
        let mut heap_exact: HashMap<Value, usize> = HashMap::default();
        let mut heap_repl: HashMap<Value, Vec<(Value, Value)>> = HashMap::default();
        for (k, site) in heap.iter().enumerate() {
            // a block of a size known here (`malloc(8 * N)`, N a constant)
            // is an object of that size, killed like a global; any other
            // is the placeholder's, killed only under a cover condition
            let size = crate::heap::constant_size(site).unwrap_or(HEAP_SIZE);
            let stand = scratch.expect("a scratch module").extern_global(m.array(m.i8(), size), &format!("dao.heap.{k}"));
            let h = globals.len();
            globals.push(stand);
            global_size.push(size);
            global_declared.push(false);
            for v in &site.may {
                let e = heap_may.entry(*v).or_default();
                if !e.contains(&h) {
                    e.push(h);
                }
            }
            for v in &site.exact {
                heap_exact.insert(*v, h);
                let f = v.param_parent().unwrap_or_else(|| v.parent_block().parent_function());
                heap_repl.entry(f).or_default().push((*v, stand));
            }
        }
        let global_ix = globals.iter().enumerate().map(|(i, g)| (*g, i)).collect();
        let funcs: Vec<Value> = m.functions().into_iter().filter(|f| !f.is_declaration()).collect();
        let func_ix = funcs.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let mut mf = ModuleFacts { m, global_escaped: vec![false; globals.len()], globals, global_ix, global_size, global_declared, funcs, func_ix, global_readable: Default::default(), cond: Default::default(), loop_cache: Default::default(), quiet_defined: Default::default(), heap, heap_from, heap_may, heap_exact, heap_repl, heap_untracked, scratch };
        // Externally visible globals may be read by name from other
        // translation units, i.e. by unknown code: they count as escaped
        // when the module calls any unknown code.
        let calls_unknown = mf.funcs.iter().any(|f| {
            f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| {
                i.is_call() && matches!(call_kind(&mf, i), CallKind::Unknown | CallKind::Indirect)
            })
        });
        // (a heap object's address never leaves the module's code: no
        // unknown read reaches it, `heap.rs`)
        for i in 0..mf.heap_from {
            let g = mf.globals[i];
            mf.global_escaped[i] = !mf.global_declared[i] && ((calls_unknown && !g.is_local_linkage()) || escapes(g));
        }
        // a heap object libomptarget was handed (an offload map): any of
        // its calls may copy the block, and they are calls of unknown code
        for (k, site) in mf.heap.iter().enumerate() {
            if site.offload {
                mf.global_escaped[mf.heap_from + k] = true;
            }
        }
        // Globals a callback may touch (issue #31): a function whose address
        // is taken -- qsort's comparator, a handler in a table -- runs when
        // unknown or indirect code calls it, and what it (or a function it
        // calls directly) reads is then read at that unknown or indirect
        // call. They count as escaped, so those calls use them; a static
        // read only by qsort's comparator was dead at the marker before.
        for g in callback_globals(&mf) {
            if !mf.global_declared[g] && g < mf.heap_from {
                mf.global_escaped[g] = true;
            }
        }
        mf
    }
}

impl ModuleFacts {
    /// The bytes of each global that any code may read, from every load of
    /// every function (`reads`, the shim's ranges) and every call passing
    /// a pointer into it to a function defined here (`arg_reads`, per
    /// function: composed with what the callee reads through that
    /// parameter, [`ParamReads`]). A global is readable anywhere (`None`)
    /// unless it is defined here with internal linkage (no other module
    /// names it) and its address only reaches loads, stores,
    /// memset/memcpy/memmove, lifetime markers and such parameters through
    /// address arithmetic ([`reads_seen`]): then every read of it is one of
    /// those (the shim reports each by its underlying object).
    pub fn set_readable(&self, reads: &[(Value, Option<ReadBox>)], arg_reads: &[(Value, &[ArgRead])]) {
        use dao_analysis::sections::Section;
        let mut acc: Vec<Option<(Vec<Section>, Vec<ReadBox>)>> = (0..self.globals.len())
            .map(|g| {
                let v = self.globals[g];
                (g < self.heap_from && !self.global_declared[g] && v.is_local_linkage() && reads_seen(v)).then(Default::default)
            })
            .collect();
        // the calls' reads through their pointers into globals
        let mut pr = ParamReads::new(arg_reads);
        let mut via_calls: Vec<(Value, Option<ReadBox>)> = Vec::new();
        for (_, list) in arg_reads {
            for ar in list.iter() {
                let ArgFrom::Call { callee, arg, global: Some(g), .. } = ar.from else { continue };
                if !self.global_ix.contains_key(&g) {
                    continue;
                }
                match (&ar.bx, pr.of(callee, arg)) {
                    (Some(p), Some(inner)) => via_calls.extend(inner.iter().map(|r| (g, compose(p, r)))),
                    _ => via_calls.push((g, None)),
                }
            }
        }
        let debug = crate::config::debug_loops();
        if debug {
            for (g, a) in acc.iter().enumerate() {
                if a.is_none() && !self.global_declared[g] && self.global_size[g] >= 65536 {
                    eprintln!("dao-debug: readable {}: any byte (its address reaches code the reads do not see)", self.globals[g].name());
                }
            }
        }
        for (g, r) in reads.iter().chain(&via_calls) {
            if debug && r.is_none() && self.global_ix.get(g).is_some_and(|&gi| acc[gi].is_some() && self.global_size[gi] >= 65536) {
                eprintln!("dao-debug: readable {}: any byte (a read with no box)", g.name());
            }
            let Some(&gi) = self.global_ix.get(g) else { continue };
            // a box with counts known only at run time: kept as it is when
            // every count comes from a global no code writes once a thread
            // may have stopped at a site (`CondFacts::frozen`: its value at
            // a checkpoint is the value every later read sees), else any
            // byte
            let sym = r.as_ref().is_some_and(|b| b.sym.iter().any(Option::is_some));
            let frozen = r.as_ref().is_some_and(|b| b.sym.iter().flatten().all(|(sc, _)| self.global_ix.get(&sc.global).is_some_and(|&cg| self.cond.frozen(cg))));
            match (r, &mut acc[gi]) {
                (Some(b), Some(list)) if sym && frozen => list.1.push(b.clone()),
                (Some(_), slot) if sym => {
                    if debug && slot.is_some() && self.global_size[gi] >= 65536 {
                        eprintln!("dao-debug: readable {}: any byte (a box counted by a global written after a site)", g.name());
                    }
                    *slot = None
                }
                (Some(b), Some(list)) => {
                    if debug && self.global_size[gi] >= 65536 {
                        eprintln!("dao-debug: readable {}: box {} {} {:?}", g.name(), b.start, b.size, b.dims);
                    }
                    list.0.push(Section { start: b.start, size: b.size, dims: b.dims.clone() })
                }
                (None, slot) => *slot = None,
                (_, None) => {}
            }
        }
        // a read outside the object (a guarded, never executed `a[k-1]` at
        // k = 0 that the may-box counts) cannot be a read of it in a valid
        // program: clipped
        let _ = self.global_readable.set(
            acc.into_iter()
                .enumerate()
                .map(|(g, a)| {
                    a.map(|(boxes, sym)| {
                        let size = self.global_size[g] as i64;
                        let m = dao_analysis::sections::may_cover(&boxes);
                        (dao_analysis::intervals::Intervals::from_unsorted(m.0.into_iter().map(|(lo, hi)| (lo.max(0), hi.min(size))).collect()), sym)
                    })
                })
                .collect(),
        );
    }

    /// The bytes of global `g` that may be read (`None`: any, also when
    /// some read's bounds are known only at run time).
    pub fn readable(&self, g: usize) -> Option<&dao_analysis::intervals::Intervals> {
        self.global_readable.get().and_then(|r| r[g].as_ref()).filter(|(_, sym)| sym.is_empty()).map(|(r, _)| r)
    }

    /// The bytes of global `g` that may be read with constant bounds, and
    /// the boxes of the reads with symbolic counts (`None`: any byte).
    pub fn readable_parts(&self, g: usize) -> Option<(&dao_analysis::intervals::Intervals, &[crate::ir::ReadBox])> {
        self.global_readable.get().and_then(|r| r[g].as_ref()).map(|(r, s)| (r, &s[..]))
    }
}

/// What a call may read through each pointer parameter of each defined
/// function, relative to the pointer it passes: the boxes of the loads and
/// transfers through the parameter, and of what the functions it passes
/// the pointer on to read through theirs (composed). `None`: unknown (a
/// read with no box, a recursive pass, no facts for the function).
pub struct ParamReads<'a> {
    by_fn: HashMap<Value, &'a [ArgRead]>,
    memo: HashMap<(Value, u32), Option<std::rc::Rc<Vec<ReadBox>>>>,
    busy: HashSet<(Value, u32)>,
}

impl<'a> ParamReads<'a> {
    pub fn new(arg_reads: &[(Value, &'a [ArgRead])]) -> Self {
        ParamReads { by_fn: arg_reads.iter().map(|(f, l)| (*f, *l)).collect(), memo: HashMap::default(), busy: HashSet::default() }
    }

    pub fn of(&mut self, f: Value, k: u32) -> Option<std::rc::Rc<Vec<ReadBox>>> {
        if let Some(r) = self.memo.get(&(f, k)) {
            return r.clone();
        }
        if !self.busy.insert((f, k)) {
            return None;
        }
        let r = self.compute(f, k).map(std::rc::Rc::new);
        self.busy.remove(&(f, k));
        self.memo.insert((f, k), r.clone());
        r
    }

    fn compute(&mut self, f: Value, k: u32) -> Option<Vec<ReadBox>> {
        let list = *self.by_fn.get(&f)?;
        let mut out = Vec::new();
        for ar in list {
            match ar.from {
                ArgFrom::Param(p) if p == k => out.push(ar.bx.clone()?),
                ArgFrom::Call { callee, arg, param: Some(p), .. } if p == k => {
                    let b = ar.bx.clone()?;
                    let inner = self.of(callee, arg)?;
                    for r in inner.iter() {
                        out.push(compose(&b, r)?);
                    }
                }
                _ => {}
            }
        }
        Some(hull_if_many(out))
    }
}

/// The bytes read at `r` (relative to a pointer) by a callee given any
/// pointer of box `p` (`size` 1): both boxes' dims, the starts added.
pub fn compose(p: &ReadBox, r: &ReadBox) -> Option<ReadBox> {
    let start = p.start.checked_add(r.start)?;
    let size = p.size.checked_sub(1)?.checked_add(r.size)?;
    let mut dims = p.dims.clone();
    dims.extend_from_slice(&r.dims);
    let mut sym = p.sym.clone();
    sym.resize(p.dims.len(), None);
    sym.extend_from_slice(&r.sym);
    sym.resize(dims.len(), None);
    Some(ReadBox { start, size, dims, sym })
}

/// Many boxes with constant counts (a straight-line function reading
/// fields of a block through its parameter: NPB BT's `binvcrhs`) become
/// their hull, so that every call site composes one box; symbolic ones
/// stay as they are.
fn hull_if_many(boxes: Vec<ReadBox>) -> Vec<ReadBox> {
    let (fixed, mut out): (Vec<ReadBox>, Vec<ReadBox>) = boxes.into_iter().partition(|b| b.sym.iter().all(Option::is_none));
    if fixed.len() <= 8 {
        out.extend(fixed);
        return out;
    }
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    for b in &fixed {
        let (mut l, mut h) = (b.start as i128, b.start as i128 + b.size as i128);
        for &(s, c) in &b.dims {
            let span = s as i128 * (c as i128 - 1).max(0);
            if span < 0 {
                l += span;
            } else {
                h += span;
            }
        }
        lo = lo.min(l.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
        hi = hi.max(h.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
    }
    out.push(ReadBox { start: lo, size: hi.saturating_sub(lo).max(0) as u64, dims: vec![], sym: vec![] });
    out
}

/// The cache globals of flang's threadprivate variables (the `cache`
/// operand of `__kmpc_threadprivate_cached`, `<var>.cache`): the runtime's
/// per-variable table of the threads' copies, rebuilt by every run, so
/// never saved or restored.
pub fn threadprivate_caches(m: Module) -> HashSet<Value> {
    let mut out = HashSet::default();
    for f in m.functions() {
        for u in f.users() {
            if let Some(Role::ThreadprivateCached { cache, .. }) = known::call_role(u) {
                if u.num_args() > cache && u.operand(cache).is_global_var() {
                    out.insert(u.operand(cache));
                }
            }
        }
    }
    out
}

/// How a call is treated by the analyses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// An LLVM intrinsic (the table's `llvm.` rows).
    Intrinsic(Intr),
    Marker(known::MarkerKind),
    Known(Effect),
    Defined(usize),
    /// A declaration the table does not know, or an indirect call.
    Unknown,
    Indirect,
}

pub fn call_kind(mf: &ModuleFacts, call: Value) -> CallKind {
    match call.called_function() {
        None => CallKind::Indirect,
        Some(f) => {
            if let Some(i) = known::intrinsic(f) {
                return CallKind::Intrinsic(i);
            }
            if let Some(&ix) = mf.func_ix.get(&f) {
                return CallKind::Defined(ix);
            }
            match known::effect(f) {
                Some(Effect::Marker(k)) => CallKind::Marker(k),
                Some(e) => CallKind::Known(e),
                None => CallKind::Unknown,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(start: i64, size: u64, dims: &[(i64, u64)]) -> ReadBox {
        ReadBox { start, size, dims: dims.to_vec(), sym: vec![None; dims.len()] }
    }

    /// Handles never dereferenced: only compared and hashed.
    fn fake(n: usize) -> Value {
        Value(n as llvm_sys::prelude::LLVMValueRef)
    }

    #[test]
    fn compose_adds_starts_and_concatenates_dims() {
        // pointers rhs[i][0][k] for i < 3, k < 4 (a 1-byte box), the callee
        // reading 40 bytes from 8 past its parameter
        let p = bx(1040, 1, &[(40, 4), (25000, 3)]);
        let r = bx(8, 40, &[]);
        let c = compose(&p, &r).unwrap();
        assert_eq!((c.start, c.size, c.dims.clone()), (1048, 40, vec![(40, 4), (25000, 3)]));
        // a pointer box of several bytes widens the read by them
        let c = compose(&bx(0, 3, &[]), &bx(0, 8, &[(8, 2)])).unwrap();
        assert_eq!((c.start, c.size, c.dims), (0, 10, vec![(8, 2)]));
        assert!(compose(&bx(i64::MAX, 1, &[]), &bx(1, 8, &[])).is_none());
    }

    #[test]
    fn many_constant_boxes_become_their_hull() {
        let boxes: Vec<ReadBox> = (0..10).map(|m| bx(8 * m, 8, &[])).collect();
        let h = hull_if_many(boxes);
        assert_eq!(h.len(), 1);
        assert_eq!((h[0].start, h[0].size), (0, 80));
        // a negative stride reaches below its start
        let mut boxes: Vec<ReadBox> = (0..9).map(|m| bx(100 + m, 1, &[])).collect();
        boxes.push(bx(100, 8, &[(-10, 3)]));
        let h = hull_if_many(boxes);
        assert_eq!((h[0].start, h[0].size), (80, 29));
        // few boxes stay as they are
        assert_eq!(hull_if_many(vec![bx(0, 8, &[]), bx(64, 8, &[])]).len(), 2);
    }

    #[test]
    fn param_reads_compose_through_calls_and_give_up_on_cycles_and_unknowns() {
        let (f, g, h, rec) = (fake(0x10), fake(0x20), fake(0x30), fake(0x40));
        // f reads 16 bytes at its parameter 0, and passes param 0 + 24 on
        // to g's parameter 1, which reads 8 bytes at 4 of it
        let fl = vec![
            ArgRead { from: ArgFrom::Param(0), bx: Some(bx(0, 16, &[])) },
            ArgRead { from: ArgFrom::Call { callee: g, arg: 1, global: None, param: Some(0) }, bx: Some(bx(24, 1, &[])) },
            // its parameter 1 is read with no box
            ArgRead { from: ArgFrom::Param(1), bx: None },
        ];
        let gl = vec![ArgRead { from: ArgFrom::Param(1), bx: Some(bx(4, 8, &[])) }];
        // h passes its parameter to itself
        let hl = vec![ArgRead { from: ArgFrom::Call { callee: h, arg: 0, global: None, param: Some(0) }, bx: Some(bx(0, 1, &[])) }];
        let list = [(f, &fl[..]), (g, &gl[..]), (h, &hl[..])];
        let mut pr = ParamReads::new(&list);
        let r = pr.of(f, 0).unwrap();
        let mut got: Vec<(i64, u64)> = r.iter().map(|b| (b.start, b.size)).collect();
        got.sort();
        assert_eq!(got, vec![(0, 16), (28, 8)]);
        assert!(pr.of(f, 1).is_none(), "a read with no box: unknown");
        assert!(pr.of(f, 2).unwrap().is_empty(), "an unused parameter reads nothing");
        assert!(pr.of(h, 0).is_none(), "a recursive pass: unknown");
        assert!(pr.of(rec, 0).is_none(), "a function with no facts: unknown");
    }
}
