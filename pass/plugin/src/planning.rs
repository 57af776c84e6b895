//! Making the plan (`plan.rs`): everything the pass will do to a module,
//! decided before the IR is touched. Which functions lie on a path to a
//! marker, which call sites and markers get labels, what is live at each,
//! and every diagnostic. If the plan has an error, the module is left
//! exactly as it was.
//!
//! Participation: a module with markers, or one that defines `main`, is
//! instrumented; calls in it to unknown external functions may reach a
//! marker in another translation unit, so they are labelled too. Any other
//! module only has its heap calls routed to the dao heap (see design.md:
//! blocks allocated there may be reachable from checkpointed data).
//!
//! [`plan_module`] runs the phases; each lives in its own file (see its
//! doc comment).
use crate::config;
use crate::exported::exported_state;
use crate::facts::{ModuleFacts, Summary};
use crate::func_facts::FuncFacts;
use crate::ir::Module;
use crate::known::{self, Role};
use crate::offload::host_diags;
use crate::plan::{ModulePlan, SectionReport};
use crate::scan::scan_calls;
use crate::sites::Planner;
use crate::summaries::{locals_needed, refine_summaries};
use crate::threadprivate::threadprivate_vars;
use crate::translate::local_summary;
use dao_analysis::fxhash::HashMap;
use dao_analysis::paths;

/// Plan module `m`, in phases:
/// 1. facts: [`ModuleFacts`] (globals, functions) and [`scan_calls`] (the
///    call graph with forks, markers, unknown calls, OpenMP constructs);
/// 2. reachability and participation: `dao_analysis::paths` (which
///    functions lie on a marker path, which may run in a marker region);
/// 3. per-function facts and interprocedural read summaries;
/// 4. module-level construct checks ([`Planner::construct_diags`]: tasks,
///    dynamic loops, nested regions);
/// 5. per function on a path ([`Planner::plan_function`]): its diagnostics,
///    its sites and what is live at each, the construct checks of its
///    sites.
pub fn plan_module(m: Module) -> ModulePlan {
    let mut plan = plan_checkpoints(m);
    plan.diags.extend(host_diags(m));
    let (replicas, why_not) = crate::replica::plan(m);
    plan.replicas = replicas;
    if config::remarks() {
        plan.diags.extend(why_not);
    }
    plan
}

/// The local (may-read) summaries of the functions `needed` marks
/// ([`locals_needed`]); an empty one for the others, which the refinement
/// replaces before any use.
fn local_summaries(ffs: &[FuncFacts], needed: &[bool]) -> Vec<Summary> {
    ffs.iter().zip(needed).map(|(ff, &n)| if n { local_summary(ff) } else { Summary::empty(ff.mf.n_objs()) }).collect()
}

fn plan_checkpoints(m: Module) -> ModulePlan {
    let facts = crate::timing::phase("module facts", || ModuleFacts::new(m));
    let scan = crate::timing::phase("scan", || scan_calls(&facts));
    let main = m.function(known::names::MAIN).filter(|f| !f.is_declaration());
    let participates = paths::participates(&scan.calls, main.is_some());
    let has_tp = facts.funcs.iter().any(|f| f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| matches!(known::call_role(i), Some(Role::ThreadprivateCached { .. }))));
    if !participates && !has_tp && facts.globals.is_empty() {
        return ModulePlan { facts, funcs: vec![], diags: vec![], participates, main, conservative_sites: 0, moves: vec![], tp: vec![], sections: SectionReport::default(), replicas: vec![], master_only: vec![], exported: vec![], to_heap: vec![] };
    }
    // Per-function facts (stack objects, escapes, pointer bases), built once
    // and shared by the summaries and the live sets below.
    let ffs: Vec<FuncFacts> = crate::timing::phase("function facts", || facts.funcs.iter().map(|f| FuncFacts::new(&facts, *f)).collect());
    // the globals a runtime-checked condition may read (before any loop
    // facts: the shim takes each function's stable ones)
    let paths = paths::marker_paths(&scan.calls, main.map(|mf| facts.func_ix[&mf]));
    if config::sections() && participates {
        crate::timing::phase("conditions' globals", || {
            facts.cond.setup(&facts.globals, &facts.global_declared, facts.heap_from, &facts.funcs, &scan.calls.graph, |fi, p| ffs[fi].global_bases(p));
            facts.cond.set_frozen(&facts.funcs, &facts.func_ix, &paths.on_path, |fi, p| ffs[fi].global_bases(p));
        });
    }
    // Interprocedural read summaries.
    // what any code may read of each global (the loop facts of every
    // function), before any kill is decided
    let sections = config::sections();
    if sections {
        let reads: Vec<_> = crate::timing::phase("loop facts", || ffs.iter().flat_map(|ff| ff.loop_facts().reads.iter().cloned()).collect());
        if config::debug_loops() {
            for ff in &ffs {
                let lf = ff.loop_facts();
                for (k, (g, b)) in lf.reads.iter().enumerate() {
                    if b.is_none() {
                        eprintln!("dao-debug: a read of {} with no box in '{}' at {:?}", g.name(), ff.f.name(), lf.read_insts.get(k).copied().flatten().and_then(|i| i.debug_loc()));
                    }
                }
            }
        }
        let arg_reads: Vec<_> = ffs.iter().map(|ff| (ff.f, &ff.loop_facts().arg_reads[..])).collect();
        facts.set_readable(&reads, &arg_reads);
    }
    let needed = if sections { locals_needed(&facts, &scan.calls) } else { vec![true; ffs.len()] };
    let locals: Vec<Summary> = crate::timing::phase("local summaries", || local_summaries(&ffs, &needed));
    let sums = scan.calls.graph.summarize(locals, |a, b| a.join(b));
    let (sums, specialised, mut translated) = if sections { crate::timing::phase("summaries, world 0", || refine_summaries(&facts, &scan.calls, &ffs, sums, &paths.on_path)) } else { (sums, 0, Vec::new()) };
    let tp = if has_tp { threadprivate_vars(&facts, &scan.calls, main, &ffs, &sums) } else { vec![] };
    let exported = exported_state(&facts, &sums);
    if !participates {
        drop(ffs);
        return ModulePlan { facts, funcs: vec![], diags: vec![], participates, main, conservative_sites: 0, moves: vec![], tp, sections: SectionReport::default(), replicas: vec![], master_only: vec![], exported, to_heap: vec![] };
    }
    // the device view (issue #35), in a module that launches kernels
    let device = if sections { crate::timing::phase("device view", || crate::device::DeviceFacts::new(&facts, &scan.calls, &ffs, &sums)) } else { None };
    let mut p = Planner { facts: &facts, calls: &scan.calls, paths: &paths, diags: Vec::new(), moves: Vec::new(), master_only: Vec::new(), conservative: 0, sections: SectionReport::default(), device: device.as_ref(), to_heap: Vec::new(), hold: Default::default() };
    p.construct_diags(&scan);
    let mut funcs = Vec::new();
    for (fi, ff) in ffs.iter().enumerate() {
        if paths.on_path[fi] {
            let t = translated.get_mut(fi).and_then(Option::take);
            funcs.push(crate::timing::phase("sites, world 0", || p.plan_function(fi, ff, &sums, t)));
        }
    }
    let Planner { diags, moves, master_only, conservative, mut sections, to_heap, hold, .. } = p;
    sections.specialised = specialised;
    // World 1 of the runtime-checked conditions (`cond.rs`): the same
    // plan with the conditional kills as kills and writes of their
    // globals as uses of what they kill. A global live at a site in world
    // 0 but not in world 1 is dead there when its conditions hold.
    if facts.cond.any() {
        let mut rank: HashMap<crate::ir::Block, (usize, usize)> = HashMap::default();
        for (fi, f) in facts.funcs.iter().enumerate() {
            for (bi, b) in f.blocks().into_iter().enumerate() {
                rank.insert(b, (fi, bi));
            }
        }
        facts.cond.order_boxes(|b| rank.get(&b).copied().unwrap_or((usize::MAX, usize::MAX)));
        facts.cond.world1.set(true);
        let locals: Vec<Summary> = crate::timing::phase("local summaries, world 1", || local_summaries(&ffs, &needed));
        let sums1 = scan.calls.graph.summarize(locals, |a, b| a.join(b));
        let (sums1, _, mut translated1) = crate::timing::phase("summaries, world 1", || refine_summaries(&facts, &scan.calls, &ffs, sums1, &paths.on_path));
        // (no device view: world 1 gives the sites only their conditional
        // kills; the device copies dead at a site are world 0's)
        let mut p1 = Planner { facts: &facts, calls: &scan.calls, paths: &paths, diags: Vec::new(), moves: Vec::new(), master_only: Vec::new(), conservative: 0, sections: SectionReport::default(), device: None, to_heap: Vec::new(), hold: hold.clone() };
        let mut k = 0;
        let of_object = facts.cond.of_object();
        let boxes = facts.cond.boxes();
        for (fi, ff) in ffs.iter().enumerate() {
            if !paths.on_path[fi] {
                continue;
            }
            let t1 = translated1.get_mut(fi).and_then(Option::take);
            let fp1 = crate::timing::phase("sites, world 1", || p1.plan_function(fi, ff, &sums1, t1));
            let fp = &mut funcs[k];
            k += 1;
            for (s0, s1) in fp.sites.iter_mut().zip(fp1.sites.iter()) {
                let (cdead, keep): (Vec<usize>, Vec<usize>) = s0.globals.iter().partition(|g| !s1.globals.contains(g) && of_object.contains_key(g));
                if !cdead.is_empty() {
                    sections.cond_sites += 1;
                }
                s0.globals = keep;
                // what rewrites each first when its conditions hold: world
                // 1's words (`dao inspect` shows them for the ones left out)
                for g in &cdead {
                    if let Some(d) = s1.dead.iter().find(|d| d.0 == *g) {
                        if !s0.dead.iter().any(|x| x.0 == *g) {
                            s0.dead.push(d.clone());
                        }
                    }
                }
                s0.cdead = cdead;
                // boxes of kept globals, dead in world 1
                let ng = facts.globals.len();
                s0.cboxes = boxes.iter().enumerate().filter(|(k, (b, _))| s0.globals.contains(&b.object) && !s1.boxes_live.contains(&(ng + k))).map(|(k, _)| k).collect();
                if !s0.cboxes.is_empty() {
                    sections.box_sites += 1;
                }
            }
        }
        facts.cond.world1.set(false);
        sections.cond_loops = facts.cond.loops();
        sections.boxes = facts.cond.box_loops();
        let mut conds: Vec<_> = of_object.into_iter().collect();
        conds.sort();
        sections.conds = conds;
    }
    for (fi, s) in sums.iter().enumerate() {
        if !s.kills.is_empty() {
            sections.calls.push((facts.funcs[fi].name(), s.kills.iter().collect()));
        }
        if !s.partial.is_empty() {
            sections.calls_partial.push((
                facts.funcs[fi].name(),
                s.partial.iter().map(|(g, w)| (*g, w.bytes())).collect(),
            ));
        }
    }
    drop(ffs);
    ModulePlan { facts, funcs, diags, participates, main, conservative_sites: conservative, moves, tp, sections, replicas: vec![], master_only, exported, to_heap }
}
