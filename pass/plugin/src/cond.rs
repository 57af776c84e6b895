//! Runtime-checked conditions (issue #15): kills that hold only when a
//! value read from memory is large enough.
//!
//! Real codes take loop extents from globals (`grid_points[0]`, `nx`): a
//! loop `for (i = 0; i < n; i++) a[i] = ...` rewrites all of `a` only when
//! `n` is at least `a`'s length. The shim reports such a count as
//! symbolic (`ir::SymCount`: a constant plus an integer loaded from a
//! global), the section analysis chooses the least counts that cover the
//! object (`dao_analysis::sections::symbolic_cover`), and the kill becomes
//! *conditional*: object `o` is dead at a site if every condition of every
//! conditional kill of `o` holds when the checkpoint is taken. The runtime
//! checks them then (`dao_site_desc.cdead`, `dao_module_desc.conds`).
//!
//! Why the value at checkpoint time is the value the loop will use:
//! - the global is *eligible* ([`setup`]): defined here with internal
//!   linkage, its address only loaded from and stored to (so every write of
//!   it is a store, memset or memcpy of this module that names it), and no
//!   function that may write it is called other than directly or as a
//!   fork's outlined function (no callback can write it behind an unknown
//!   call);
//! - in the function of the loop and everything it calls it is never
//!   written (*stable*): the shim loads it once per call;
//! - between the site and the loop no statement writes it: the plan
//!   computes liveness twice, once without the conditional kills (world 0)
//!   and once with them as kills, where every statement that may write a
//!   condition's global also *uses* each object killed under it (world 1).
//!   An object live in world 0 but not in world 1 is dead at the site when
//!   its conditions hold: on every path from the site its first access is
//!   a kill, and a conditional kill comes before any write of the values
//!   it checks. Other threads: a thread whose own continuation writes the
//!   global has the object live in its world 1 (the runtime unions the
//!   frames of every thread, a frame that wants an object wins).
//! - Liveness is separable per variable (gen/kill, and the call summaries
//!   per global), so one object's status in world 1 depends only on its
//!   own kills: the conjunction of *its* conditions is enough.
//!
//! This file sits below the module and function facts (`facts.rs` holds
//! the [`CondFacts`] of a module): what it needs of them comes as
//! arguments, the globals a pointer may point into as `globals_at`.
use crate::ir::{Block, Opcode, SymCount, Value};
use crate::known::{self, Intr, Role};
use crate::provenance::only_accessed;
use dao_analysis::callgraph::CallGraph;
use dao_analysis::BitSet;
use std::cell::{Cell, OnceCell, RefCell};
use dao_analysis::fxhash::HashMap;

/// One condition: the `bytes`-wide integer at byte `off` of global
/// `global` (read signed or not) lies in `[min, max]`. With `cover` > 0 (a
/// heap object's kill, `heap.rs`) instead: the integer V (0 when `global`
/// is [`NO_VALUE`]) lies in `[0, max]`, so does W, the integer `second`
/// names (when it names one), and `cover * (V + add) * F + min` bytes, F =
/// W + `second`'s add (1 when none), reach the end of the heap object's
/// block (dao-abi `COND_DESC`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cond {
    pub global: usize,
    pub off: i64,
    pub bytes: u32,
    pub signed: bool,
    pub min: i64,
    pub max: i64,
    pub cover: u64,
    pub add: i64,
    /// A cover's second factor: (global, off, bytes, signed, add).
    pub second: Option<(usize, i64, u32, bool, i64)>,
}

/// A cover condition's `global` when its extent is constant.
pub const NO_VALUE: usize = u32::MAX as usize;

impl Cond {
    /// The condition for a symbolic count `c.add + v` to be at least `k`:
    /// `v >= k - add`, and small enough (2^(8*bytes-2)) that the count did
    /// not wrap in its type, whose width is at least the value's. For a
    /// count `add + floor((v + pre) / div)` (`div > 1`), `v + pre >= div *
    /// (k - add)` and `v + pre >= 0`. At most `c.high` too (a pinned value).
    pub fn at_least(global: usize, c: &SymCount, k: u64) -> Option<Cond> {
        let bits = 8 * c.bytes;
        if !(1..=8).contains(&c.bytes) || c.div < 1 || !c.is_plain() {
            return None;
        }
        let max = if bits >= 64 { 1i64 << 62 } else { 1i64 << (bits - 2) };
        let max = max.min(c.high);
        let need = (k as i64).checked_sub(c.add)?;
        let min = if c.div == 1 { need } else { c.div.checked_mul(need.max(0))?.checked_sub(c.pre)?.max(c.pre.checked_neg()?) };
        let min = min.max(c.low).max(0);
        (min <= max).then_some(Cond { global, off: c.off, bytes: c.bytes, signed: c.signed, min, max, cover: 0, add: 0, second: None })
    }

    /// A heap object's cover: `scale * (V + add) * F + base` bytes reach
    /// the end of its block, V the value count `c` reads (`add` its add),
    /// F 1 or the second factor `second` (global index, off, bytes,
    /// signed, add) of a flattened nest; each value at most `max`, the
    /// counts' wrap guard. `base` bytes when `c` is None.
    pub fn cover(global: usize, c: Option<&SymCount>, scale: u64, base: i64, max: i64, second: Option<(usize, i64, u32, bool, i64)>) -> Cond {
        match c {
            Some(c) => Cond { global, off: c.off, bytes: c.bytes, signed: c.signed, min: base, max, cover: scale.max(1), add: c.add, second },
            None => Cond { global: NO_VALUE, off: 0, bytes: 0, signed: false, min: base, max: 0, cover: 1, add: 0, second: None },
        }
    }
}

/// The conditions under which a read's box (`crate::ir::ReadBox`, its
/// bounds mapped to global indices by `global_ix`) and write box `w` share
/// no byte (`dao_analysis::disjoint::apart`): each value at most the bound
/// chosen, and at least the read's `low` (its count's own requirement).
/// None when no bounds keep them apart, or a count is read from a global
/// that is not tracked.
pub fn apart(read: &crate::ir::ReadBox, w: &WBox, global_ix: &HashMap<Value, usize>) -> Option<Vec<Cond>> {
    use dao_analysis::disjoint::{Boxy, Count};
    // the values: (global, off, bytes, signed), numbered as they come
    let mut vals: Vec<(usize, i64, u32, bool)> = Vec::new();
    let mut lows: Vec<i64> = Vec::new();
    let mut num = |k: (usize, i64, u32, bool), low: i64| match vals.iter().position(|v| *v == k) {
        Some(i) => {
            lows[i] = lows[i].max(low);
            i
        }
        None => {
            vals.push(k);
            lows.push(low);
            vals.len() - 1
        }
    };
    let mut rd = Vec::new();
    for (&(stride, c), y) in read.dims.iter().zip(&read.sym) {
        rd.push((
            stride,
            match y {
                None => Count::Const(c),
                Some((sc, floor)) => {
                    let g = *global_ix.get(&sc.global)?;
                    Count::Sym { value: num((g, sc.off, sc.bytes, sc.signed), sc.low), add: sc.add, floor: *floor }
                }
            },
        ));
    }
    let mut wd = Vec::new();
    for &(stride, c, ref y) in &w.dims {
        wd.push((
            stride,
            match y {
                None => Count::Const(c),
                Some(r) => Count::Sym { value: num((r.global, r.off, r.bytes, r.signed), 0), add: r.add, floor: 0 },
            },
        ));
    }
    let bounds = dao_analysis::disjoint::apart(&Boxy { start: read.start, size: read.size, dims: rd }, &Boxy { start: w.start, size: w.size, dims: wd })?;
    let conds = bounds
        .into_iter()
        .map(|(v, max)| {
            let (global, off, bytes, signed) = vals[v];
            let min = lows[v].max(0);
            (min <= max).then_some(Cond { global, off, bytes, signed, min, max, cover: 0, add: 0, second: None })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(merge(conds))
}

/// One condition per value read (the conjunction of `conds`): the largest
/// least value, the smallest greatest; sorted. Cover conditions stay as
/// they are (without repeats): a larger `min` there is a weaker one.
pub fn merge(conds: Vec<Cond>) -> Vec<Cond> {
    let (mut covers, mut conds): (Vec<Cond>, Vec<Cond>) = conds.into_iter().partition(|c| c.cover > 0);
    conds.sort();
    let mut merged: Vec<Cond> = Vec::new();
    for c in conds {
        match merged.last_mut() {
            Some(l) if (l.global, l.off, l.bytes, l.signed) == (c.global, c.off, c.bytes, c.signed) => {
                l.min = l.min.max(c.min);
                l.max = l.max.min(c.max);
            }
            _ => merged.push(c),
        }
    }
    covers.sort();
    covers.dedup();
    merged.extend(covers);
    merged
}

/// The module's conditional kills and the facts they rest on (see the
/// module comment). Set up once by the plan; `world1` switches the
/// translation of bodies between the two worlds.
#[derive(Default)]
pub struct CondFacts {
    /// Globals a condition may read.
    eligible: OnceCell<BitSet>,
    /// Per defined function, the eligible globals it or its callees may write.
    writes: OnceCell<Vec<BitSet>>,
    /// The eligible globals other modules can name (external linkage):
    /// code this module does not see may write them ([`opaque_call`]).
    external: OnceCell<BitSet>,
    /// The declared functions this module calls that may run code it does
    /// not see (for the shim: writers of the `external` globals).
    opaque_decls: OnceCell<Vec<Value>>,
    /// Eligible globals no instruction may write once any thread may have
    /// stopped at a site ([`CondFacts::set_frozen`]).
    frozen: OnceCell<BitSet>,
    /// In world 1: conditional kills are kills, and writes of their
    /// globals use the objects they kill.
    pub world1: Cell<bool>,
    /// (loop header, killed global) -> its conditions, found while
    /// translating in world 0 (world 1 applies only these).
    kills: RefCell<HashMap<(Block, usize), Vec<Cond>>>,
    /// The keys of `kills` that are loops' kills (the others excuse reads
    /// covered by their own iteration's writes, `loop_kills.rs` `excuse`):
    /// what `-Rdao` lists as loops that write all of an object.
    loop_keys: RefCell<dao_analysis::fxhash::HashSet<(Block, usize)>>,
    /// Kills of a *part* of a global whose bytes are known only at run
    /// time ([`WBox`]): (loop header, box, conditions), found in world 0.
    /// In world 1 box `k` is object `ng + k` (a variable after the
    /// globals, `VarMap::n_globals` counts them): every read of its global
    /// reads it, the loop kills it.
    boxes: RefCell<Vec<(Block, WBox, Vec<Cond>)>>,
    /// The module's number of tracked globals (set up with the rest).
    ng: Cell<usize>,
}

/// The count of one dimension of a [`WBox`] known only at run time: at
/// least `add` plus the `bytes`-wide integer at `off` of global `global`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymRef {
    pub global: usize,
    pub off: i64,
    pub bytes: u32,
    pub signed: bool,
    pub add: i64,
}

/// A box a loop certainly writes, with counts read from globals: `size`
/// bytes at `start` of global `object` plus any combination of (stride,
/// count) steps, a dimension's count `max(0, add + value)` where it has a
/// [`SymRef`] (issue #33: NPB BT's `lhs`, whose interior `lhsx` rewrites
/// each step while its boundary planes stay live).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WBox {
    pub object: usize,
    pub start: i64,
    pub size: u64,
    pub dims: Vec<(i64, u64, Option<SymRef>)>,
}

/// The conditions under which the box of `sr`, a write section of a heap
/// object, rewrites the whole block: it covers its bytes from 0 with no
/// gap (`dao_analysis::sections::dense_prefix`), as far as a constant or,
/// with one symbolic count read from a global, `scale * V + base` bytes;
/// the block's size (the bytes the program asked for) must not exceed
/// that, the symbolic count must be at least 1 (and small enough not to
/// wrap, `Cond::at_least`), and the inner loops' guards go towards them.
pub fn heap_cover(global_ix: &HashMap<Value, usize>, sr: &crate::ir::SectionRec) -> Option<Vec<Cond>> {
    use crate::ir::SymFactor;
    use dao_analysis::sections::{dense_prefix, PCount};
    // (the symbolic dim's count N = (add + V) * F is applied below: the
    // prefix's bytes are scale * N + base)
    let dims: Vec<(i64, PCount)> = sr.dims.iter().zip(&sr.sym).map(|(&(st, c), y)| (st, if y.is_some() { PCount::Sym(0) } else { PCount::Const(c) })).collect();
    let (scale, base) = dense_prefix(sr.start, sr.size, &dims)?;
    let mut conds = Vec::new();
    match sr.sym.iter().flatten().next() {
        None => conds.push(Cond::cover(NO_VALUE, None, 0, base, 0, None)),
        Some(sc) => {
            if sc.div != 1 || sr.sym.iter().flatten().count() != 1 {
                return None;
            }
            let cg = *global_ix.get(&sc.global)?;
            // at least one iteration (the extent formula needs it; a
            // flattened nest's inner count at least 1 also makes its two
            // extensions of the row length equal, shim.cpp
            // `flattenInto`), no wrap
            let first = SymCount { mul: None, ..*sc };
            let one = Cond::at_least(cg, &first, 1)?;
            let (scale, second) = match sc.mul {
                None => (scale, None),
                Some(SymFactor::Const(k)) => (scale.checked_mul(k)?, None),
                Some(SymFactor::Value { global, off, bytes, signed, add }) => {
                    let g2 = *global_ix.get(&global)?;
                    let w = SymCount { global, off, bytes, signed, add, low: 0, high: i64::MAX, div: 1, pre: 0, mul: None };
                    let one2 = Cond::at_least(g2, &w, 1)?;
                    conds.push(one2);
                    (scale, Some((g2, off, bytes, signed, add)))
                }
            };
            // (one wrap guard for both values: the smaller one's)
            let max = conds.iter().map(|c| c.max).fold(one.max, i64::min);
            conds.push(Cond::cover(cg, Some(&first), scale, base, max, second));
            conds.push(one);
        }
    }
    for (sc, m) in &sr.reqs {
        let cg = *global_ix.get(&sc.global)?;
        conds.push(Cond::at_least(cg, &SymCount { add: 0, low: *m, ..*sc }, 0)?);
    }
    Some(merge(conds))
}

impl CondFacts {
    /// For the shim: the eligible globals, and (global, function) for each
    /// defined function that may write one (its callees' writes included).
    /// `globals` and `funcs`: the module's tracked globals and defined
    /// functions (`ModuleFacts`).
    pub fn for_shim(&self, globals: &[Value], funcs: &[Value]) -> (Vec<Value>, Vec<(Value, Value)>) {
        let (Some(el), Some(w)) = (self.eligible.get(), self.writes.get()) else { return (Vec::new(), Vec::new()) };
        let gs = el.iter().map(|g| globals[g]).collect();
        let mut pairs = Vec::new();
        for (fi, ws) in w.iter().enumerate() {
            for g in ws.iter().filter(|&g| el.contains(g)) {
                pairs.push((globals[g], funcs[fi]));
            }
        }
        if let (Some(ext), Some(decls)) = (self.external.get(), self.opaque_decls.get()) {
            for g in ext.iter() {
                pairs.extend(decls.iter().map(|d| (globals[g], *d)));
            }
        }
        (gs, pairs)
    }

    /// Record a conditional kill (world 0), or whether it was recorded
    /// (world 1: only those apply). Two records under one key (a block
    /// with several reads excused under their own conditions, `loop_kills`)
    /// keep the conjunction of both.
    pub fn kill(&self, header: Block, g: usize, conds: Vec<Cond>) -> bool {
        if self.world1.get() {
            return self.kills.borrow().contains_key(&(header, g));
        }
        let mut kills = self.kills.borrow_mut();
        let e = kills.entry((header, g)).or_default();
        e.extend(conds);
        *e = merge(std::mem::take(e));
        false
    }

    /// Record a loop's conditional kill ([`CondFacts::kill`]), and that
    /// it is one (world 0).
    pub fn loop_kill(&self, header: Block, g: usize, conds: Vec<Cond>) -> bool {
        if !self.world1.get() {
            self.loop_keys.borrow_mut().insert((header, g));
        }
        self.kill(header, g, conds)
    }

    /// The loops' conditional kills as (function, loop location, killed
    /// global, conditions), in a stable order, for `-Rdao`.
    pub fn loops(&self) -> Vec<(String, Option<String>, usize, Vec<Cond>)> {
        let keys = self.loop_keys.borrow();
        let mut v: Vec<_> = self
            .kills
            .borrow()
            .iter()
            .filter(|(k, _)| keys.contains(k))
            .map(|((h, g), cs)| {
                let f = h.parent_function().name();
                (f, h.instructions().into_iter().find_map(|i| i.debug_loc()), *g, cs.clone())
            })
            .collect();
        v.sort();
        v
    }

    pub fn any(&self) -> bool {
        !self.kills.borrow().is_empty() || !self.boxes.borrow().is_empty()
    }

    /// Record a loop's kill of box `b` under `conds` (world 0: returns
    /// None), or find it (world 1: its object index, `ng + k`, if world 0
    /// recorded it).
    pub fn box_kill(&self, header: Block, b: WBox, conds: Vec<Cond>) -> Option<usize> {
        let mut boxes = self.boxes.borrow_mut();
        let k = boxes.iter().position(|(h, x, _)| *h == header && *x == b);
        if self.world1.get() {
            return k.map(|k| self.ng.get() + k);
        }
        match k {
            Some(k) => {
                let e = &mut boxes[k].2;
                e.extend(conds);
                *e = merge(std::mem::take(e));
            }
            None => boxes.push((header, b, merge(conds))),
        }
        None
    }

    /// Put the boxes world 0 found in the module's order (function, then
    /// loop header, as `order` ranks blocks), before world 1 numbers them:
    /// the descriptor's order of boxes then does not depend on the order in
    /// which the planning translated functions.
    pub fn order_boxes(&self, order: impl Fn(Block) -> (usize, usize)) {
        self.boxes.borrow_mut().sort_by(|a, b| (order(a.0), &a.1).cmp(&(order(b.0), &b.1)));
    }

    /// The objects beyond the globals: the boxes, in world 1 only.
    pub fn n_boxes(&self) -> usize {
        if self.world1.get() {
            self.boxes.borrow().len()
        } else {
            0
        }
    }

    /// World 1: the box objects (`ng + k`) of global `g`, which every read
    /// of `g` also reads.
    pub fn boxes_of(&self, g: usize) -> Vec<usize> {
        if !self.world1.get() {
            return Vec::new();
        }
        let ng = self.ng.get();
        self.boxes.borrow().iter().enumerate().filter(|(_, (_, b, _))| b.object == g).map(|(k, _)| ng + k).collect()
    }

    /// World 1: whether a read of global `g` whose box is `read` (a
    /// load's, `crate::ir::ReadBox`) never touches box object `x` (a box of
    /// `g`) whenever the
    /// box's conditions hold: the bounds under which they are apart
    /// (`apart`) must each be implied by a condition the box already has
    /// (same value, a range inside the bound's), so the read is not a use
    /// of the box and the conditions stay as world 0 recorded them. (NPB
    /// 3.3 BT: the loop before `rhs = forcing` reads `u`, another member of
    /// `/fields/`; as a use of `rhs`'s box it kept `rhs` live. A read whose
    /// bounds would tighten the conditions stays a use.)
    pub fn read_apart(&self, x: usize, g: usize, read: &crate::ir::ReadBox, global_ix: &HashMap<Value, usize>) -> bool {
        let Some(k) = x.checked_sub(self.ng.get()) else { return false };
        if !self.world1.get() {
            return false;
        }
        let boxes = self.boxes.borrow();
        let Some((_, b, conds)) = boxes.get(k).filter(|(_, b, _)| b.object == g) else { return false };
        let Some(more) = apart(read, b, global_ix) else { return false };
        // (a value read signed by one and unsigned by the other is the
        // same number while both ranges lie in [0, 2^(8*bytes-1)))
        let plain = |x: &Cond| x.min >= 0 && x.bytes >= 1 && x.bytes <= 8 && (x.bytes == 8 || x.max < 1i64 << (8 * x.bytes - 1));
        more.iter().all(|m| conds.iter().any(|c| (c.global, c.off, c.bytes) == (m.global, m.off, m.bytes) && (c.signed == m.signed || (plain(c) && plain(m))) && m.min <= c.min && c.max <= m.max))
    }

    /// The boxes as (function, loop location, box, conditions), by index,
    /// for `-Rdao`.
    pub fn box_loops(&self) -> Vec<(String, Option<String>, WBox, Vec<Cond>)> {
        self.boxes.borrow().iter().map(|(h, b, c)| (h.parent_function().name(), h.instructions().into_iter().find_map(|i| i.debug_loc()), b.clone(), c.clone())).collect()
    }

    /// The boxes and their conditions (for the descriptor), by index.
    pub fn boxes(&self) -> Vec<(WBox, Vec<Cond>)> {
        self.boxes.borrow().iter().map(|(_, b, c)| (b.clone(), c.clone())).collect()
    }

    /// Per killed global, the conjunction of the conditions of all its
    /// conditional kills (sorted, without repeats).
    pub fn of_object(&self) -> HashMap<usize, Vec<Cond>> {
        let mut out: HashMap<usize, Vec<Cond>> = HashMap::default();
        for ((_, g), cs) in self.kills.borrow().iter() {
            out.entry(*g).or_default().extend(cs.iter().cloned());
        }
        for v in out.values_mut() {
            *v = merge(std::mem::take(v));
        }
        out
    }

    /// World 1: the objects (global indices) a write of global `w` uses.
    fn killed_under(&self, w: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self.kills.borrow().iter().filter(|(_, cs)| cs.iter().any(|c| c.global == w)).map(|((_, g), _)| *g).collect();
        let ng = self.ng.get();
        v.extend(self.boxes.borrow().iter().enumerate().filter(|(_, (_, _, cs))| cs.iter().any(|c| c.global == w)).map(|(k, _)| ng + k));
        v.sort();
        v.dedup();
        v
    }

    /// World 1: the uses statement `inst` adds, as global indices: the
    /// objects killed under a condition on a global it may write.
    /// `func_ix`: the defined functions' indices; `globals_at(p)`: the
    /// globals pointer `p` of `inst`'s function may point into.
    pub fn fake_uses(&self, inst: Value, func_ix: &HashMap<Value, usize>, globals_at: impl Fn(Value) -> Vec<usize>) -> Vec<usize> {
        if !self.world1.get() {
            return Vec::new();
        }
        let (Some(el), Some(w)) = (self.eligible.get(), self.writes.get()) else { return Vec::new() };
        let mut written = Vec::new();
        for g in direct_writes(inst, &globals_at, self.external.get(), func_ix) {
            if el.contains(g) {
                written.push(g);
            }
        }
        if let Some(callee) = callee_of(func_ix, inst) {
            written.extend(w[callee].iter());
        }
        let mut out = Vec::new();
        for g in written {
            out.extend(self.killed_under(g));
        }
        out
    }
}

/// The defined function a call runs: its direct callee or a fork's
/// outlined function.
fn callee_of(func_ix: &HashMap<Value, usize>, inst: Value) -> Option<usize> {
    if !inst.is_call() {
        return None;
    }
    if let Some(Role::Fork { microtask } | Role::Teams { microtask }) = known::call_role(inst) {
        return func_ix.get(&inst.operand(microtask)).copied();
    }
    inst.called_function().and_then(|f| func_ix.get(&f).copied())
}

/// Whether call `inst` may run code this module does not see: an indirect
/// call, or a call of a function not defined here (`defined`) that is
/// neither a known library function (`known::effect`: math, I/O through
/// its arguments, allocation, ...) nor an OpenMP runtime entry (a fork
/// runs its outlined function, which is defined here). Such code may write
/// any global another module can name.
fn opaque_call(inst: Value, defined: &HashMap<Value, usize>) -> bool {
    if !inst.is_call() || known::call_intrinsic(inst).is_some() {
        return false;
    }
    let Some(c) = inst.called_function() else { return true };
    if defined.contains_key(&c) || known::role(c).is_some() {
        return false;
    }
    !matches!(
        known::effect(c),
        Some(known::Effect::NoMem | known::Effect::ReadsArgs | known::Effect::Alloc { .. } | known::Effect::Marker(_) | known::Effect::ForkCall | known::Effect::Env | known::Effect::Intrinsic)
    )
}

/// Globals an instruction writes through a pointer it names (a store, an
/// atomic, a memset/memcpy destination, a lifetime marker, any pointer
/// argument of a known external function that may write through its
/// arguments: `fscanf`), and the eligible globals of external linkage
/// (`external`) when it is a call that may run code this module does not
/// see ([`opaque_call`]; `defined`: the defined functions' indices);
/// `globals_at` as in [`CondFacts::fake_uses`].
fn direct_writes(inst: Value, globals_at: &impl Fn(Value) -> Vec<usize>, external: Option<&BitSet>, defined: &HashMap<Value, usize>) -> Vec<usize> {
    if let Some(ext) = external.filter(|e| !e.is_empty()) {
        if opaque_call(inst, defined) {
            return ext.iter().collect();
        }
    }
    if inst.is_call() && known::call_intrinsic(inst).is_none() && inst.called_function().and_then(known::effect) == Some(known::Effect::ReadsArgs) {
        return inst.args().into_iter().filter(|a| a.ty().is_pointer()).flat_map(globals_at).collect();
    }
    let ptr = match inst.opcode() {
        Opcode::LLVMStore => Some(inst.operand(1)),
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => Some(inst.operand(0)),
        Opcode::LLVMCall => match known::call_intrinsic(inst) {
            Some(Intr::Copy { dest, .. } | Intr::Set { dest, .. }) => Some(inst.operand(dest)),
            Some(Intr::Lifetime) => Some(inst.operand(1)),
            _ => None,
        },
        _ => None,
    };
    let Some(p) = ptr else { return Vec::new() };
    globals_at(p)
}

/// Whether function `f` is only called directly or run by a fork (never
/// handed to code that might call it back), and only from this module
/// (internal linkage; `main` runs once, before any checkpoint).
fn only_called(f: Value) -> bool {
    // flang's main program `_QQmain` is called once, by the Fortran
    // runtime's `main`, as `main` is by the C runtime
    (f.is_local_linkage() || f.name() == known::names::MAIN || f.name() == "_QQmain")
        && f.users().into_iter().all(|u| {
        u.is_instruction()
            && u.is_call()
            && (u.called_value() == f || matches!(known::call_role(u), Some(Role::Fork { microtask }) if u.operand(microtask) == f && u.called_value() != f))
    })
}

impl CondFacts {
    /// Decide the eligible globals and who writes them (before any loop facts
    /// are asked for: the shim needs the stable globals of each function).
    /// `globals`, `declared`, `funcs`: the module's tracked globals, whether
    /// each is only declared here, its defined functions (`ModuleFacts`);
    /// `globals_at(fi, p)`: the globals pointer `p` of function `fi` may point
    /// into.
    /// Objects from `heap_from` on are heap objects (`heap.rs`), never a
    /// condition's value.
    #[allow(clippy::too_many_arguments)]
    pub fn setup(&self, globals: &[Value], declared: &[bool], heap_from: usize, funcs: &[Value], graph: &CallGraph, globals_at: impl Fn(usize, Value) -> Vec<usize>) {
        let ng = globals.len();
        self.ng.set(ng);
        let mut el = BitSet::new_empty(ng);
        // (issue #33: NPB FT's `int fftblock;` in a header, the stride of
        // its tiled loops; other modules reach such a global only while
        // code this module does not see runs, so every call that may run
        // such code writes it)
        let mut ext = BitSet::new_empty(ng);
        for g in 0..heap_from.min(ng) {
            let v = globals[g];
            if !declared[g] && !v.is_thread_local() && only_accessed(v, true) {
                el.insert(g);
                if !v.is_local_linkage() {
                    ext.insert(g);
                }
            } else if crate::config::debug_loops() && !declared[g] && !v.is_thread_local() {
                eprintln!("dao-debug: global '{}' not eligible: {}", v.name(), crate::provenance::first_other_use(v).map_or("?".to_string(), |u| format!("{:?} at {:?} in '{}'", u.opcode(), u.debug_loc(), u.parent_block().parent_function().name())));
            }
        }
        let defined: HashMap<Value, usize> = funcs.iter().enumerate().map(|(k, f)| (*f, k)).collect();
        let mut decls: Vec<Value> = Vec::new();
        for f in funcs {
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some(c) = opaque_call(i, &defined).then(|| i.called_function()).flatten() {
                        if !decls.contains(&c) {
                            decls.push(c);
                        }
                    }
                }
            }
        }
        let locals: Vec<BitSet> = funcs
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                let mut s = BitSet::new_empty(ng);
                for b in f.blocks() {
                    for i in b.instructions() {
                        for g in direct_writes(i, &|p| globals_at(fi, p), Some(&ext), &defined) {
                            if el.contains(g) {
                                s.insert(g);
                            }
                        }
                    }
                }
                s
            })
            .collect();
        let writes = graph.summarize(locals, |a, b| a.union_with(b));
        // a writer that might be called back by unknown code: not eligible
        for (fi, w) in writes.iter().enumerate() {
            if !w.is_empty() && !only_called(funcs[fi]) {
                if crate::config::debug_loops() {
                    eprintln!("dao-debug: globals {:?} not eligible: written by '{}', which other code may call", w.iter().filter(|&g| el.contains(g)).map(|g| globals[g].name()).collect::<Vec<_>>(), funcs[fi].name());
                }
                el.subtract(w);
            }
        }
        let mut gone = ext.clone();
        gone.subtract(&el);
        ext.subtract(&gone);
        let _ = self.eligible.set(el);
        let _ = self.writes.set(writes);
        let _ = self.external.set(ext);
        let _ = self.opaque_decls.set(decls);
    }
}

impl CondFacts {
    /// Whether eligible global `g` is frozen: no instruction writes it once
    /// any thread may have stopped at a site, so its value at a checkpoint
    /// is the value every later read sees (issue #33: the bounds of reads
    /// `for (i = 0; i < grid_points[0]; i++)`, which then never touch the
    /// padding beyond them).
    pub fn frozen(&self, g: usize) -> bool {
        self.frozen.get().is_some_and(|f| f.contains(g))
    }

    /// Decide the frozen globals (after [`CondFacts::setup`]). A thread can
    /// stop (at a checkpoint, or waiting for one) only inside a function on
    /// a marker path (`on_path`), at a call: a marker, a call of a defined
    /// function on a path, a fork, unknown or indirect code, any runtime
    /// entry with an OpenMP role (barriers, worksharing, single, ...). Every
    /// other call -- an intrinsic, a known library function without a role
    /// that reads no memory, reads or writes only through its arguments, or
    /// allocates, a defined function off the paths -- cannot.
    /// An eligible global is frozen when, in every function on a path, no
    /// instruction that may write it (a store naming it, `fscanf` into it,
    /// a call of a function that may write it) is such a stop point or
    /// comes after one in the function's control flow. Its writers are
    /// only called directly from this module (eligibility), so every write
    /// after a stop point lies in some function on a path: in the stopped
    /// function, or in a caller continuing after the call that led there.
    pub fn set_frozen(&self, funcs: &[Value], func_ix: &HashMap<Value, usize>, on_path: &[bool], globals_at: impl Fn(usize, Value) -> Vec<usize>) {
        let (Some(el), Some(w)) = (self.eligible.get(), self.writes.get()) else { return };
        let mut frozen = el.clone();
        for (fi, f) in funcs.iter().enumerate() {
            if !on_path[fi] || w[fi].iter().all(|g| !frozen.contains(g)) {
                continue;
            }
            let stop = |i: Value| -> bool {
                if !i.is_call() || known::call_intrinsic(i).is_some() {
                    return false;
                }
                match i.called_function() {
                    Some(c) => match func_ix.get(&c) {
                        Some(&ci) => on_path[ci],
                        // a runtime entry with a role (a barrier, a
                        // worksharing init or fini, a single...) may be a
                        // sync site where a thread waits for a checkpoint,
                        // whatever its memory effect; not the lookup of a
                        // thread's threadprivate copy (flang's
                        // `__kmpc_threadprivate_cached`, routed to the
                        // runtime's `omp::tp::cached`, which never waits:
                        // NPB 3.3's /work_1d/ at the top of every program
                        // unit) nor the thread count of the next fork
                        None => match known::role(c) {
                            Some(Role::ThreadprivateCached { .. } | Role::ForkPush) => false,
                            Some(_) => true,
                            // (hidden runtime state: the Fortran runtime's
                            // start, OpenMP settings; never program code)
                            None => !matches!(known::effect(c), Some(known::Effect::NoMem | known::Effect::ReadsArgs | known::Effect::Alloc { .. } | known::Effect::Env)),
                        },
                    },
                    None => true,
                }
            };
            let writes_of = |i: Value| -> Vec<usize> {
                let mut v = direct_writes(i, &|p| globals_at(fi, p), self.external.get(), func_ix);
                if let Some(c) = callee_of(func_ix, i) {
                    v.extend(w[c].iter());
                }
                v
            };
            // instructions at or after a stop point: the rest of its block
            // and every block reachable from there
            let blocks = f.blocks();
            let bix: HashMap<Block, usize> = blocks.iter().enumerate().map(|(k, b)| (*b, k)).collect();
            let mut after = vec![false; blocks.len()];
            let mut work = Vec::new();
            for b in &blocks {
                let mut stopped = false;
                for i in b.instructions() {
                    // the first stop point of the block: what its callee
                    // writes before a thread can stop in it comes before
                    // any checkpoint taken there, and what it writes after
                    // one is the callee's own check (it is on a path); so
                    // only its own writes count here (a call's writes after
                    // an earlier stop count whole: below, and the blocks
                    // reachable from a stop, this one's loop included)
                    let first = !stopped && stop(i);
                    if first && crate::config::debug_loops() {
                        eprintln!("dao-debug: stop point in '{}' at {:?}: call of '{}'", f.name(), i.debug_loc(), i.called_function().map(|c| c.name()).unwrap_or_default());
                    }
                    stopped = stopped || first;
                    if stopped {
                        let ws = if first { direct_writes(i, &|p| globals_at(fi, p), self.external.get(), func_ix) } else { writes_of(i) };
                        for g in ws {
                            if crate::config::debug_loops() && frozen.contains(g) {
                                eprintln!("dao-debug: global {g} not frozen: written in '{}' at {:?} after a stop point", f.name(), i.debug_loc());
                            }
                            frozen.remove(g);
                        }
                    }
                }
                if stopped {
                    work.extend(b.successors().into_iter().filter_map(|s| bix.get(&s).copied()));
                }
            }
            while let Some(k) = work.pop() {
                if std::mem::replace(&mut after[k], true) {
                    continue;
                }
                for i in blocks[k].instructions() {
                    for g in writes_of(i) {
                        if crate::config::debug_loops() && frozen.contains(g) {
                            eprintln!("dao-debug: global {g} not frozen: written in '{}' at {:?} after a stop point", f.name(), i.debug_loc());
                        }
                        frozen.remove(g);
                    }
                }
                work.extend(blocks[k].successors().into_iter().filter_map(|s| bix.get(&s).copied()));
            }
        }
        let _ = self.frozen.set(frozen);
    }
}
