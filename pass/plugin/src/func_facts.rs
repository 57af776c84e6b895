//! Per-function facts ([`FuncFacts`]): the function's stack objects, the
//! bases of its pointers (memoised; loads from non-escaping local slots
//! forwarded), its loops' facts from the shim, and the function analysed
//! at one call site, with the pointer arguments the call binds to known
//! globals ([`Bind`]) and its calls' specialised callee summaries
//! ([`Spec`]).
use crate::facts::{call_kind, CallKind, ModuleFacts, Summary};
use crate::ir::{Opcode, Value};
use crate::known::{self, Effect, Intr, Role};
use crate::provenance::{derived_from, escapes, is_libc_stream, returns_an_argument, Bases, Obj};
use dao_analysis::fxhash::HashMap;

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
    loops: std::cell::OnceCell<std::rc::Rc<crate::ir::LoopFacts>>,
    /// The function analysed for one call site: its pointer arguments that
    /// are known globals there ([`Bind`], checked: slot bindings only for
    /// an argument whose block the function only loads), by (argument,
    /// slot offset or -1).
    bind: HashMap<(Value, i64), usize>,
    pub bind_list: Vec<Bind>,
    /// Integer arguments that are constants at the call site analysed
    /// ([`CONST_ARG`]).
    pub consts: HashMap<Value, i64>,
    /// Calls of this function whose callee is analysed with the globals
    /// their arguments are ([`Spec`], `summaries::Specs`); set before it is
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

/// The "slot" of a binding that says the argument is an integer constant,
/// the binding's third field (its bits, `as usize`): at a call `fft(-1,
/// u1, u2)` the callee's branches on `dir` are decided (issue #33: NPB FT's
/// `fft` runs `cffts3` into `x2` when `dir == 1`, `cffts1` when not; only
/// the latter kills `u2`). Only with a pointer binding beside it.
pub const CONST_ARG: i64 = i64::MIN;

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
            if slot == CONST_ARG {
                if a.ty().int_width().is_some() {
                    ff.consts.insert(a, g as i64);
                    ff.bind_list.push((i, slot, g));
                }
                continue;
            }
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
        let on_cycle = crate::to_heap::on_cycle;
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
            bind: HashMap::default(),
            bind_list: Vec::new(),
            consts: HashMap::default(),
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
        let mut consts = Vec::new();
        for k in first..call.num_args() {
            let a = call.operand(k);
            if !a.ty().is_pointer() {
                if let Some(c) = a.const_int_sext() {
                    consts.push((param0 + (k - first), CONST_ARG, c as usize));
                }
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
        if !bind.is_empty() {
            bind.extend(consts);
        }
        (!bind.is_empty()).then_some((callee, bind, covered, extra))
    }

    /// The successor a conditional branch of this function always takes
    /// at the call site analysed: its condition compares an argument bound
    /// to a constant ([`CONST_ARG`]) with a constant.
    pub fn decided_successor(&self, term: Value) -> Option<usize> {
        use llvm_sys::LLVMIntPredicate::*;
        if self.consts.is_empty() || term.opcode() != Opcode::LLVMBr || term.num_operands() != 3 {
            return None;
        }
        let c = term.operand(0);
        let pred = c.icmp_predicate()?;
        let (x, y) = (c.operand(0), c.operand(1));
        let val = |v: Value| self.consts.get(&v).copied().or_else(|| v.const_int_sext());
        let (a, b) = (val(x)?, val(y)?);
        if !self.consts.contains_key(&x) && !self.consts.contains_key(&y) {
            return None;
        }
        let w = x.ty().int_width()?;
        let (ua, ub) = if w >= 64 { (a as u64, b as u64) } else { ((a as u64) & ((1u64 << w) - 1), (b as u64) & ((1u64 << w) - 1)) };
        let t = match pred {
            LLVMIntEQ => a == b,
            LLVMIntNE => a != b,
            LLVMIntSGT => a > b,
            LLVMIntSGE => a >= b,
            LLVMIntSLT => a < b,
            LLVMIntSLE => a <= b,
            LLVMIntUGT => ua > ub,
            LLVMIntUGE => ua >= ub,
            LLVMIntULT => ua < ub,
            LLVMIntULE => ua <= ub,
        };
        // successor 0 of a conditional `br` is its true destination
        Some(if t { 0 } else { 1 })
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
                            // (also an address inside a global, not at its
                            // start: NPB FT's `cffts3(.., dims[2], ..)`
                            // captures `&dims[2][0]`, which no binding to
                            // a global's first byte describes; the call then
                            // reads all of `dims`)
                            (!b.unknown && !b.heap).then_some(LOCAL)
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
        let mut b = self.compute_bases(v);
        // a value that may hold a heap object's address points into it
        // (every such value is one the walk of `heap.rs` visited)
        if let Some(hs) = self.mf.heap_may.get(&v) {
            for &h in hs {
                if !b.objs.contains(&Obj::Global(h)) {
                    b.objs.push(Obj::Global(h));
                }
            }
        }
        self.memo.borrow_mut().insert(v, b.clone());
        b
    }

    /// The globals `p` may point into (of [`FuncFacts::bases`]).
    pub fn global_bases(&self, p: Value) -> Vec<usize> {
        self.bases(p).objs.iter().filter_map(|o| if let Obj::Global(g) = o { Some(*g) } else { None }).collect()
    }

    fn compute_bases(&self, v: Value) -> Bases {
        // the allocation call of a heap object, or a value certainly
        // holding its address: the object, not "the heap"
        if let Some(&h) = self.mf.heap_exact.get(&v) {
            return Bases { objs: vec![Obj::Global(h)], ..Default::default() };
        }
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
            Opcode::LLVMCall | Opcode::LLVMInvoke => {
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
        if let Some(&h) = self.mf.heap_exact.get(&p) {
            return Some(Obj::Global(h));
        }
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
            // (a constant argument goes to the shim as its value)
            let bind: Vec<(u32, i64, Value)> = self
                .bind_list
                .iter()
                .filter(|b| b.1 == CONST_ARG || b.2 != LOCAL)
                .map(|&(i, slot, g)| (i, slot, if slot == CONST_ARG { self.mf.m.const_i64(g as u64) } else { self.mf.globals[g] }))
                .collect();
            let (elig, writers) = self.mf.cond.for_shim(&self.mf.globals, &self.mf.funcs);
            let key = (self.f, bind, elig, writers);
            if let Some(lf) = self.mf.loop_cache.borrow().get(&key) {
                return lf.clone();
            }
            let inits: Vec<Value> = self.f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| known::call_role(*i) == Some(Role::StaticInit)).collect();
            let t = std::time::Instant::now();
            let repl = self.mf.heap_repl.get(&self.f).map_or(&[][..], |v| &v[..]);
            let lf = std::rc::Rc::new(crate::timing::phase("shim loop facts", || crate::ir::loop_facts(self.f, &inits, &key.2, &key.3, &key.1, repl)));
            if crate::timing::each_run() {
                eprintln!("dao: shim loop facts of {} ({} bindings; {} loops, {} write sections, {} reads): {:.1} ms", self.f.name(), key.1.len(), lf.loops.len(), lf.sections.len(), lf.reads.len(), t.elapsed().as_secs_f64() * 1e3);
            }
            self.mf.loop_cache.borrow_mut().insert(key, lf.clone());
            lf
        })
    }

    pub fn obj_size(&self, o: Obj) -> u64 {
        match o {
            Obj::Alloca(i) => self.alloca_size[i],
            Obj::Global(g) => self.mf.global_size[g],
        }
    }
}
