//! The LLVM front: translates IR into the pure analyses' terms.
//!
//! Variables of a function's [`Body`]: its SSA instruction values (slot
//! candidates), its static stack objects, the module's tracked globals, and
//! one pseudo-variable `UNKNOWN` ("memory the pass cannot name").
//!
//! Memory model (sound, deliberately simple):
//! - A pointer's *bases* are the objects it may point into, found by walking
//!   GEPs, casts, selects and phis back to allocas and globals. A pointer
//!   loaded from a non-escaping local slot that only ever holds known
//!   pointers has those bases (store-to-load forwarding, which makes -O0
//!   code as precise as -O2). Anything else (other loads, call results,
//!   inttoptr) is *unknown*; function parameters are *param*.
//! - A read through known bases uses those objects; through an unknown
//!   pointer it uses every escaped stack object and `UNKNOWN` (the runtime
//!   then saves every escaped global; the heap is found by reachability at
//!   run time). A read through a parameter is the caller's business: the
//!   caller's call site uses every object it passes.
//! - A store (or memset/memcpy) that certainly overwrites a whole object
//!   kills it; so does a loop whose must-write sections (ScalarEvolution
//!   facts from the shim, `dao_analysis::sections`) cover every byte of it
//!   that may be read, at its entry edge ([`add_loop_kills`]). Partial
//!   writes neither use nor kill.
//! - Calls use what their callee may read before writing it whole, and kill
//!   what it writes whole before reading (the interprocedural summary of a
//!   defined callee, `plan::refine_summaries`), the table entry of a known
//!   external one (`known.rs`), and everything escaped for unknown and
//!   indirect callees.
use crate::ir::{Module, Opcode, Value};
use crate::known::{self, Effect, Intr, Role};
use dao_analysis::{BitSet, Body, Stmt};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Obj {
    Alloca(usize),
    Global(usize),
}

#[derive(Clone, Debug, Default)]
pub struct Bases {
    pub objs: Vec<Obj>,
    pub unknown: bool,
    pub param: bool,
    /// Points into a block from an allocation function: the heap, which
    /// the runtime finds by reachability, so no stack object or global.
    pub heap: bool,
}

impl Bases {
    fn join(&mut self, o: &Bases) {
        for x in &o.objs {
            if !self.objs.contains(x) {
                self.objs.push(*x);
            }
        }
        self.unknown |= o.unknown;
        self.param |= o.param;
        self.heap |= o.heap;
    }
    fn unknown() -> Self {
        Bases { unknown: true, ..Default::default() }
    }
}

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
    pub global_readable: std::cell::OnceCell<Vec<Option<dao_analysis::intervals::Intervals>>>,
    /// Runtime-checked conditions: their globals and conditional kills
    /// (`cond.rs`).
    pub cond: crate::cond::CondFacts,
}

/// Interprocedural summary of a defined function: the globals a call may
/// read before writing them whole (at first every global it may read at
/// all, `plan::refine_summaries` narrows it), whether it reads unknown
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
    pub fn join(&mut self, o: &Summary) -> bool {
        let mut c = self.globals.union_with(&o.globals);
        if o.reads_unknown && !self.reads_unknown {
            self.reads_unknown = true;
            c = true;
        }
        c
    }
}

/// Whether `f`'s address is used other than as the callee of a call, or as
/// the outlined function handed to an OpenMP runtime entry point
/// (`__kmpc_fork_call`, `__kmpc_omp_task_alloc`, ...): such a region runs
/// only where the module's own code starts it.
pub fn address_taken(f: Value) -> bool {
    f.users().into_iter().any(|u| {
        if !u.is_instruction() || !u.is_call() {
            return true;
        }
        if u.called_value() == f {
            return false;
        }
        let callee = u.called_function().map(|c| c.name()).unwrap_or_default();
        !(callee.starts_with("__kmpc_") || callee.starts_with("__tgt_"))
    })
}

/// The tracked globals (indices) that the module's address-taken functions
/// and the defined functions they call directly name in their
/// instructions (loaded, stored, or passed on).
fn callback_globals(mf: &ModuleFacts) -> Vec<usize> {
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
    pub fn has_defined_globals(&self) -> bool {
        self.global_declared.iter().any(|d| !d)
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
        let global_ix = globals.iter().enumerate().map(|(i, g)| (*g, i)).collect();
        let funcs: Vec<Value> = m.functions().into_iter().filter(|f| !f.is_declaration()).collect();
        let func_ix = funcs.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let mut mf = ModuleFacts { m, global_escaped: vec![false; globals.len()], globals, global_ix, global_size, global_declared, funcs, func_ix, global_readable: Default::default(), cond: Default::default() };
        // Externally visible globals may be read by name from other
        // translation units, i.e. by unknown code: they count as escaped
        // when the module calls any unknown code.
        let calls_unknown = mf.funcs.iter().any(|f| {
            f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| {
                i.is_call() && matches!(call_kind(&mf, i), CallKind::Unknown | CallKind::Indirect)
            })
        });
        for i in 0..mf.globals.len() {
            let g = mf.globals[i];
            mf.global_escaped[i] = !mf.global_declared[i] && ((calls_unknown && !g.is_local_linkage()) || escapes(g));
        }
        // Globals a callback may touch (issue #31): a function whose address
        // is taken -- qsort's comparator, a handler in a table -- runs when
        // unknown or indirect code calls it, and what it (or a function it
        // calls directly) reads is then read at that unknown or indirect
        // call. They count as escaped, so those calls use them; a static
        // read only by qsort's comparator was dead at the marker before.
        for g in callback_globals(&mf) {
            if !mf.global_declared[g] {
                mf.global_escaped[g] = true;
            }
        }
        mf
    }
}

impl ModuleFacts {
    /// The bytes of each global that any code may read, from every load of
    /// every function (`reads`, the shim's ranges). A global is readable
    /// anywhere (`None`) unless it is defined here with internal linkage
    /// (no other module names it) and its address only reaches loads,
    /// stores, memset/memcpy/memmove and lifetime markers through address
    /// arithmetic ([`only_loaded_and_stored`]): then every read of it is one
    /// of `reads` (the shim reports each by its underlying object).
    pub fn set_readable(&self, reads: &[(Value, Option<(i64, u64, Vec<(i64, u64)>)>)]) {
        use dao_analysis::sections::Section;
        let mut acc: Vec<Option<Vec<Section>>> = (0..self.globals.len())
            .map(|g| {
                let v = self.globals[g];
                (!self.global_declared[g] && v.is_local_linkage() && only_loaded_and_stored(v)).then(Vec::new)
            })
            .collect();
        for (g, r) in reads {
            let Some(&gi) = self.global_ix.get(g) else { continue };
            match (r, &mut acc[gi]) {
                (Some((start, size, dims)), Some(list)) => list.push(Section { start: *start, size: *size, dims: dims.clone() }),
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
                    a.map(|boxes| {
                        let size = self.global_size[g] as i64;
                        let m = dao_analysis::sections::may_cover(&boxes);
                        dao_analysis::intervals::Intervals::from_unsorted(m.0.into_iter().map(|(lo, hi)| (lo.max(0), hi.min(size))).collect())
                    })
                })
                .collect(),
        );
    }

    /// The bytes of global `g` that may be read (`None`: any).
    pub fn readable(&self, g: usize) -> Option<&dao_analysis::intervals::Intervals> {
        self.global_readable.get().and_then(|r| r[g].as_ref())
    }
}

/// Whether every use of address `p` (through GEPs and casts, instructions
/// or constant expressions) is a load from it, a store to it, a memory
/// intrinsic's destination or source, or a lifetime marker: no merge
/// (phi, select), no call, no escape. Then every read of the object is a
/// load or a memory transfer whose underlying object it is.
pub fn only_loaded_and_stored(p: Value) -> bool {
    let mut work = vec![p];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            if u.is_const_expr() {
                match u.const_opcode() {
                    Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => work.push(u),
                    _ => return false,
                }
                continue;
            }
            if !u.is_instruction() {
                return false;
            }
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore if u.operand(0) != v => {}
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => work.push(u),
                Opcode::LLVMCall => match known::call_intrinsic(u) {
                    Some(Intr::Copy { .. } | Intr::Set { .. } | Intr::Lifetime) if u.called_value() != v => {}
                    _ => return false,
                },
                _ => return false,
            }
        }
    }
    true
}

/// The cache globals of flang's threadprivate variables (the `cache`
/// operand of `__kmpc_threadprivate_cached`, `<var>.cache`): the runtime's
/// per-variable table of the threads' copies, rebuilt by every run, so
/// never saved or restored.
fn threadprivate_caches(m: Module) -> HashSet<Value> {
    let mut out = HashSet::new();
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

/// Does the address `p` escape (stored, passed to a capturing call,
/// converted to an integer, returned)?
pub fn escapes(p: Value) -> bool {
    let mut seen = HashSet::new();
    escapes_rec(p, &mut seen)
}

fn escapes_rec(p: Value, seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(p) {
        return false;
    }
    for u in p.users() {
        if u.is_instruction() {
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore => {
                    if u.operand(0) == p {
                        return true;
                    }
                }
                Opcode::LLVMGetElementPtr
                | Opcode::LLVMBitCast
                | Opcode::LLVMAddrSpaceCast
                | Opcode::LLVMSelect
                | Opcode::LLVMPHI => {
                    if escapes_rec(u, seen) {
                        return true;
                    }
                }
                Opcode::LLVMICmp => {}
                Opcode::LLVMCall => {
                    if u.called_value() == p {
                        continue;
                    }
                    // known functions and intrinsics do not keep pointers
                    let harmless = matches!(
                        u.called_function().and_then(known::effect),
                        Some(Effect::NoMem | Effect::ReadsArgs | Effect::Alloc { .. } | Effect::Env | Effect::Intrinsic)
                    );
                    if harmless {
                        continue;
                    }
                    let args = u.args();
                    for (i, a) in args.iter().enumerate() {
                        if *a == p && !u.arg_nocapture(i as u32) {
                            return true;
                        }
                    }
                }
                _ => return true,
            }
        } else if u.is_const_expr() {
            if escapes_rec(u, seen) {
                return true;
            }
        } else {
            // referenced from a global initializer or other constant
            return true;
        }
    }
    false
}

/// The pointer-provenance step shared by the two walkers below: the values
/// a pointer `v` is computed from by address arithmetic (a GEP or a cast,
/// instruction or constant expression: its operand 0) or by a merge (an
/// instruction `select`: both choices; a `phi`: every incoming value).
/// `None`: `v` is where a walk stops (an object, an argument, a load, a
/// call, a constant, ...).
///
/// Two questions walk these steps, and their answers at the leaves differ
/// on purpose, so they stay two functions:
/// - [`FuncFacts::bases`] (liveness): *which objects may `v` point into?*
///   A may-set, memoised per function, that also looks through loads from
///   non-escaping local slots and knows parameters and heap results.
/// - [`points_to_private`] (guards, after instrumentation): *does `v`
///   certainly point to memory no other thread uses?* A must-answer with
///   no per-function facts: any load or unknown leaf means "shared".
///   Answering it from `bases` would change the guards (a pointer loaded
///   from a local slot would become private, a foreign thread-local
///   unknown).
/// Whether every value `f` returns is derived (address arithmetic, phis,
/// selects) from its arguments alone: NPB FT's `fft_lines` returns the one
/// of its two buffers that holds the result.
fn returns_an_argument(f: Value) -> bool {
    let mut rets = Vec::new();
    for b in f.blocks() {
        if let Some(t) = b.terminator().filter(|t| t.opcode() == Opcode::LLVMRet) {
            if t.num_operands() != 1 {
                return false;
            }
            rets.push(t.operand(0));
        }
    }
    let mut seen = HashSet::new();
    while let Some(v) = rets.pop() {
        if !seen.insert(v) {
            continue;
        }
        if v.is_argument() {
            continue;
        }
        match derived_from(v) {
            Some(srcs) if v.is_instruction() => rets.extend(srcs),
            _ => return false,
        }
    }
    !seen.is_empty()
}

pub fn derived_from(v: Value) -> Option<Vec<Value>> {
    if v.is_const_expr() {
        return match v.const_opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => Some(vec![v.operand(0)]),
            _ => None,
        };
    }
    if !v.is_instruction() {
        return None;
    }
    match v.opcode() {
        Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => Some(vec![v.operand(0)]),
        Opcode::LLVMSelect => Some(vec![v.operand(1), v.operand(2)]),
        Opcode::LLVMPHI => Some((0..v.incoming_count()).map(|i| v.operand(i)).collect()),
        _ => None,
    }
}

/// Whether `p` provably points to memory no other thread writes or reads
/// through the program's shared data: this function's stack objects,
/// thread-local globals, constant globals (see [`derived_from`] for why
/// this is not [`FuncFacts::bases`]). Gives up (shared) after 8 steps.
pub fn points_to_private(p: Value) -> bool {
    private_rec(p, 0)
}

fn private_rec(p: Value, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    if p.is_alloca() {
        return true;
    }
    if p.is_global_var() {
        return p.is_thread_local() || p.is_global_constant();
    }
    if let Some(srcs) = derived_from(p) {
        return if p.is_instruction() && p.opcode() == Opcode::LLVMPHI {
            // a loop's phi may name itself
            !srcs.is_empty() && srcs.iter().all(|o| *o == p || private_rec(*o, depth + 1))
        } else {
            srcs.iter().all(|o| private_rec(*o, depth + 1))
        };
    }
    p.is_instruction() && matches!(known::call_intrinsic(p), Some(Intr::ThreadlocalAddress { .. }))
}

/// Per-function facts: stack objects and pointer bases.
pub struct FuncFacts<'a> {
    pub mf: &'a ModuleFacts,
    pub f: Value,
    pub allocas: Vec<Value>,
    pub alloca_ix: HashMap<Value, usize>,
    pub alloca_size: Vec<u64>,
    pub alloca_escaped: Vec<bool>,
    /// Allocas that are not static (not in the entry block, or of
    /// variable size): a marker path through them is rejected.
    pub dynamic_allocas: Vec<Value>,
    memo: std::cell::RefCell<HashMap<Value, Bases>>,
    /// The loops' must-write sections (ScalarEvolution, team view), asked
    /// for once, when the function is first translated.
    loops: std::cell::OnceCell<crate::ir::LoopFacts>,
    /// The function analysed for one call site: its pointer arguments that
    /// are known globals there ([`Bind`], checked: slot bindings only for
    /// an argument whose block the function only loads), by (argument,
    /// slot offset or -1).
    bind: HashMap<(Value, i64), usize>,
    pub bind_list: Vec<Bind>,
    /// Calls of this function whose callee is analysed with the globals
    /// their arguments are ([`Spec`], `plan::Specs`); set before it is
    /// translated.
    pub spec: std::cell::RefCell<HashMap<Value, Spec>>,
}

/// A pointer argument that is a known global at one call site: (argument
/// index, slot, global). With slot -1 the argument is the global's address
/// (a call `f(u1)`); with slot k >= 0 the argument points to a block of
/// the caller's stack that holds the global's address at byte offset k for
/// the whole call, and the callee only loads it (a parallel region's
/// by-reference capture of a pointer: the outlined function of `#pragma
/// omp parallel` in `fft(x)` gets `&x`; flang passes a struct of the
/// captured addresses).
pub type Bind = (u32, i64, usize);

/// The "global" of a slot binding whose slot holds addresses of the
/// caller's stack objects, or of what the caller's parameters point to:
/// in the callee a load of it gives a pointer like a parameter (the call
/// site uses what it points to: `Spec::extra_uses`).
pub const LOCAL: usize = usize::MAX;

/// A call's callee summary specialised to the globals the call passes, and
/// the call's argument positions whose reads through the argument the
/// summary already counts (as reads of those globals).
#[derive(Clone)]
pub struct Spec {
    pub sum: std::rc::Rc<Summary>,
    pub covered_args: Vec<usize>,
    /// Pointers stored in [`LOCAL`] slots: the call reads what they point
    /// to.
    pub extra_uses: Vec<Value>,
}

impl<'a> FuncFacts<'a> {
    pub fn new(mf: &'a ModuleFacts, f: Value) -> Self {
        Self::bound(mf, f, &[])
    }

    /// The facts of `f` at a call site whose pointer arguments `bind` are
    /// known globals. The slot bindings of an argument hold only while the
    /// function only loads pointers from its block ([`FuncFacts::slots_read_only`]),
    /// else they are dropped.
    pub fn bound(mf: &'a ModuleFacts, f: Value, bind: &[Bind]) -> Self {
        let params = f.params();
        let mut ff = Self::unbound(mf, f);
        for &(i, slot, g) in bind {
            let Some(&a) = params.get(i as usize) else { continue };
            if !a.ty().is_pointer() || (slot >= 0 && !ff.slots_read_only(a)) {
                continue;
            }
            ff.bind.insert((a, slot), g);
            ff.bind_list.push((i, slot, g));
        }
        ff
    }

    /// Whether argument `a` points to a block this function only reads
    /// pointers from: its users are loads of pointers at constant offsets
    /// (through constant GEPs that are only loaded), or (-O0) one store of
    /// `a` into a local slot that is only loaded, whose loads are only
    /// loaded from.
    fn slots_read_only(&self, a: Value) -> bool {
        fn loads_only(v: Value, depth: u32) -> bool {
            v.users().iter().all(|u| {
                u.is_instruction()
                    && match u.opcode() {
                        Opcode::LLVMLoad => u.ty().is_pointer(),
                        Opcode::LLVMGetElementPtr if depth < 4 => u.operand(0) == v && u.strip_offset().is_some_and(|(b, _)| b == v || b.is_argument()) && loads_only(*u, depth + 1),
                        _ => false,
                    }
            })
        }
        a.users().iter().all(|u| {
            if !u.is_instruction() {
                return false;
            }
            match u.opcode() {
                Opcode::LLVMStore if u.operand(0) == a => {
                    let local = u.operand(1);
                    self.alloca_ix.get(&local).is_some_and(|&ix| !self.alloca_escaped[ix])
                        && local.users().iter().all(|w| {
                            w.is_instruction()
                                && match w.opcode() {
                                    Opcode::LLVMLoad => loads_only(*w, 0),
                                    Opcode::LLVMStore => w.operand(1) == local && w.operand(0) == a,
                                    Opcode::LLVMCall => known::call_intrinsic(*w) == Some(Intr::Lifetime),
                                    _ => false,
                                }
                        })
                }
                _ => loads_only(a, 0),
            }
        })
    }

    fn unbound(mf: &'a ModuleFacts, f: Value) -> Self {
        let m = mf.m;
        let entry = f.entry_block();
        let mut allocas = Vec::new();
        let mut alloca_size = Vec::new();
        let mut dynamic_allocas = Vec::new();
        // A fixed-size alloca outside the entry block is still static when
        // its block runs at most once per call (not on a cycle): flang's
        // OpenMP outlining puts the allocas of a region in a block after the
        // entry. The instrumentation moves them to the entry block.
        let on_cycle = |b: crate::ir::Block| {
            let mut seen = std::collections::HashSet::new();
            let mut work = b.successors();
            while let Some(x) = work.pop() {
                if x == b {
                    return true;
                }
                if seen.insert(x) {
                    work.extend(x.successors());
                }
            }
            false
        };
        for b in f.blocks() {
            let mut cyc: Option<bool> = None;
            for i in b.instructions() {
                if !i.is_alloca() {
                    continue;
                }
                let count = i.operand(0).const_int_value();
                let ty = i.allocated_type();
                let movable = b == entry || !*cyc.get_or_insert_with(|| on_cycle(b));
                if !movable || count.is_none() || !m.is_sized(ty) {
                    dynamic_allocas.push(i);
                    continue;
                }
                allocas.push(i);
                alloca_size.push(m.alloc_size(ty) * count.unwrap());
            }
        }
        let alloca_ix = allocas.iter().enumerate().map(|(i, a)| (*a, i)).collect();
        let alloca_escaped = allocas.iter().map(|a| escapes(*a)).collect();
        FuncFacts {
            mf,
            f,
            allocas,
            alloca_ix,
            alloca_size,
            alloca_escaped,
            dynamic_allocas,
            memo: Default::default(),
            loops: Default::default(),
            bind: HashMap::new(),
            bind_list: Vec::new(),
            spec: Default::default(),
        }
    }

    /// The global a pointer argument is bound to at this call site (`Some`
    /// only for an argument that is the global's address), or the global a
    /// load of a bound slot yields.
    fn bound_global(&self, v: Value) -> Option<usize> {
        if self.bind.is_empty() {
            return None;
        }
        if v.is_argument() {
            return self.bind.get(&(v, -1)).copied();
        }
        if !(v.is_instruction() && v.opcode() == Opcode::LLVMLoad) {
            return None;
        }
        let (p, off) = v.operand(0).strip_offset()?;
        if p.is_argument() {
            return self.bind.get(&(p, off)).copied();
        }
        // -O0: the block's address went through a local slot of its own
        // (`store %in, %in.addr`; `%0 = load %in.addr`; `load %0`)
        if p.is_instruction() && p.opcode() == Opcode::LLVMLoad {
            let local = p.operand(0);
            if self.alloca_ix.get(&local).is_some_and(|&ix| !self.alloca_escaped[ix]) {
                let mut g = None;
                for u in local.users() {
                    if u.is_instruction() && u.opcode() == Opcode::LLVMStore && u.operand(1) == local {
                        match self.bind.get(&(u.operand(0), off)) {
                            Some(&x) if g.is_none() || g == Some(x) => g = Some(x),
                            _ => return None,
                        }
                    }
                }
                return g;
            }
        }
        None
    }

    /// The object a pointer loaded from a non-escaping local slot certainly
    /// designates from its first byte: the one every store into the slot
    /// stores (-O0 keeps pointer arguments in such slots).
    fn forwarded_exact(&self, v: Value, depth: u32) -> Option<Obj> {
        // slots copied into each other (`p = q; q = p;`) end the chain
        if depth > 4 {
            return None;
        }
        if !(v.is_instruction() && v.opcode() == Opcode::LLVMLoad) {
            return None;
        }
        let slot = v.operand(0);
        let &ix = self.alloca_ix.get(&slot)?;
        if self.alloca_escaped[ix] {
            return None;
        }
        let mut o = None;
        for u in slot.users() {
            if !u.is_instruction() {
                return None;
            }
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore if u.operand(1) == slot && u.operand(0) != slot => {
                    let x = self.exact_object_at(u.operand(0), depth + 1)?;
                    if o.is_some_and(|y| y != x) {
                        return None;
                    }
                    o = Some(x);
                }
                Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => {}
                _ => return None,
            }
        }
        o
    }

    /// For a call of a defined function (or a fork of an outlined one),
    /// the callee, the pointer arguments that are known globals at this
    /// call ([`Bind`]: an argument that is exactly a global's address, or a
    /// stack block of this function holding globals' addresses,
    /// [`FuncFacts::slot_globals`]) and the argument positions bound
    /// directly.
    pub fn call_binding(&self, call: Value) -> Option<(usize, Vec<Bind>, Vec<usize>, Vec<Value>)> {
        let mf = self.mf;
        let (callee, first, param0) = match call_kind(mf, call) {
            CallKind::Defined(g) => (g, 0u32, 0u32),
            CallKind::Known(Effect::ForkCall) => {
                let microtask = call.called_function().and_then(known::fork_microtask)?;
                (*mf.func_ix.get(&call.operand(microtask))?, microtask + 1, 2)
            }
            _ => return None,
        };
        let mut bind = Vec::new();
        let mut covered = Vec::new();
        let mut extra = Vec::new();
        for k in first..call.num_args() {
            let a = call.operand(k);
            if !a.ty().is_pointer() {
                continue;
            }
            let pi = param0 + (k - first);
            if let Some(Obj::Global(g)) = self.exact_object(a) {
                bind.push((pi, -1, g));
                covered.push(k as usize);
            } else {
                let (slots, locals) = self.slot_globals(a);
                bind.extend(slots.into_iter().map(|(off, g)| (pi, off, g)));
                extra.extend(locals);
            }
        }
        (!bind.is_empty()).then_some((callee, bind, covered, extra))
    }

    /// The pointer slots of stack object `a` that only ever hold one
    /// global's address, as (byte offset, global), or only addresses of
    /// this function's stack objects or of what its parameters point to
    /// (global [`LOCAL`]; those objects are added to the call's uses, the
    /// returned values): `a`'s users are stores into it (directly or
    /// through constant GEPs), loads, lifetime markers and fork calls
    /// (which pass it to a region by reference); a slot counts when every
    /// store overlapping its 8 bytes stores at its offset a pointer of the
    /// same kind (the same global).
    fn slot_globals(&self, a: Value) -> (Vec<(i64, usize)>, Vec<Value>) {
        if !self.alloca_ix.contains_key(&a) {
            return (Vec::new(), Vec::new());
        }
        // (offset, size, what is stored: a global, LOCAL, or nothing known)
        let mut stores: Vec<(i64, u64, Option<usize>, Value)> = Vec::new();
        let mut work = vec![(a, 0i64)];
        while let Some((p, off)) = work.pop() {
            for u in p.users() {
                if !u.is_instruction() {
                    return (Vec::new(), Vec::new());
                }
                match u.opcode() {
                    Opcode::LLVMLoad => {}
                    Opcode::LLVMStore if u.operand(1) == p && u.operand(0) != p => {
                        let v = u.operand(0);
                        let size = self.mf.m.store_size(v.ty());
                        let kind = if !v.ty().is_pointer() {
                            None
                        } else if let Some(Obj::Global(g)) = self.exact_object(v) {
                            Some(g)
                        } else {
                            let b = self.bases(v);
                            (!b.unknown && !b.heap && b.objs.iter().all(|o| matches!(o, Obj::Alloca(_)))).then_some(LOCAL)
                        };
                        stores.push((off, size, kind, v));
                    }
                    Opcode::LLVMGetElementPtr if u.operand(0) == p => match u.strip_offset() {
                        Some((b, o)) if b == a => work.push((u, o)),
                        _ => return (Vec::new(), Vec::new()),
                    },
                    Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => {}
                    Opcode::LLVMCall if call_kind(self.mf, u) == CallKind::Known(Effect::ForkCall) && u.called_value() != p => {}
                    _ => return (Vec::new(), Vec::new()),
                }
            }
        }
        let mut out: Vec<(i64, usize)> = Vec::new();
        let mut locals = Vec::new();
        for &(off, size, kind, _) in &stores {
            let Some(g) = kind else { continue };
            if size != 8 || out.iter().any(|o| o.0 == off) {
                continue;
            }
            let clean = stores.iter().all(|&(o2, s2, k2, _)| o2 + s2 as i64 <= off || off + 8 <= o2 || (o2 == off && s2 == 8 && k2 == Some(g)));
            if clean {
                out.push((off, g));
                if g == LOCAL {
                    locals.extend(stores.iter().filter(|s| s.0 == off).map(|s| s.3));
                }
            }
        }
        (out, locals)
    }

    pub fn bases(&self, v: Value) -> Bases {
        if let Some(b) = self.memo.borrow().get(&v) {
            return b.clone();
        }
        // in progress: empty (cycles through phis add nothing new)
        self.memo.borrow_mut().insert(v, Bases::default());
        let b = self.compute_bases(v);
        self.memo.borrow_mut().insert(v, b.clone());
        b
    }

    fn compute_bases(&self, v: Value) -> Bases {
        if let Some(&i) = self.alloca_ix.get(&v) {
            return Bases { objs: vec![Obj::Alloca(i)], ..Default::default() };
        }
        if let Some(&g) = self.mf.global_ix.get(&v) {
            return Bases { objs: vec![Obj::Global(g)], ..Default::default() };
        }
        if let Some(g) = self.bound_global(v) {
            if g == LOCAL {
                return Bases { param: true, ..Default::default() };
            }
            return Bases { objs: vec![Obj::Global(g)], ..Default::default() };
        }
        if v.is_argument() {
            return Bases { param: true, ..Default::default() };
        }
        if v.is_function() || v.is_global_var() {
            // functions, constant globals: nothing that needs saving.
            // A thread-local global defined here is in the module's TLS
            // table: the runtime saves every thread's copy whole at every
            // checkpoint (not by liveness), so reading it needs nothing
            // more; one defined elsewhere stays unknown.
            let foreign_tls = v.is_global_var() && v.is_thread_local() && v.initializer().is_none();
            return if foreign_tls { Bases::unknown() } else { Bases::default() };
        }
        if v.is_const_expr() {
            return match derived_from(v) {
                Some(srcs) => self.bases(srcs[0]),
                None => Bases::unknown(),
            };
        }
        if !v.is_instruction() {
            // null, undef, poison, integer constants
            return Bases::default();
        }
        match v.opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMSelect | Opcode::LLVMPHI => {
                let mut b = Bases::default();
                for src in derived_from(v).expect("address arithmetic or a merge") {
                    b.join(&self.bases(src));
                }
                b
            }
            // libc's `stdout` and friends point to libc's FILE objects
            Opcode::LLVMLoad if is_libc_stream(v.operand(0)) => Bases::default(),
            Opcode::LLVMLoad => self
                .forwarded_bases(v.operand(0))
                .unwrap_or_else(Bases::unknown),
            Opcode::LLVMCall => {
                let callee = v.called_function();
                if let Some(Intr::ThreadlocalAddress { global }) = callee.and_then(known::intrinsic) {
                    // clang's access to a thread-local global (threadprivate)
                    self.bases(v.operand(global))
                } else if let Some(Role::ThreadprivateCached { data, .. }) = known::call_role(v) {
                    // flang's threadprivate: the calling thread's copy of
                    // `data`. One object stands for every thread's copy: the
                    // master's is the original (a global like any other),
                    // a worker's lies in the runtime's threadprivate arena
                    // and is saved with that worker (runtime/src/omp/tp.rs)
                    self.bases(v.operand(data))
                } else if matches!(callee.and_then(known::effect), Some(Effect::Alloc { .. })) {
                    Bases { heap: true, ..Default::default() }
                } else if callee.is_some_and(|c| (self.mf.func_ix.contains_key(&c) && returns_an_argument(c)) || (c.is_declaration() && dao_analysis::known::returns_handle_of_args(&c.name()))) {
                    // a defined function that returns one of its pointer
                    // arguments (or an address inside what it points to),
                    // or a runtime handle that refers to them (flang's I/O
                    // cookies): what the call's pointer arguments point to
                    let mut b = Bases::default();
                    for a in v.args().into_iter().filter(|a| a.ty().is_pointer()) {
                        b.join(&self.bases(a));
                    }
                    b
                } else {
                    Bases::unknown()
                }
            }
            _ => Bases::unknown(),
        }
    }

    /// Bases of a pointer loaded from `slot`, when `slot` is a
    /// non-escaping stack object used only by direct loads and stores (the
    /// shape of every -O0 local).
    fn forwarded_bases(&self, slot: Value) -> Option<Bases> {
        let &ix = self.alloca_ix.get(&slot)?;
        if self.alloca_escaped[ix] {
            return None;
        }
        let mut b = Bases::default();
        for u in slot.users() {
            if !u.is_instruction() {
                return None;
            }
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore if u.operand(1) == slot => {
                    let val = u.operand(0);
                    if !val.ty().is_pointer() {
                        return None;
                    }
                    b.join(&self.bases(val));
                }
                Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => {}
                _ => return None,
            }
        }
        Some(b)
    }

    /// The object a pointer certainly designates from its first byte, if
    /// any (for kills: a write covering that many bytes overwrites it).
    pub fn exact_object(&self, p: Value) -> Option<Obj> {
        self.exact_object_at(p, 0)
    }

    fn exact_object_at(&self, p: Value, depth: u32) -> Option<Obj> {
        if let Some(&i) = self.alloca_ix.get(&p) {
            return Some(Obj::Alloca(i));
        }
        if let Some(g) = self.bound_global(p) {
            return (g != LOCAL).then_some(Obj::Global(g));
        }
        if let Some(o) = self.forwarded_exact(p, depth) {
            return Some(o);
        }
        // flang's threadprivate: the calling thread's copy of `data`, from
        // its first byte (the analysis's one object for every thread's copy)
        if let Some(Role::ThreadprivateCached { data, .. }) = known::call_role(p) {
            return self.mf.global_ix.get(&p.operand(data)).map(|&g| Obj::Global(g));
        }
        self.mf.global_ix.get(&p).map(|&g| Obj::Global(g))
    }

    pub fn loop_facts(&self) -> &crate::ir::LoopFacts {
        self.loops.get_or_init(|| {
            let inits: Vec<Value> = self.f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| known::call_role(*i) == Some(Role::StaticInit)).collect();
            let (elig, writers) = self.mf.cond.for_shim(self.mf);
            let bind: Vec<(u32, i64, Value)> = self.bind_list.iter().filter(|b| b.2 != LOCAL).map(|&(i, slot, g)| (i, slot, self.mf.globals[g])).collect();
            crate::ir::loop_facts(self.f, &inits, &elig, &writers, &bind)
        })
    }

    pub fn obj_size(&self, o: Obj) -> u64 {
        match o {
            Obj::Alloca(i) => self.alloca_size[i],
            Obj::Global(g) => self.mf.global_size[g],
        }
    }
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

/// Variable numbering of one function's body.
pub struct VarMap {
    pub ssa: Vec<Value>,
    pub ssa_ix: HashMap<Value, usize>,
    pub n_allocas: usize,
    pub n_globals: usize,
}

impl VarMap {
    pub fn alloca_var(&self, i: usize) -> usize {
        self.ssa.len() + i
    }
    pub fn global_var(&self, g: usize) -> usize {
        self.ssa.len() + self.n_allocas + g
    }
    pub fn unknown_var(&self) -> usize {
        self.ssa.len() + self.n_allocas + self.n_globals
    }
    pub fn num_vars(&self) -> usize {
        self.unknown_var() + 1
    }
}

/// Where each instruction's statement is: (block index, statement index).
pub type StmtPos = (usize, usize);

pub struct Translated {
    pub body: Body,
    pub vars: VarMap,
    pub pos: HashMap<Value, StmtPos>,
    /// The loops whose must-writes kill objects at their entry edge.
    pub loop_kills: Vec<LoopKill>,
    /// Loops with stores to memory of which no object was killed (for the
    /// count of conservative decisions), and of those, how many had no store
    /// whose bytes ScalarEvolution could describe.
    pub loops_without_kill: usize,
    pub loops_unrecognised: usize,
}

/// Objects a loop overwrites whole before any read (dead on its entry
/// edge), and globals it overwrites in part (those bytes dead there).
pub struct LoopKill {
    pub header: crate::ir::Block,
    pub objects: Vec<Obj>,
    /// (global, bytes of it the loop certainly rewrites).
    pub partial: Vec<(usize, u64)>,
    /// The kill statement in the body (appended to the loop's anchor).
    pub at: StmtPos,
}

/// Memory reads of one access through pointer `p`, as variables.
fn mem_uses(ff: &FuncFacts, vars: &VarMap, p: Value, out: &mut Vec<usize>) {
    let b = ff.bases(p);
    for o in &b.objs {
        out.push(match *o {
            Obj::Alloca(i) => vars.alloca_var(i),
            Obj::Global(g) => vars.global_var(g),
        });
    }
    if b.unknown {
        unknown_uses(ff, vars, out);
    }
}

/// A read of memory the pass cannot name: it may be any escaped stack
/// object of the function, any escaped global of this module (each one a
/// use of its own, so a must-write before the read still kills it: ABI
/// version 8), or memory of other modules and the heap (the unknown
/// variable, whose runtime meaning is "save the escaped globals of the
/// other modules").
fn unknown_uses(ff: &FuncFacts, vars: &VarMap, out: &mut Vec<usize>) {
    out.push(vars.unknown_var());
    for (i, esc) in ff.alloca_escaped.iter().enumerate() {
        if *esc {
            out.push(vars.alloca_var(i));
        }
    }
    for (g, esc) in ff.mf.global_escaped.iter().enumerate() {
        if *esc {
            out.push(vars.global_var(g));
        }
    }
}

/// What a call reads, given callee summaries (`None` while computing the
/// local summaries themselves: then defined callees add nothing here).
fn call_uses(ff: &FuncFacts, vars: &VarMap, call: Value, sums: Option<&[Summary]>, out: &mut Vec<usize>) {
    let mf = ff.mf;
    // An explicit task (`__kmpc_omp_task_alloc` names its entry): its body
    // reads, as of the task's creation, what its entry's summary says (it
    // runs at some later time, by the end of the region at the latest, so
    // nothing it reads may be dead at a position before the creation);
    // an entry not defined here reads anything. It kills nothing
    // (call_kills): when it writes is not known.
    if let Some(Role::TaskAlloc { entry, .. }) = known::call_role(call) {
        match (call.num_args() > entry).then(|| call.operand(entry)).and_then(|e| mf.func_ix.get(&e).copied()) {
            Some(t) => {
                if let Some(s) = sums {
                    summary_uses(&s[t], vars, ff, out);
                }
            }
            None => unknown_uses(ff, vars, out),
        }
    }
    let kind = call_kind(mf, call);
    let ptr_args = || call.args().into_iter().filter(|a| a.ty().is_pointer());
    match kind {
        CallKind::Intrinsic(Intr::Copy { src, .. }) => mem_uses(ff, vars, call.operand(src), out),
        CallKind::Intrinsic(Intr::Set { .. } | Intr::Lifetime | Intr::NoMem) => {}
        CallKind::Intrinsic(Intr::ThreadlocalAddress { .. } | Intr::Other) => {
            for a in ptr_args() {
                mem_uses(ff, vars, a, out);
            }
        }
        CallKind::Marker(_) | CallKind::Known(Effect::NoMem | Effect::Alloc { reads_args: false, .. }) => {}
        // strdup, strndup: an allocation that reads its source string
        CallKind::Known(Effect::ReadsArgs | Effect::Env | Effect::Alloc { reads_args: true, .. }) => {
            for a in ptr_args() {
                mem_uses(ff, vars, a, out);
            }
        }
        CallKind::Known(Effect::ForkCall) => {
            let spec = sums.and_then(|_| ff.spec.borrow().get(&call).cloned());
            uncovered_arg_uses(ff, vars, call, spec.as_ref(), out);
            let microtask = call.called_function().and_then(known::fork_microtask).expect("a fork call has a microtask operand");
            let task = call.operand(microtask);
            match (mf.func_ix.get(&task), sums, spec) {
                (Some(_), Some(_), Some(sp)) => summary_uses(&sp.sum, vars, ff, out),
                (Some(&t), Some(s), None) => summary_uses(&s[t], vars, ff, out),
                (Some(_), None, _) => {}
                (None, _, _) => unknown_uses(ff, vars, out),
            }
        }
        CallKind::Defined(g) => {
            let spec = sums.and_then(|_| ff.spec.borrow().get(&call).cloned());
            uncovered_arg_uses(ff, vars, call, spec.as_ref(), out);
            match (spec, sums) {
                (Some(sp), _) => summary_uses(&sp.sum, vars, ff, out),
                (None, Some(s)) => summary_uses(&s[g], vars, ff, out),
                (None, None) => {}
            }
        }
        // (an intrinsic is CallKind::Intrinsic)
        CallKind::Known(Effect::ReturnsTwice | Effect::Marker(_) | Effect::Intrinsic) | CallKind::Unknown | CallKind::Indirect => {
            for a in ptr_args() {
                mem_uses(ff, vars, a, out);
            }
            unknown_uses(ff, vars, out);
        }
    }
}

/// What a call to a defined function or a fork reads through its pointer
/// arguments: every object each may point to, except the arguments whose
/// reads the specialised callee summary counts (`Spec::covered_args`).
fn uncovered_arg_uses(ff: &FuncFacts, vars: &VarMap, call: Value, spec: Option<&Spec>, out: &mut Vec<usize>) {
    for (k, a) in call.args().into_iter().enumerate() {
        if a.ty().is_pointer() && !spec.is_some_and(|sp| sp.covered_args.contains(&k)) {
            mem_uses(ff, vars, a, out);
        }
    }
    for &v in spec.map_or(&[][..], |sp| &sp.extra_uses[..]) {
        mem_uses(ff, vars, v, out);
    }
}

/// What a call certainly overwrites before reading it: the kills of a
/// defined callee's (or a fork's outlined function's) refined summary,
/// whole (`out`) and partial (`pout`); and the bytes the callee may read
/// first of the globals it rewrites in part (`puses`), for the globals no
/// pointer argument of the call may reach (those count whole).
fn call_kills(
    ff: &FuncFacts,
    vars: &VarMap,
    call: Value,
    sums: Option<&[Summary]>,
    out: &mut Vec<usize>,
    pout: &mut Vec<(usize, dao_analysis::intervals::Intervals)>,
    puses: &mut Vec<(usize, dao_analysis::intervals::Intervals)>,
) {
    let Some(sums) = sums else { return };
    let mf = ff.mf;
    let callee = match call_kind(mf, call) {
        CallKind::Defined(g) => Some(g),
        CallKind::Known(Effect::ForkCall) => {
            let microtask = call.called_function().and_then(known::fork_microtask).expect("a fork call has a microtask operand");
            mf.func_ix.get(&call.operand(microtask)).copied()
        }
        _ => None,
    };
    if let Some(g) = callee {
        let spec = ff.spec.borrow().get(&call).cloned();
        let s: &Summary = spec.as_ref().map_or(&sums[g], |sp| &sp.sum);
        out.extend(s.kills.iter().map(|k| vars.global_var(k)));
        pout.extend(
            s
                .partial
                .iter()
                .map(|(k, w)| (vars.global_var(*k), w.clone())),
        );
        let mut by_args = Vec::new();
        uncovered_arg_uses(ff, vars, call, spec.as_ref(), &mut by_args);
        puses.extend(
            s
                .exposed
                .iter()
                .map(|(k, e)| (vars.global_var(*k), e.clone()))
                .filter(|(v, _)| !by_args.contains(v)),
        );
    }
}

fn summary_uses(s: &Summary, vars: &VarMap, ff: &FuncFacts, out: &mut Vec<usize>) {
    for g in s.globals.iter() {
        out.push(vars.global_var(g));
    }
    if s.reads_unknown {
        unknown_uses(ff, vars, out);
    }
}

/// Kills of a store-like write of `len` bytes at `p`.
fn write_kill(ff: &FuncFacts, vars: &VarMap, p: Value, len: Option<u64>, out: &mut Vec<usize>) {
    if let (Some(o), Some(len)) = (ff.exact_object(p), len) {
        if len >= ff.obj_size(o) {
            out.push(match o {
                Obj::Alloca(i) => vars.alloca_var(i),
                Obj::Global(g) => vars.global_var(g),
            });
        }
    }
}

/// Translate a function into a body. Statement `i` of block `b` is the
/// `i`-th instruction; phi operands follow the terminator of each
/// predecessor.
pub fn translate(ff: &FuncFacts, sums: Option<&[Summary]>) -> Translated {
    let m = ff.mf.m;
    let blocks = ff.f.blocks();
    let block_ix: HashMap<_, _> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let mut ssa = Vec::new();
    for b in &blocks {
        for i in b.instructions() {
            if !i.is_alloca() && !i.ty().is_void() && i.ty().is_storable() {
                ssa.push(i);
            }
        }
    }
    let ssa_ix = ssa.iter().enumerate().map(|(i, v)| (*v, i)).collect();
    let vars = VarMap { ssa, ssa_ix, n_allocas: ff.allocas.len(), n_globals: ff.mf.globals.len() };
    let mut body = Body::new(vars.num_vars());
    let mut pos = HashMap::new();
    let mut phi_uses: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for (bi, b) in blocks.iter().enumerate() {
        body.add_block();
        for (ii, inst) in b.instructions().into_iter().enumerate() {
            pos.insert(inst, (bi, ii));
            let mut st = Stmt::default();
            if let Some(&v) = vars.ssa_ix.get(&inst) {
                st.defs.push(v);
            }
            if inst.is_phi() {
                for k in 0..inst.incoming_count() {
                    if let Some(&v) = vars.ssa_ix.get(&inst.operand(k)) {
                        phi_uses[block_ix[&inst.incoming_block(k)]].push(v);
                    }
                }
                body.blocks[bi].stmts.push(st);
                continue;
            }
            for op in inst.operands() {
                if let Some(&v) = vars.ssa_ix.get(&op) {
                    st.uses.push(v);
                }
            }
            match inst.opcode() {
                Opcode::LLVMLoad => mem_uses(ff, &vars, inst.operand(0), &mut st.uses),
                Opcode::LLVMStore => {
                    let len = m.store_size(inst.operand(0).ty());
                    write_kill(ff, &vars, inst.operand(1), Some(len), &mut st.defs);
                }
                Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => mem_uses(ff, &vars, inst.operand(0), &mut st.uses),
                Opcode::LLVMVAArg => unknown_uses(ff, &vars, &mut st.uses),
                Opcode::LLVMCall => {
                    call_uses(ff, &vars, inst, sums, &mut st.uses);
                    call_kills(
                        ff,
                        &vars,
                        inst,
                        sums,
                        &mut st.defs,
                        &mut st.pdefs,
                        &mut st.puses,
                    );
                    if let Some(Intr::Copy { dest, len, .. } | Intr::Set { dest, len }) =
                        known::call_intrinsic(inst)
                    {
                        let len = inst.operand(len).const_int_value();
                        write_kill(ff, &vars, inst.operand(dest), len, &mut st.defs);
                    }
                }
                _ => {}
            }
            // world 1 of the runtime-checked conditions: a write of a
            // condition's global uses what is killed under it
            st.uses.extend(ff.mf.cond.fake_uses(ff, inst).into_iter().map(|g| vars.global_var(g)));
            // a statement's own result is not read by it
            body.blocks[bi].stmts.push(st);
        }
        body.blocks[bi].succs = b.successors().iter().map(|s| block_ix[s]).collect();
    }
    for (bi, uses) in phi_uses.into_iter().enumerate() {
        if !uses.is_empty() {
            body.blocks[bi].stmts.push(Stmt {
                uses,
                defs: vec![],
                ..Default::default()
            });
        }
    }
    let (loop_kills, loops_without_kill, loops_unrecognised) = add_loop_kills(ff, &vars, &block_ix, &pos, &mut body);
    Translated { body, vars, pos, loop_kills, loops_without_kill, loops_unrecognised }
}

/// Blocks reachable from `from` (itself included), not going past the
/// blocks of `stop` (included). `from` itself is always gone past: a block
/// may end one worksharing loop (its fini) and start the next (its init),
/// as clang emits consecutive `omp for` at -O0, and the init's own loop
/// lies beyond it. (Stopping there checked no block of the loop, and a
/// loop that reads what it writes killed its object: `nowait_loops`.)
fn reach_until(body: &Body, from: usize, stop: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; body.blocks.len()];
    let mut work = vec![from];
    let mut out = Vec::new();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        out.push(b);
        if b == from || !stop.contains(&b) {
            work.extend(body.blocks[b].succs.iter().copied());
        }
    }
    out
}

/// The block for a kill on the edge from `pred`, the one block outside a
/// loop that enters it, to its header `header`: `pred` itself when the
/// loop is its only successor (a preheader), else a new block of the body
/// on that edge (no instruction maps to it). At -O2 the exit block of one
/// loop nest often branches straight into the next one's header.
fn entry_edge(body: &mut Body, pred: usize, header: usize) -> usize {
    if body.blocks[pred].succs.iter().all(|&s| s == header) {
        return pred;
    }
    let e = body.add_block();
    body.blocks[e].succs = vec![header];
    for s in body.blocks[pred].succs.iter_mut().filter(|s| **s == header) {
        *s = e;
    }
    e
}

/// The kills of loops whose must-write sections cover whole objects
/// (`dao_analysis::sections`), appended to their preheaders. In the team
/// view (a function with static worksharing loops, whose bounds the facts
/// took as the whole iteration space) only shared globals count: a
/// thread's private memory gets only its chunk.
fn add_loop_kills(
    ff: &FuncFacts,
    vars: &VarMap,
    block_ix: &HashMap<crate::ir::Block, usize>,
    pos: &HashMap<Value, StmtPos>,
    body: &mut Body,
) -> (Vec<LoopKill>, usize, usize) {
    use dao_analysis::sections::{
        add_kills, covered, loop_kills_excusing, read_covered_in_iteration, Section,
    };
    use dao_analysis::intervals::Intervals;
    if !crate::config::sections() {
        return (Vec::new(), 0, 0);
    }
    let lf = ff.loop_facts();
    let mut out = Vec::new();
    let mut without = 0;
    let unrecognised = lf.loops.iter().filter(|l| l.stores > 0 && l.sections == 0).count();
    for (li, lp) in lf.loops.iter().enumerate() {
        let mut per_obj: Vec<(Obj, Vec<Section>)> = Vec::new();
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && s.sym.iter().all(Option::is_none) && s.reqs.is_empty()) {
            let obj = match (ff.mf.global_ix.get(&sr.base), ff.alloca_ix.get(&sr.base)) {
                (Some(&g), _) => Obj::Global(g),
                (None, Some(&a)) if !lf.team => Obj::Alloca(a),
                _ => continue,
            };
            let sec = Section { start: sr.start, size: sr.size, dims: sr.dims.clone() };
            match per_obj.iter_mut().find(|(o, _)| *o == obj) {
                Some((_, v)) => v.push(sec),
                None => per_obj.push((obj, vec![sec])),
            }
        }
        // Where the kill goes, and which blocks must not read the objects
        // after it: a worksharing loop's kill goes to the block of its
        // static init (a team fact: whatever path one thread takes, its
        // bounds guard included, the team writes the whole space before the
        // construct ends), checked over every block reachable from there
        // up to the static fini; any other loop's to its preheader (which
        // must lead only to the loop), checked over the loop.
        let (anchor, blocks): (Option<usize>, Vec<usize>) = match lp.init {
            Some(init) => {
                let ib = block_ix.get(&init.parent_block()).copied();
                let fini: Vec<usize> = ff.f.blocks().iter().filter(|b| b.instructions().iter().any(|i| known::call_role(*i) == Some(Role::StaticFini))).filter_map(|b| block_ix.get(b).copied()).collect();
                (ib, ib.map(|ib| reach_until(body, ib, &fini)).unwrap_or_default())
            }
            None => (
                lp.preheader
                    .and_then(|p| block_ix.get(&p).copied())
                    .zip(block_ix.get(&lp.header).copied())
                    .map(|(p, h)| entry_edge(body, p, h)),
                lp.blocks
                    .iter()
                    .filter_map(|b| block_ix.get(b).copied())
                    .collect(),
            ),
        };
        let pre = anchor;
        // whole kills, and the bytes of globals rewritten in part (a grid's
        // interior: the halo stays live, `bytelive`)
        let mut cands: Vec<(usize, bool)> = Vec::new();
        let mut part: Vec<(usize, Intervals)> = Vec::new();
        for (o, secs) in &per_obj {
            let c = covered(secs);
            let whole = match o {
                // every byte any code may read is rewritten (padding
                // that nothing reads need not be)
                Obj::Global(g) => match ff.mf.readable(*g) {
                    Some(r) => r.0.iter().all(|&(lo, hi)| c.covers(lo, hi)),
                    None => c.covers(0, ff.obj_size(*o) as i64),
                },
                Obj::Alloca(_) => c.covers(0, ff.obj_size(*o) as i64),
            };
            match *o {
                Obj::Alloca(i) if whole => cands.push((vars.alloca_var(i), ff.alloca_escaped[i])),
                Obj::Global(g) if whole => {
                    cands.push((vars.global_var(g), ff.mf.global_escaped[g]))
                }
                Obj::Global(g) if crate::config::partial() => {
                    let w = c.clip(0, ff.obj_size(*o) as i64);
                    if !w.is_empty() {
                        cands.push((vars.global_var(g), ff.mf.global_escaped[g]));
                        part.push((vars.global_var(g), w));
                    }
                }
                _ => {}
            }
        }
        // whole kills under runtime-checked conditions: boxes with
        // symbolic counts (loop bounds read from stable globals) that cover
        // a global when the counts are large enough (`cond.rs`)
        let mut cond_cands: Vec<(usize, Vec<crate::cond::Cond>)> = Vec::new();
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && (s.sym.iter().any(Option::is_some) || !s.reqs.is_empty())) {
            let Some(&g) = ff.mf.global_ix.get(&sr.base) else { continue };
            let var = vars.global_var(g);
            if cands.iter().any(|(v, _)| *v == var) || cond_cands.iter().any(|(x, _)| *x == g) {
                continue;
            }
            let need = match ff.mf.readable(g) {
                Some(r) => r.clone(),
                None => Intervals(vec![(0, ff.mf.global_size[g] as i64)]),
            };
            let others: Vec<Section> = per_obj.iter().filter(|(o, _)| *o == Obj::Global(g)).flat_map(|(_, v)| v.iter().cloned()).collect();
            let dims: Vec<(i64, Option<u64>)> = sr.dims.iter().zip(&sr.sym).map(|(&(st, c), y)| (st, y.is_none().then_some(c))).collect();
            // the loop's other boxes of the same global with the same
            // dimensions (same strides, constant counts and symbolic
            // counts: the same run-time values) and guards
            let cells: Vec<(i64, u64)> = lf
                .sections
                .iter()
                .filter(|s| s.loop_ix == li && s.base == sr.base && s.dims == sr.dims && s.sym == sr.sym && s.reqs == sr.reqs)
                .map(|s| (s.start, s.size))
                .collect();
            let Some(ks) = dao_analysis::sections::symbolic_cover_cells(&cells, &dims, &others, &need) else { continue };
            // and the inner loops' guards (`if (0 < n)` in every row)
            let guards = sr.reqs.iter().map(|(sc, m)| {
                let cg = *ff.mf.global_ix.get(&sc.global)?;
                crate::cond::Cond::at_least(cg, &crate::ir::SymCount { add: 0, low: *m, ..*sc }, 0)
            });
            let conds: Option<Vec<_>> = ks
                .iter()
                .map(|&(d, k)| {
                    let sc = sr.sym[d]?;
                    let cg = *ff.mf.global_ix.get(&sc.global)?;
                    crate::cond::Cond::at_least(cg, &sc, k)
                })
                .chain(guards)
                .collect();
            if let Some(conds) = conds {
                cond_cands.push((g, conds));
            }
        }
        let Some(pre) = pre.filter(|_| !cands.is_empty() || !cond_cands.is_empty()) else {
            if lp.stores > 0 {
                without += 1;
            }
            continue;
        };
        // reads of the loop that see only what the same iteration wrote
        // before them (a time step's copy-then-update of one plane)
        let excused: HashSet<(usize, usize, usize)> = lf
            .rel_reads
            .iter()
            .filter(|r| r.loop_ix == li)
            .filter_map(|r| {
                let var = match (ff.mf.global_ix.get(&r.base), ff.alloca_ix.get(&r.base)) {
                    (Some(&g), _) => vars.global_var(g),
                    (None, Some(&a)) if !lf.team => vars.alloca_var(a),
                    _ => return None,
                };
                let &(b, i) = pos.get(&r.inst)?;
                read_covered_in_iteration(&r.writes, &r.read).then_some((b, i, var))
            })
            .collect();
        let unread = loop_kills_excusing(body, &blocks, &cands, vars.unknown_var(), &excused);
        // a guard above the loop that goes towards it under the same kind
        // of condition (`if (0 < n)` around a worksharing loop): the
        // conditional kills then sit at its top, with its requirements
        let guard = lp.guard.as_ref().filter(|_| !cond_cands.is_empty()).and_then(|gd| {
            let top = *block_ix.get(&gd.top)?;
            let mut reqs = Vec::new();
            for (sc, m) in &gd.reqs {
                let cg = *ff.mf.global_ix.get(&sc.global)?;
                let c = crate::cond::Cond::at_least(cg, &crate::ir::SymCount { add: 0, low: *m, ..*sc }, 0)?;
                reqs.push(c);
            }
            let chain: Vec<usize> = gd.chain.iter().filter_map(|b| block_ix.get(b).copied()).collect();
            Some((top, chain, reqs))
        });
        let mut cblocks = blocks.clone();
        if let Some((_, chain, reqs)) = &guard {
            cblocks.extend(chain.iter().copied());
            for (_, conds) in cond_cands.iter_mut() {
                conds.extend(reqs.iter().cloned());
            }
        }
        let cvars: Vec<(usize, bool)> = cond_cands.iter().map(|(g, _)| (vars.global_var(*g), ff.mf.global_escaped[*g])).collect();
        let cunread = loop_kills_excusing(body, &cblocks, &cvars, vars.unknown_var(), &excused);
        // the conditional kills the loop proved (recorded in world 0,
        // applied in world 1)
        let mut cond = Vec::new();
        let mut ckills = Vec::new();
        for (g, conds) in cond_cands {
            if !cunread.contains(&vars.global_var(g)) {
                continue;
            }
            if ff.mf.cond.kill(lp.header, g, conds.clone()) {
                ckills.push(vars.global_var(g));
            }
            cond.push(g);
        }
        let (pdefs, kills): (Vec<usize>, Vec<usize>) = unread
            .into_iter()
            .partition(|v| part.iter().any(|(p, _)| p == v));
        let pdefs: Vec<(usize, Intervals)> = part
            .into_iter()
            .filter(|(v, _)| pdefs.contains(v))
            .collect();
        if kills.is_empty() && pdefs.is_empty() && cond.is_empty() {
            without += 1;
            continue;
        }
        let objects = kills
            .iter()
            .map(|&v| if v >= vars.global_var(0) { Obj::Global(v - vars.global_var(0)) } else { Obj::Alloca(v - vars.alloca_var(0)) })
            .collect();
        let partial = pdefs
            .iter()
            .map(|(v, w)| (v - vars.global_var(0), w.bytes()))
            .collect();
        let mut kills = kills;
        match &guard {
            Some((top, _, _)) if !ckills.is_empty() => add_kills(body, *top, ckills, vec![]),
            _ => kills.extend(ckills),
        }
        if kills.is_empty() && pdefs.is_empty() {
            // world 0, conditional kills only: an empty statement marks
            // the place
            body.blocks[pre].stmts.push(Stmt::default());
        }
        add_kills(body, pre, kills, pdefs);
        out.push(LoopKill {
            header: lp.header,
            objects,
            partial,
            at: (pre, body.blocks[pre].stmts.len() - 1),
        });
    }
    (out, without, unrecognised)
}

/// The local read summary of a function (callees not included yet).
pub fn local_summary(ff: &FuncFacts) -> Summary {
    let t = translate(ff, None);
    let mut s = Summary {
        globals: BitSet::new_empty(ff.mf.globals.len()),
        reads_unknown: false,
        kills: BitSet::new_empty(ff.mf.globals.len()),
        partial: Vec::new(),
        exposed: Vec::new(),
    };
    for blk in &t.body.blocks {
        for st in &blk.stmts {
            for &u in &st.uses {
                if u == t.vars.unknown_var() {
                    s.reads_unknown = true;
                } else if u >= t.vars.global_var(0) && u < t.vars.unknown_var() {
                    s.globals.insert(u - t.vars.global_var(0));
                }
            }
        }
    }
    s
}

/// A declared (not defined here) libc stream global: `stdout`, ...
fn is_libc_stream(p: Value) -> bool {
    p.is_global_var() && p.initializer().is_none() && dao_analysis::known::is_libc_stream(&p.name())
}
