//! Device liveness (issue #35): the mapped globals whose device copies are
//! dead at a site, which the runtime then neither copies back nor saves
//! (docs/design.md section 21, "Device liveness").
//!
//! A global's device copy is dead at a site when on every path from it the
//! whole copy is rewritten on the device before any device operation reads
//! it. The *device view* of a function is a body (`dao_analysis::Body`:
//! one statement per instruction, at the host translation's positions)
//! whose variables are the module's globals, used and killed only by:
//! - a kernel launch (`__tgt_target_kernel`): it reads what the kernel may
//!   read and kills what the whole league certainly rewrites and never
//!   reads ([`kernel_effects`]);
//! - a `target update` ([`update_effect`]): it reads the device copies its
//!   `from` entries name;
//! - any other libomptarget or OpenMP device call (data mapping, device
//!   memory routines, an update of another shape): it reads every global
//!   it may name (it may copy any mapped range to or from the device);
//! - a call of a defined function that may run such code
//!   ([`DeviceFacts::opaque`]): its device summary, the same liveness on
//!   its own device view, callees first (what it may read before rewriting
//!   it, what every path through it rewrites first; [`DeviceFacts::sums`]),
//!   or, in a cycle of the call graph, every mapped global;
//! - an unknown or indirect callee: every mapped global.
//!
//! Host loads and stores touch host copies only: no statement. A path that
//! reaches the function's return reads nothing more here: the callers'
//! frames decide (the runtime takes a range as dead only when every frame
//! on the chain says so). A kernel that fails to launch runs its host
//! fallback instead; it is taken as having run on the device (libomptarget
//! falls back only when the device cannot run it, and then runs every
//! later kernel on the host too, where the device copies are not used).
//!
//! A kernel's effects come from its host fallback, the same code compiled
//! for the host. At -O2 clang inlines the fallback `__omp_offloading_*`
//! into the launching function: the block taken when the launch fails
//! calls `__kmpc_fork_teams(ident, n, T, args)`, `T` the teams region,
//! whose `distribute` loop (`__kmpc_for_static_init_*` with schedule 92,
//! over `[L0, U0]`) forks the parallel region `M` once per chunk
//! (`__kmpc_fork_call(.., M, lb, ub, args)`), which runs the loop over
//! `[lb, ub]` as a static worksharing loop. The kernel:
//! - reads every global `T` or what it calls names (`T`'s may-read
//!   summary: a teams region's is never refined with kills), every global
//!   passed to it but through a parameter that only reaches a parameter of
//!   `M` that `M` only writes through, and anything if `T` reads unknown
//!   memory;
//! - kills a global passed only to such write-only parameters when `M`,
//!   analysed for the whole range (`M`'s summary specialised to the
//!   globals and to `lb = L0`, `ub = U0`: `Specs::summary`, the shim
//!   running with those constants), kills it: the chunks of the teams
//!   partition `[L0, U0]`, `M` writes through those parameters only in
//!   iterations of its loop, so the chunks together write what `M` writes
//!   over the whole range; and since the kernel never reads the global,
//!   no team reads another's writes too early.
//!
//! `target parallel for` (the fallback block forks `M` directly, and holds
//! nothing else: [`fork_alone`]) reads and kills as `M` does over its whole
//! iteration space (its team summary), the same rules for the arguments.
//!
//! Any other shape (-O0's direct call of the fallback function, a `target`
//! region with serial code) reads every global it is passed and what the
//! fallback's summary reads, and kills nothing, or reads anything.
//!
//! A pointer the kernel is passed that comes from a parameter of the
//! launching function (`step(double *p)` launching a kernel that reads
//! `p[i]`) may point to any global a caller passes, so such a kernel reads
//! every mapped global. Only this frame can see that read: the callers'
//! frames list what is dead after the call returns.
use crate::facts::{call_kind, CallKind, ModuleFacts, Summary};
use crate::func_facts::{FuncFacts, CONST_ARG};
use crate::ir::{Opcode, Value};
use crate::known::{self, Effect, Role};
use crate::provenance::Obj;
use crate::summaries::Specs;
use crate::translate::Translated;
use dao_analysis::fxhash::HashMap;
use dao_analysis::liveness::LiveSets;
use dao_analysis::paths::CallFacts;
use dao_analysis::{BitSet, Body, Stmt};

/// `kmp_distribute_static`: the schedule of a `distribute` loop without a
/// chunk size (libomp's `enum sched_type`).
const DISTRIBUTE_STATIC: i64 = 92;
/// The launch entry point of a kernel.
const KERNEL_LAUNCH: &str = "__tgt_target_kernel";
/// `#pragma omp target update` (without `nowait`).
const DATA_UPDATE: &str = "__tgt_target_data_update_mapper";
/// Map-type bits of a `target update` entry (libomptarget's
/// `tgt_map_type`): `to`, `from`, and the `present` modifier.
const MAP_TO: u64 = 0x1;
const MAP_FROM: u64 = 0x2;
const MAP_PRESENT: u64 = 0x1000;

/// What the device view needs of the module: built once, when it launches
/// kernels.
pub struct DeviceFacts {
    /// Per defined function: may run a device operation (a libomptarget or
    /// OpenMP device call, a kernel launch, or unknown code), itself or
    /// through what it calls.
    pub opaque: Vec<bool>,
    /// Per kernel launch: (globals read, globals killed); `None`: it may
    /// read any.
    pub kernels: HashMap<Value, Option<(Vec<usize>, Vec<usize>)>>,
    /// The globals a device operation of the module may name (those whose
    /// address a function that calls libomptarget uses): the only ones a
    /// site lists as dead.
    pub mapped: Vec<usize>,
    /// Per defined function that may run a device operation and is not
    /// recursive: its device summary (the mapped globals whose device
    /// copies it may read before rewriting them, those every path through
    /// it rewrites before any read), from its own device view
    /// ([`DeviceFacts::summarize`]). A call of it reads and kills those.
    pub sums: Vec<Option<(Vec<usize>, Vec<usize>)>>,
}

impl DeviceFacts {
    /// `None` when the module launches no kernel (no device view).
    pub fn new(mf: &ModuleFacts, calls: &CallFacts, ffs: &[FuncFacts], sums: &[Summary]) -> Option<DeviceFacts> {
        let n = mf.funcs.len();
        let mut opaque = vec![false; n];
        let mut launches = Vec::new();
        let mut mapped = BitSet::new_empty(mf.globals.len());
        for (fi, f) in mf.funcs.iter().enumerate() {
            let mut device = false;
            for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
                if !(i.is_call() || i.is_invoke()) {
                    continue;
                }
                match call_kind(mf, i) {
                    CallKind::Known(Effect::Offload) => {
                        device = true;
                        if i.called_function().is_some_and(|c| c.name() == KERNEL_LAUNCH) {
                            launches.push((fi, i));
                        }
                    }
                    CallKind::Unknown | CallKind::Indirect => opaque[fi] = true,
                    _ => {}
                }
            }
            if device {
                opaque[fi] = true;
                // the globals this function may hand to the device
                for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
                    for o in i.operands().into_iter().filter(|o| o.ty().is_pointer() && !o.is_function()) {
                        for b in ffs[fi].bases(o).objs {
                            if let Obj::Global(g) = b {
                                mapped.insert(g);
                            }
                        }
                    }
                }
            }
        }
        if launches.is_empty() {
            return None;
        }
        // callers of opaque functions (calls, forks, tasks, teams regions)
        loop {
            let mut changed = false;
            for f in 0..n {
                if !opaque[f] && calls.graph.callees[f].iter().any(|&g| opaque[g]) {
                    opaque[f] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let specs = Specs::new(mf, calls);
        let mut kernels = HashMap::default();
        for (fi, k) in launches {
            let e = kernel_effects(&ffs[fi], k, sums, &specs);
            if crate::config::debug_loops() {
                let names = |v: &[usize]| v.iter().map(|&g| mf.globals[g].name()).collect::<Vec<_>>();
                match &e {
                    Some((r, w)) => eprintln!("dao-debug: kernel at {:?}: reads {:?}, kills {:?}", k.debug_loc(), names(r), names(w)),
                    None => eprintln!("dao-debug: kernel at {:?}: reads anything", k.debug_loc()),
                }
            }
            kernels.insert(k, e);
        }
        let mut df = DeviceFacts { opaque, kernels, mapped: mapped.iter().collect(), sums: vec![None; n] };
        df.summarize(mf, calls, ffs);
        Some(df)
    }

    /// Device summaries, callees first (`CallGraph::sccs_bottom_up`): for
    /// each function that may run a device operation, outside a cycle of
    /// the call graph, the two solutions of its device view's liveness
    /// over the mapped globals (`sections::entry_summary`: live at the entry
    /// when nothing is live at the exits, and not live there even when
    /// everything is). Its calls of functions summarised before use their
    /// summaries. A checkpoint inside the callee is not affected: the
    /// caller's frame lists what is dead after its call returns.
    fn summarize(&mut self, mf: &ModuleFacts, calls: &CallFacts, ffs: &[FuncFacts]) {
        let mut interest = BitSet::new_empty(mf.globals.len());
        for &g in &self.mapped {
            interest.insert(g);
        }
        for scc in calls.graph.sccs_bottom_up() {
            let &[f] = scc.as_slice() else { continue };
            if !self.opaque[f] || calls.graph.callees[f].contains(&f) {
                continue;
            }
            let body = self.own_body(mf, &ffs[f]);
            let (exposed, killed) = dao_analysis::sections::entry_summary(&body, &interest);
            if crate::config::debug_loops() {
                let names = |b: &BitSet| b.iter().map(|g| mf.globals[g].name()).collect::<Vec<_>>();
                eprintln!("dao-debug: device summary of '{}': reads {:?}, kills {:?}", mf.funcs[f].name(), names(&exposed), names(&killed));
            }
            self.sums[f] = Some((exposed.iter().collect(), killed.iter().collect()));
        }
    }

    /// The device view of function `ff` on its own blocks (a summary's;
    /// a site's is [`DeviceFacts::live`], on the host translation's).
    fn own_body(&self, mf: &ModuleFacts, ff: &FuncFacts) -> Body {
        let mut body = Body::new(mf.globals.len());
        let blocks = ff.f.blocks();
        let ix: HashMap<_, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        for _ in 0..blocks.len() {
            body.add_block();
        }
        for (bi, b) in blocks.iter().enumerate() {
            body.blocks[bi].stmts = b.instructions().into_iter().map(|i| self.stmt(ff, i)).collect();
            body.blocks[bi].succs = b.successors().iter().map(|s| ix[s]).collect();
        }
        body
    }

    /// The device view's statement of instruction `i`: a call's device
    /// effect ([`DeviceFacts::effect`]; every mapped global read when it
    /// is not known), nothing for anything else.
    fn stmt(&self, ff: &FuncFacts, i: Value) -> Stmt {
        let mut st = Stmt::default();
        if i.is_call() || i.is_invoke() {
            match self.effect(ff, i) {
                Some((uses, defs)) => {
                    st.uses = uses;
                    st.defs = defs;
                }
                None => st.uses = self.mapped.clone(),
            }
        }
        st
    }

    /// The device view of the function `t` translates (same blocks and
    /// statement positions), and its live sets.
    pub fn live(&self, ff: &FuncFacts, t: &Translated) -> (Body, LiveSets) {
        let mf = ff.mf;
        let ng = mf.globals.len();
        let mut body = Body::new(ng);
        // (the host body's blocks: the function's, then those the loop
        // kills put on edges, which hold no instruction)
        for _ in 0..t.body.blocks.len() {
            body.add_block();
        }
        for (bi, b) in ff.f.blocks().into_iter().enumerate() {
            body.blocks[bi].stmts = b.instructions().into_iter().map(|i| self.stmt(ff, i)).collect();
        }
        for (bi, hb) in t.body.blocks.iter().enumerate() {
            // (the host body's phi statement and kills at a block's end:
            // positions stay equal)
            while body.blocks[bi].stmts.len() < hb.stmts.len() {
                body.blocks[bi].stmts.push(Stmt::default());
            }
            body.blocks[bi].succs = hb.succs.clone();
        }
        let live = LiveSets::compute(&body);
        (body, live)
    }

    /// A call's device effect: (uses, kills), or `None` for "reads every
    /// mapped global".
    fn effect(&self, ff: &FuncFacts, call: Value) -> Option<(Vec<usize>, Vec<usize>)> {
        let mf = ff.mf;
        if let Some(k) = self.kernels.get(&call) {
            return k.clone();
        }
        if call.called_function().is_some_and(|c| c.name() == DATA_UPDATE) {
            return update_effect(ff, call);
        }
        let entry_opaque = |op: u32| call.num_args() <= op || mf.func_ix.get(&call.operand(op)).map_or(true, |&t| self.opaque[t]);
        match call_kind(mf, call) {
            CallKind::Known(Effect::Offload) | CallKind::Unknown | CallKind::Indirect => None,
            CallKind::Defined(g) if self.opaque[g] => self.sums[g].clone(),
            CallKind::Known(Effect::ForkCall) => match call.called_function().and_then(known::fork_microtask) {
                Some(m) if !entry_opaque(m) => Some((Vec::new(), Vec::new())),
                _ => None,
            },
            CallKind::Known(_) => match known::call_role(call) {
                Some(Role::Teams { microtask }) if entry_opaque(microtask) => None,
                Some(Role::TaskAlloc { entry, .. }) if entry_opaque(entry) => None,
                _ => Some((Vec::new(), Vec::new())),
            },
            _ => Some((Vec::new(), Vec::new())),
        }
    }
}

/// The device effect of a `target update` (`__tgt_target_data_update_mapper(loc,
/// device, n, bases, ptrs, sizes, types, names, mappers)`): a `from` entry
/// reads the device copy of what its pointer points into, a `to` entry
/// overwrites device bytes without reading them (neither a use nor, being
/// possibly partial, a kill). Only when every entry is plain `to` or `from`
/// (`present` allowed), no mapper is given, the types are a constant array
/// and each pointer is the one store of its slot of the `ptrs` array, made
/// before the call in its block; `None` (every mapped global) otherwise,
/// or when a `from` pointer may be unknown or come from a parameter.
fn update_effect(ff: &FuncFacts, call: Value) -> Option<(Vec<usize>, Vec<usize>)> {
    if call.num_args() != 9 || !call.operand(8).is_null_constant() {
        return None;
    }
    let n = call.operand(2).const_int_sext().filter(|n| (1..=64).contains(n))? as usize;
    let types = call.operand(6);
    if !types.is_global_var() || !types.is_global_constant() {
        return None;
    }
    let types = types.initializer()?;
    let ptrs = stored_pointers(call.operand(4), call, n)?;
    let mut reads = Vec::new();
    for (k, p) in ptrs.into_iter().enumerate() {
        let t = types.aggregate_element(k as u32)?.const_int_value()?;
        if t & !(MAP_TO | MAP_FROM | MAP_PRESENT) != 0 {
            return None;
        }
        if t & MAP_FROM != 0 {
            let b = ff.bases(p);
            if b.unknown || b.param {
                return None;
            }
            reads.extend(b.objs.iter().filter_map(|o| if let Obj::Global(g) = o { Some(*g) } else { None }));
        }
    }
    reads.sort_unstable();
    reads.dedup();
    Some((reads, Vec::new()))
}

/// The pointers stored in the `n` slots of the offload pointer array
/// `arr` (an alloca of this function) for `call`: each slot's one store,
/// in `call`'s block before it; the array's other users are `call`, the
/// address computations of its slots and lifetime markers.
fn stored_pointers(arr: Value, call: Value, n: usize) -> Option<Vec<Value>> {
    if !arr.is_alloca() {
        return None;
    }
    let order = call.parent_block().instructions();
    let at_call = order.iter().position(|x| *x == call)?;
    let mut slots: Vec<Option<Value>> = vec![None; n];
    let mut store = |st: Value, off: i64| -> Option<()> {
        let k = usize::try_from(off / 8).ok().filter(|&k| off % 8 == 0 && k < n)?;
        let pos = order.iter().position(|x| *x == st)?;
        if pos > at_call || slots[k].is_some() || !st.operand(0).ty().is_pointer() {
            return None;
        }
        slots[k] = Some(st.operand(0));
        Some(())
    };
    for u in arr.users() {
        match u.opcode() {
            Opcode::LLVMStore if u.operand(1) == arr && u.operand(0) != arr => store(u, 0)?,
            Opcode::LLVMGetElementPtr if u.operand(0) == arr => {
                let (b, off) = u.strip_offset()?;
                if b != arr {
                    return None;
                }
                for v in u.users() {
                    match v.opcode() {
                        Opcode::LLVMStore if v.operand(1) == u && v.operand(0) != u => store(v, off)?,
                        _ => return None,
                    }
                }
            }
            Opcode::LLVMCall if u == call || known::call_intrinsic(u) == Some(known::Intr::Lifetime) => {}
            _ => return None,
        }
    }
    slots.into_iter().collect()
}

/// The globals kernel launch `k` (of the function `ff` describes) may
/// read and those it kills, from its host fallback (module comment);
/// `None`: it may read anything.
fn kernel_effects(ff: &FuncFacts, k: Value, sums: &[Summary], specs: &Specs) -> Option<(Vec<usize>, Vec<usize>)> {
    let mf = ff.mf;
    let fallback = fallback_call(k)?;
    let global_of = |v: Value| match ff.exact_object(v) {
        Some(Obj::Global(g)) => Some(g),
        _ => None,
    };
    // the globals a pointer argument may point into (reads through it);
    // `None` when that is not known here: unknown memory, or what a
    // parameter of the launching function points to (any global a caller
    // passes: `step(w)` whose kernel reads `p[i]` reads `w`; the callers'
    // frames do not see that read, so it must be this frame's)
    let arg_globals = |a: Value, out: &mut Vec<usize>| -> Option<()> {
        let b = ff.bases(a);
        if b.unknown || b.param {
            return None;
        }
        out.extend(b.objs.iter().filter_map(|o| match o {
            Obj::Global(g) => Some(*g),
            Obj::Alloca(_) => None,
        }));
        Some(())
    };
    let mut reads = Vec::new();
    let mut kills = Vec::new();
    match known::call_role(fallback) {
        // -O2: the fallback inlined, its teams region forked here
        Some(Role::Teams { microtask }) => {
            let t = *mf.func_ix.get(&fallback.operand(microtask))?;
            let s = &sums[t];
            if s.reads_unknown {
                return None;
            }
            reads.extend(s.globals.iter());
            let first = microtask + 1;
            let tf = mf.funcs[t];
            let tparams = tf.params();
            let shape = teams_shape(mf, tf);
            // per argument: the write-only parameter of M it reaches, if any
            let mut writes: Vec<(u32, usize)> = Vec::new();
            for kk in first..fallback.num_args() {
                let a = fallback.operand(kk);
                if !a.ty().is_pointer() {
                    continue;
                }
                let p = tparams.get((2 + kk - first) as usize).copied();
                let wo = match (&shape, p) {
                    (Some(sh), Some(p)) => write_only_through(p, sh),
                    _ => None,
                };
                if crate::config::debug_loops() {
                    eprintln!("dao-debug: kernel argument {kk}: write-only parameter {wo:?}, object {:?}", global_of(a).map(|g| mf.object_name(g)));
                }
                match (wo, global_of(a)) {
                    (Some(q), Some(g)) => writes.push((q, g)),
                    _ => arg_globals(a, &mut reads)?,
                }
            }
            // a global also passed to a parameter that may read it is read
            writes.retain(|(_, g)| !reads.contains(g));
            if crate::config::debug_loops() {
                eprintln!("dao-debug: kernel's teams region '{}': shape {}, write-only arguments {}, its summary reads {:?}", tf.name(), if shape.is_some() { "recognised" } else { "not recognised" }, writes.len(), s.globals.iter().map(|g| mf.object_name(g)).collect::<Vec<_>>());
            }
            if let (Some(sh), false) = (&shape, writes.is_empty()) {
                let mut bind: Vec<crate::func_facts::Bind> = writes.iter().map(|&(q, g)| (q, -1, g)).collect();
                bind.push((sh.lb_param, CONST_ARG, sh.l0 as usize));
                bind.push((sh.ub_param, CONST_ARG, sh.u0 as usize));
                if let Some(sm) = specs.summary(sh.m, bind, sums) {
                    kills.extend(writes.iter().map(|&(_, g)| g).filter(|&g| sm.kills.contains(g)));
                }
            }
        }
        // -O2, `target parallel for`: the fallback inlined, its parallel
        // region `M` forked here, whose static worksharing loop runs over
        // the whole iteration space (the team together writes what `M`
        // writes: its team summary)
        Some(Role::Fork { microtask }) => {
            // (a `target` region with code around its `parallel for` would
            // leave that code in this block or after it: only the fork and
            // the branch to where the launched kernel continues are taken)
            if !fork_alone(k, fallback) {
                return None;
            }
            let m = *mf.func_ix.get(&fallback.operand(microtask))?;
            let s = &sums[m];
            if s.reads_unknown {
                return None;
            }
            reads.extend(s.globals.iter());
            let mparams = mf.funcs[m].params();
            let mut writes: Vec<(u32, usize)> = Vec::new();
            for kk in (microtask + 1)..fallback.num_args() {
                let a = fallback.operand(kk);
                if !a.ty().is_pointer() {
                    continue;
                }
                let q = 2 + kk - (microtask + 1);
                let wo = mparams.get(q as usize).is_some_and(|p| crate::provenance::write_only(*p, 0));
                match (wo, global_of(a)) {
                    (true, Some(g)) => writes.push((q, g)),
                    _ => arg_globals(a, &mut reads)?,
                }
            }
            writes.retain(|(_, g)| !reads.contains(g));
            if !writes.is_empty() {
                let bind: Vec<crate::func_facts::Bind> = writes.iter().map(|&(q, g)| (q, -1, g)).collect();
                if let Some(sm) = specs.summary(m, bind, sums) {
                    kills.extend(writes.iter().map(|&(_, g)| g).filter(|&g| sm.kills.contains(g)));
                }
            }
        }
        // -O0 (and other shapes): the fallback function called directly
        _ => {
            let g = *mf.func_ix.get(&fallback.called_function()?)?;
            let s = &sums[g];
            if s.reads_unknown {
                return None;
            }
            reads.extend(s.globals.iter());
            for a in fallback.args().into_iter().filter(|a| a.ty().is_pointer()) {
                arg_globals(a, &mut reads)?;
            }
        }
    }
    reads.sort_unstable();
    reads.dedup();
    kills.sort_unstable();
    kills.dedup();
    Some((reads, kills))
}

/// Whether the block of fork `fallback` holds nothing but it, lifetime and
/// debug intrinsics, and an unconditional branch to the block the launch
/// `k` continues at when the kernel ran (the other successor of its test).
fn fork_alone(k: Value, fallback: Value) -> bool {
    let fb = fallback.parent_block();
    let insts = fb.instructions();
    let Some(term) = insts.last().copied() else { return false };
    if term.opcode() != Opcode::LLVMBr || term.num_operands() != 1 {
        return false;
    }
    let join = fb.successors();
    let launched = k.parent_block().successors();
    if join.len() != 1 || launched.len() != 2 || !launched.contains(&join[0]) || !launched.contains(&fb) {
        return false;
    }
    insts.iter().all(|&i| i == fallback || i == term || matches!(known::call_intrinsic(i), Some(known::Intr::Lifetime | known::Intr::NoMem)))
}

/// The host fallback of kernel launch `k`: the first call of a defined
/// `__omp_offloading_*` function, of `__kmpc_fork_teams` or of
/// `__kmpc_fork_call` (`target parallel for`) in the block the launch's
/// failure branch (`rc != 0`) goes to.
fn fallback_call(k: Value) -> Option<Value> {
    for u in k.users() {
        if u.opcode() != Opcode::LLVMICmp || !(u.operand(0) == k && u.operand(1).const_int_sext() == Some(0)) {
            continue;
        }
        use llvm_sys::LLVMIntPredicate::*;
        let fail_ix = match u.icmp_predicate()? {
            LLVMIntEQ => 1,
            LLVMIntNE => 0,
            _ => continue,
        };
        for br in u.users() {
            if br.opcode() != Opcode::LLVMBr || br.num_operands() != 3 {
                continue;
            }
            let succ = br.parent_block().successors();
            let fb = *succ.get(fail_ix)?;
            return fb.instructions().into_iter().find(|i| {
                i.is_call()
                    && (matches!(known::call_role(*i), Some(Role::Teams { .. }))
                        || i.called_function().and_then(known::fork_microtask).is_some()
                        || i.called_function().is_some_and(|c| !c.is_declaration() && c.name().starts_with("__omp_offloading_")))
            });
        }
    }
    None
}

/// The teams region of a combined `target teams distribute parallel for`:
/// its parallel region `m` (a function index), the parameters of `m` that
/// receive the chunk's bounds, and the `distribute` loop's whole range.
struct TeamsShape {
    m: usize,
    lb_param: u32,
    ub_param: u32,
    l0: i64,
    u0: i64,
    /// The fork of `m` in the teams region.
    fork: Value,
    /// `m`'s parameters.
    m_params: Vec<Value>,
}

/// `T`'s shape (module comment), or `None`: one `distribute` static init
/// (schedule 92) whose lower and upper bound slots get one constant each
/// before it, and one fork of a parallel region whose first two arguments
/// come from those slots only (loads, casts, `smin` with a constant, phis).
fn teams_shape(mf: &ModuleFacts, t: Value) -> Option<TeamsShape> {
    let insts: Vec<Value> = t.blocks().into_iter().flat_map(|b| b.instructions()).collect();
    let inits: Vec<Value> = insts.iter().copied().filter(|i| i.is_call() && known::call_role(*i) == Some(Role::StaticInit)).collect();
    let forks: Vec<Value> = insts.iter().copied().filter(|i| i.is_call() && call_kind(mf, *i) == CallKind::Known(Effect::ForkCall)).collect();
    let ([init], [fork]) = (&inits[..], &forks[..]) else { return None };
    // __kmpc_for_static_init_4(ident, gtid, schedule, &last, &lb, &ub, &stride, incr, chunk)
    if init.num_args() < 6 || init.operand(2).const_int_sext() != Some(DISTRIBUTE_STATIC) {
        return None;
    }
    let (lb, ub) = (init.operand(4), init.operand(5));
    if !lb.is_alloca() || !ub.is_alloca() {
        return None;
    }
    let l0 = stored_constant(lb, *init)?;
    let u0 = stored_constant(ub, *init)?;
    let mt = fork.called_function().and_then(known::fork_microtask)?;
    let m = *mf.func_ix.get(&fork.operand(mt))?;
    let first = mt + 1;
    if fork.num_args() < first + 2 {
        return None;
    }
    let (a0, a1) = (fork.operand(first), fork.operand(first + 1));
    let range = (l0, u0);
    if !from_slot(a0, lb, false, range, 0) || !from_slot(a1, ub, true, range, 0) || !slot_stores_ok(lb, *init, false, range) || !slot_stores_ok(ub, *init, true, range) {
        return None;
    }
    let m_params = mf.funcs[m].params();
    // (M's parameters: gtid, btid, then the fork's arguments)
    let (lb_param, ub_param) = (2u32, 3u32);
    if m_params.len() < 4 || m_params[2].ty().int_width().is_none() || m_params[3].ty().int_width().is_none() {
        return None;
    }
    Some(TeamsShape { m, lb_param, ub_param, l0, u0, fork: *fork, m_params })
}

/// The one constant stored to stack slot `slot` before `init` in its
/// block, when every other user of the slot is a load, `init` itself, a
/// lifetime marker, or a store after `init` (the clamp of the bound).
fn stored_constant(slot: Value, init: Value) -> Option<i64> {
    let mut value = None;
    let block = init.parent_block();
    let order: Vec<Value> = block.instructions();
    let pos = |i: Value| order.iter().position(|x| *x == i);
    let at_init = pos(init)?;
    for u in slot.users() {
        match u.opcode() {
            Opcode::LLVMLoad => {}
            Opcode::LLVMStore if u.operand(1) == slot => {
                match (pos(u), u.operand(0).const_int_sext()) {
                    (Some(p), Some(c)) if p < at_init => {
                        if value.is_some_and(|v| v != c) {
                            return None;
                        }
                        value = Some(c);
                    }
                    // the clamp `ub = smin(ub, U0)` after the init
                    (Some(p), _) if p > at_init => {}
                    _ => return None,
                }
            }
            Opcode::LLVMCall if u == init || known::call_intrinsic(u) == Some(known::Intr::Lifetime) => {}
            _ => return None,
        }
    }
    value
}

/// Whether `v` is one of the bounds of a chunk the `distribute` init put
/// in `slot`: a load of the slot, through casts and phis, and a clamp of
/// it that cannot narrow the whole range `[l0, u0]` (`smin` with a
/// constant at least `u0` for the upper bound, `smax` with one at most
/// `l0` for the lower).
fn from_slot(v: Value, slot: Value, upper: bool, (l0, u0): (i64, i64), depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    let rec = |x: Value| from_slot(x, slot, upper, (l0, u0), depth + 1);
    match v.opcode() {
        Opcode::LLVMLoad => v.operand(0) == slot,
        Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc => rec(v.operand(0)),
        Opcode::LLVMPHI => (0..v.incoming_count()).all(|k| rec(v.operand(k))),
        Opcode::LLVMCall => {
            let n = v.called_function().map(|c| c.name()).unwrap_or_default();
            let clamp = |c: i64| if upper { n.starts_with("llvm.smin.") && c >= u0 } else { n.starts_with("llvm.smax.") && c <= l0 };
            v.num_args() == 2 && {
                let (x, y) = (v.operand(0), v.operand(1));
                (rec(x) && y.const_int_sext().is_some_and(clamp)) || (rec(y) && x.const_int_sext().is_some_and(clamp))
            }
        }
        _ => false,
    }
}

/// Whether every store to `slot` after `init` stores a bound of the chunk
/// ([`from_slot`]: the clamp `ub = smin(ub, U0)`).
fn slot_stores_ok(slot: Value, init: Value, upper: bool, range: (i64, i64)) -> bool {
    let order = init.parent_block().instructions();
    let at_init = order.iter().position(|x| *x == init);
    slot.users().into_iter().filter(|u| u.opcode() == Opcode::LLVMStore && u.operand(1) == slot).all(|st| {
        let before = match (order.iter().position(|x| *x == st), at_init) {
            (Some(p), Some(i)) => p < i,
            _ => false,
        };
        before || from_slot(st.operand(0), slot, upper, range, 0)
    })
}

/// When parameter `p` of the teams region is used only as an argument of
/// its fork of `M` (`sh.fork`), and `M` only writes through the parameter
/// it becomes there: that parameter's index.
fn write_only_through(p: Value, sh: &TeamsShape) -> Option<u32> {
    let mt = sh.fork.called_function().and_then(known::fork_microtask)?;
    let mut q = None;
    for u in p.users() {
        if u != sh.fork {
            return None;
        }
        for k in (mt + 1)..u.num_args() {
            if u.operand(k) == p {
                if q.is_some() {
                    return None;
                }
                q = Some(2 + k - (mt + 1));
            }
        }
    }
    let q = q?;
    crate::provenance::write_only(*sh.m_params.get(q as usize)?, 0).then_some(q)
}
