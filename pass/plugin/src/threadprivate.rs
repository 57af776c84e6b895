//! flang's threadprivate variables (`__kmpc_threadprivate_cached`): which
//! the module reaches, and whether a region may read a worker's copy
//! before writing it whole (then the workers' copies are saved too).
use crate::facts::{ModuleFacts, Summary};
use crate::func_facts::FuncFacts;
use crate::ir::Value;
use crate::known::{self, Role};
use crate::plan::TpVar;
use crate::translate::translate;
use dao_analysis::liveness::LiveSets;
use dao_analysis::paths::CallFacts;
use dao_analysis::fxhash::HashSet;

/// The threadprivate variables of flang's `__kmpc_threadprivate_cached`
/// calls, with whether a worker's copy may carry a value into a later
/// parallel region: whether some region may read it before writing it
/// whole. The roots are the code a region may start with: the outlined
/// functions, and any function another module may call (except the
/// program's entry points). A root reads the variable first when it is live
/// at the root's entry (the liveness with the callees' read summaries, a
/// whole write through the thread's own copy pointer killing it), or when
/// the root reads unknown memory and a copy pointer taken in code that may
/// run in a region escapes (stored, passed on), so that unknown memory may
/// be a worker's copy. (The master's copy pointer that flang stores into a
/// region's argument struct for `copyin` is taken in serial code: reading
/// it reads the master's copy, never a worker's.)
pub fn threadprivate_vars(facts: &ModuleFacts, calls: &CallFacts, main: Option<Value>, ffs: &[FuncFacts], sums: &[Summary]) -> Vec<TpVar> {
    let n = facts.funcs.len();
    let roots: Vec<bool> = (0..n)
        .map(|f| {
            let fv = facts.funcs[f];
            let entry = Some(fv) == main || fv.name() == known::names::FORTRAN_MAIN;
            calls.microtask[f] || (!fv.is_local_linkage() && !entry)
        })
        .collect();
    let in_region = calls.graph.reachable_from(&roots, &vec![false; n]);
    // copy pointers taken in region code that escape, by variable
    let mut escaping: HashSet<Value> = HashSet::default();
    for (fi, f) in facts.funcs.iter().enumerate() {
        if !in_region[fi] {
            continue;
        }
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if let Some(Role::ThreadprivateCached { data, .. }) = known::call_role(i) {
                if crate::provenance::escapes(i) {
                    escaping.insert(i.operand(data));
                }
            }
        }
    }
    // variables live at a root's entry; whether a root reads unknown memory.
    // Only roots that reach a threadprivate access, or read unknown memory,
    // can tell anything: the others are not analysed (every Fortran
    // subroutine is a root)
    let uses_tp: Vec<bool> = facts
        .funcs
        .iter()
        .map(|f| f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| matches!(known::call_role(i), Some(Role::ThreadprivateCached { .. }))))
        .collect();
    let reaches_tp = calls.graph.may_reach(&uses_tp);
    let mut first_read: HashSet<usize> = HashSet::default();
    let mut unknown_first = false;
    for (fi, ff) in ffs.iter().enumerate() {
        if !roots[fi] || !(reaches_tp[fi] || sums[fi].reads_unknown) {
            continue;
        }
        let t = translate(ff, Some(sums));
        let live = LiveSets::compute(&t.body);
        let at_entry = live.live_in(t.body.entry());
        for v in at_entry.iter() {
            if v >= t.vars.global_var(0) && v < t.vars.unknown_var() {
                first_read.insert(v - t.vars.global_var(0));
            } else if v == t.vars.unknown_var() {
                unknown_first = true;
            }
        }
    }
    let carries = |d: Value| -> bool {
        facts.global_ix.get(&d).map_or(true, |g| first_read.contains(g)) || (unknown_first && escaping.contains(&d))
    };
    let mut out: Vec<TpVar> = Vec::new();
    for (fi, f) in facts.funcs.iter().enumerate() {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            let Some(Role::ThreadprivateCached { data, size, .. }) = known::call_role(i) else { continue };
            let d = i.operand(data);
            if !d.is_global_var() {
                continue; // the runtime learns it at its first use (conservatively in a region)
            }
            let size = i.operand(size).const_int_value().unwrap_or(0);
            let carried = in_region[fi] && carries(d);
            match out.iter_mut().find(|t| t.data == d) {
                Some(t) => {
                    t.in_region |= carried;
                    t.size = t.size.max(size);
                }
                None => out.push(TpVar { data: d, size, in_region: carried }),
            }
        }
    }
    out
}
