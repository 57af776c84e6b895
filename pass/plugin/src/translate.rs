//! The LLVM front: translates a function's IR into the pure analyses'
//! terms, a [`Body`] of statements.
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
//!   that may be read, at its entry edge (`loop_kills.rs`). Partial
//!   writes neither use nor kill.
//! - Calls use what their callee may read before writing it whole, and kill
//!   what it writes whole before reading (the interprocedural summary of a
//!   defined callee, `summaries::refine_summaries`), the table entry of a known
//!   external one (`known.rs`), and everything escaped for unknown and
//!   indirect callees.
//!
//! The facts the translation rests on are in `provenance.rs` (objects and
//! pointer walks), `facts.rs` (the module) and `func_facts.rs` (pointer
//! bases per function).
use crate::facts::{call_kind, CallKind, Summary};
use crate::func_facts::{FuncFacts, Spec};
use crate::ir::{Opcode, Value};
use crate::known::{self, Effect, Intr, Role};
use crate::loop_kills::{add_loop_kills, LoopKill};
use crate::provenance::Obj;
use crate::varmap::{StmtPos, VarMap};
use dao_analysis::{BitSet, Body, Stmt};
use dao_analysis::fxhash::HashMap;

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

/// Memory reads of one access through pointer `p`, as variables.
pub fn mem_uses(ff: &FuncFacts, vars: &VarMap, p: Value, out: &mut Vec<usize>) {
    let b = ff.bases(p);
    for o in &b.objs {
        out.push(match *o {
            Obj::Alloca(i) => vars.alloca_var(i),
            Obj::Global(g) => vars.global_var(g),
        });
        if let Obj::Global(g) = *o {
            out.extend(ff.mf.cond.boxes_of(g).into_iter().map(|x| vars.global_var(x)));
        }
    }
    if b.unknown {
        unknown_uses(ff, vars, out);
    }
}

/// The reads of load `inst`: [`mem_uses`], less (world 1) the write boxes
/// its read box never touches under their conditions (`cond::read_apart`).
pub fn load_uses(ff: &FuncFacts, vars: &VarMap, inst: Value, out: &mut Vec<usize>) {
    let from = out.len();
    mem_uses(ff, vars, inst.operand(0), out);
    if !ff.mf.cond.world1.get() || !out[from..].iter().any(|&v| v >= vars.global_var(ff.mf.globals.len())) {
        return;
    }
    let lf = ff.loop_facts();
    let Some(k) = lf.read_insts.iter().position(|i| *i == Some(inst)) else { return };
    // (the box is relative to this global: only its write boxes can be
    // found apart from it)
    let (Some(&g), Some(rb)) = (ff.mf.global_ix.get(&lf.reads[k].0), lf.reads[k].1.as_ref()) else { return };
    let mut keep = out[..from].to_vec();
    for &v in &out[from..] {
        let x = v.wrapping_sub(vars.global_var(0));
        if !(v >= vars.global_var(ff.mf.globals.len()) && ff.mf.cond.read_apart(x, g, rb, &ff.mf.global_ix)) {
            if crate::config::debug_loops() && v >= vars.global_var(ff.mf.globals.len()) {
                let at = ff.mf.cond.box_loops().get(x.wrapping_sub(ff.mf.globals.len())).map(|b| b.2.start);
                eprintln!("dao-debug: read in '{}' at {:?} uses box object {x} (at {at:?}): {:?}", ff.f.name(), inst.debug_loc(), rb);
            }
            keep.push(v);
        }
    }
    *out = keep;
}

/// A read of memory the pass cannot name: it may be any escaped stack
/// object of the function, any escaped global of this module (each one a
/// use of its own, so a must-write before the read still kills it: ABI
/// version 8), or memory of other modules and the heap (the unknown
/// variable, whose runtime meaning is "save the escaped globals of the
/// other modules").
pub fn unknown_uses(ff: &FuncFacts, vars: &VarMap, out: &mut Vec<usize>) {
    out.push(vars.unknown_var());
    for (i, esc) in ff.alloca_escaped.iter().enumerate() {
        if *esc {
            out.push(vars.alloca_var(i));
        }
    }
    for (g, esc) in ff.mf.global_escaped.iter().enumerate() {
        if *esc {
            out.push(vars.global_var(g));
            out.extend(ff.mf.cond.boxes_of(g).into_iter().map(|x| vars.global_var(x)));
        }
    }
}

/// What a call reads, given callee summaries (`None` while computing the
/// local summaries themselves: then defined callees add nothing here).
pub fn call_uses(ff: &FuncFacts, vars: &VarMap, call: Value, sums: Option<&[Summary]>, out: &mut Vec<usize>) {
    let mf = ff.mf;
    // An explicit task (`__kmpc_omp_task_alloc` names its entry): its body
    // reads, as of the task's creation, what its entry's summary says (it
    // runs at some later time, by the end of the region at the latest, so
    // nothing it reads may be dead at a position before the creation);
    // an entry not defined here reads anything. It kills nothing
    // (call_kills): when it writes is not known.
    // A host `teams` region (`__kmpc_fork_teams`) runs its outlined
    // function within the call, once per team: it reads what that
    // function's summary says (not specialised: the shared variables it
    // receives by pointer are the call's own pointer arguments, read below
    // as a known call's) and kills nothing here (the summary of an
    // outlined function is its team's; several teams split the iteration
    // space among them, which no summary describes).
    let entry_of = match known::call_role(call) {
        Some(Role::TaskAlloc { entry, .. }) => Some(entry),
        Some(Role::Teams { microtask }) => Some(microtask),
        _ => None,
    };
    if let Some(entry) = entry_of {
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
        CallKind::Known(Effect::ReturnsTwice | Effect::Marker(_) | Effect::Intrinsic | Effect::Offload) | CallKind::Unknown | CallKind::Indirect => {
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
pub fn uncovered_arg_uses(ff: &FuncFacts, vars: &VarMap, call: Value, spec: Option<&Spec>, out: &mut Vec<usize>) {
    // the callee's parameter each argument arrives in (a fork's outlined
    // function takes the thread ids first)
    let (callee, first, param0) = match known::call_role(call) {
        Some(Role::Fork { microtask }) => (Some(call.operand(microtask)), microtask as usize + 1, 2),
        _ => (call.called_function().filter(|f| !f.is_declaration()), 0, 0),
    };
    let params = callee.filter(|f| f.is_function() && !f.is_declaration()).map(|f| f.params()).unwrap_or_default();
    for (k, a) in call.args().into_iter().enumerate() {
        if a.ty().is_pointer() && !spec.is_some_and(|sp| sp.covered_args.contains(&k)) {
            // a parameter the callee only stores through reads nothing
            // (heap objects arrive in parameters by name: issue #35, the
            // kernels' output arrays)
            if k >= first && params.get(k - first + param0).is_some_and(|p| crate::provenance::write_only(*p, 0)) {
                continue;
            }
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
pub fn call_kills(
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

pub fn summary_uses(s: &Summary, vars: &VarMap, ff: &FuncFacts, out: &mut Vec<usize>) {
    for g in s.globals.iter() {
        out.push(vars.global_var(g));
    }
    if s.reads_unknown {
        unknown_uses(ff, vars, out);
    }
}

/// Kills of a store-like write of `len` bytes at `p`.
pub fn write_kill(ff: &FuncFacts, vars: &VarMap, p: Value, len: Option<u64>, out: &mut Vec<usize>) {
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
    crate::timing::phase("translate", || translate_impl(ff, sums))
}

fn translate_impl(ff: &FuncFacts, sums: Option<&[Summary]>) -> Translated {
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
    let vars = VarMap { ssa, ssa_ix, n_allocas: ff.allocas.len(), n_globals: ff.mf.n_objs() };
    let mut body = Body::new(vars.num_vars());
    let mut pos = HashMap::default();
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
                Opcode::LLVMLoad => load_uses(ff, &vars, inst, &mut st.uses),
                Opcode::LLVMStore => {
                    let len = m.store_size(inst.operand(0).ty());
                    write_kill(ff, &vars, inst.operand(1), Some(len), &mut st.defs);
                }
                Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => mem_uses(ff, &vars, inst.operand(0), &mut st.uses),
                Opcode::LLVMVAArg => unknown_uses(ff, &vars, &mut st.uses),
                // an invoke (C++) is a call: what it reads and kills
                // happens before either of its edges
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
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
            st.uses.extend(ff.mf.cond.fake_uses(inst, &ff.mf.func_ix, |p| ff.global_bases(p)).into_iter().map(|g| vars.global_var(g)));
            // a statement's own result is not read by it
            body.blocks[bi].stmts.push(st);
        }
        let succs = b.successors();
        // (a callee analysed for one call: a branch on an argument that is
        // a constant there goes one way, `FuncFacts::decided_successor`)
        body.blocks[bi].succs = match b.terminator().and_then(|t| ff.decided_successor(t)) {
            Some(k) if k < succs.len() => vec![block_ix[&succs[k]]],
            _ => succs.iter().map(|s| block_ix[s]).collect(),
        };
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

/// The local read summary of a function (callees not included yet).
pub fn local_summary(ff: &FuncFacts) -> Summary {
    let t = translate(ff, None);
    let mut s = Summary {
        globals: BitSet::new_empty(ff.mf.n_objs()),
        reads_unknown: false,
        kills: BitSet::new_empty(ff.mf.n_objs()),
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
