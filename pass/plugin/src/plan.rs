//! The plan: everything the pass will do to a module, decided before the IR
//! is touched. Which functions lie on a path to a marker, which call sites
//! and markers get labels, what is live at each, and every diagnostic. If
//! the plan has an error, the module is left exactly as it was.
//!
//! Participation: a module with markers, or one that defines `main`, is
//! instrumented; calls in it to unknown external functions may reach a
//! marker in another translation unit, so they are labelled too. Any other
//! module only has its heap calls routed to the dao heap (see design.md:
//! blocks allocated there may be reachable from checkpointed data).
use crate::front::{call_kind, local_summary, translate, CallKind, FuncFacts, ModuleFacts, Summary, Translated};
use crate::ir::{Module, Opcode, Value};
use crate::known::{self, Effect, MarkerKind, Role};
use dao_analysis::paths::{self, CallFacts, MarkerPaths};
use dao_analysis::liveness::LiveSets;
use std::collections::{HashMap, HashSet};

/// What a labelled site is: the ABI's `dao_site_desc.kind` (values in
/// `dao_abi`, defined once for the pass and the runtime).
pub use dao_abi::SiteKind;

#[derive(Debug)]
pub struct SitePlan {
    pub inst: Value,
    pub kind: SiteKind,
    pub callee: Option<String>,
    pub loc: Option<String>,
    /// Live SSA values (saved in the frame's slot area).
    pub slots: Vec<Value>,
    /// Live stack objects, as indices into `FuncPlan::allocas`.
    pub allocas: Vec<usize>,
    /// Live globals, as indices into `ModulePlan::globals`.
    pub globals: Vec<usize>,
    /// Globals of `globals` only some of whose bytes are live (the rest
    /// rewritten first on every path: `dao_analysis::bytelive`), with those
    /// bytes; the others are live whole.
    pub partial: Vec<(usize, dao_analysis::intervals::Intervals)>,
    pub unknown_reads: bool,
    /// Position of the site in the entry block, if it is there.
    pub entry_pos: Option<usize>,
    /// Where the label, the spills and the restart edge go: the call itself,
    /// or the `__kmpc_push_num_threads` right before a fork.
    pub anchor: Value,
    /// A sync site at `__kmpc_end_reduce`: on restart only its barrier is redone.
    pub end_reduce: bool,
    /// Candidates (markers, forced checkpoints): the defined globals this
    /// function does not need after the site although it may read them
    /// later, each with the must-writes that rewrite it first on the
    /// paths from the site (for `-Rdao`); and the bytes of the others it
    /// neither reads nor rewrites again.
    /// (global, dead bytes: all of it or the part rewritten first, what
    /// rewrites it first).
    pub dead: Vec<(usize, u64, Vec<String>)>,
    pub unread: (usize, u64),
    /// Globals live at the site unless the runtime-checked conditions of
    /// their conditional kills hold (`cond.rs`; not in `globals`, their
    /// parts, if any, in `partial`).
    pub cdead: Vec<usize>,
}

#[derive(Debug)]
pub struct FuncPlan {
    pub f: Value,
    pub name: String,
    pub allocas: Vec<Value>,
    pub alloca_size: Vec<u64>,
    pub sites: Vec<SitePlan>,
    /// Calls that set hidden runtime state (Fortran runtime start, OpenMP
    /// settings) in the entry block, with their position: replayed on the
    /// jump path to any site after them.
    pub env_calls: Vec<(usize, Value)>,
    /// An outlined parallel region (the microtask of a fork).
    pub microtask: bool,
    /// May run inside a parallel region: markers also check the runtime's
    /// checkpoint request flag.
    pub parallel: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    #[allow(dead_code)]
    Warning,
    /// Printed always (a marker moved out of a critical section).
    Remark,
}

#[derive(Clone, Debug)]
pub struct Diag {
    pub severity: Severity,
    pub loc: Option<String>,
    pub func: String,
    pub msg: String,
}

impl Diag {
    pub fn render(&self, source: &str) -> String {
        match &self.loc {
            Some(l) => format!("{l}: dao: {}", self.msg),
            None => format!("{source}: in function '{}': dao: {}", self.func, self.msg),
        }
    }
}

pub struct ModulePlan {
    pub facts: ModuleFacts,
    pub funcs: Vec<FuncPlan>,
    pub diags: Vec<Diag>,
    /// The module has markers or defines main (see the module comment).
    #[allow(dead_code)]
    pub participates: bool,
    pub main: Option<Value>,
    /// How often the analysis had to be conservative (unknown reads at a
    /// site), for the remark and the docs.
    pub conservative_sites: usize,
    /// Markers inside a critical or lock-protected section, to be moved right
    /// after the call that ends it (done before planning again).
    pub moves: Vec<(Value, Value)>,
    /// flang's threadprivate variables this module reaches through
    /// `__kmpc_threadprivate_cached` (every module, markers or not).
    pub tp: Vec<TpVar>,
    /// What the array-section kills did (issue #15).
    pub sections: SectionReport,
    /// Task entries replicated for fault-tolerant tasks (replica.rs).
    pub replicas: Vec<crate::replica::ReplicaPlan>,
    /// `__kmpc_single` calls of `single` blocks that reach a marker: routed
    /// to `dao_omp_single_master`, so the master runs them (docs/design.md
    /// section 8).
    pub master_only: Vec<Value>,
    /// The globals (indices into `facts.globals`, defined or declared) that
    /// code outside this module's own sites may reach: those whose address
    /// escapes, and those any function another module can enter (external
    /// linkage, or address taken) may read before writing them whole
    /// ([`exported_state`]). The module descriptor's `escaped_globals`.
    pub exported: Vec<usize>,
}

/// A threadprivate variable reached through `__kmpc_threadprivate_cached`.
#[derive(Clone, Debug)]
pub struct TpVar {
    /// The original variable (a global: a common block or a module variable).
    pub data: Value,
    pub size: u64,
    /// A region (of this module, or of another one through a function
    /// another module may call) may read a worker's copy before writing it
    /// whole: the workers' copies then carry values from region to region.
    pub in_region: bool,
}

impl ModulePlan {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

/// The outlined-function operand of a call whose callee is a fork entry point.
fn fork_operand(call: Value) -> u32 {
    call.called_function().and_then(known::fork_microtask).expect("a fork entry point has a microtask operand")
}

fn first_loc(f: Value) -> Option<String> {
    f.blocks().into_iter().flat_map(|b| b.instructions()).find_map(|i| i.debug_loc())
}

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
    plan.diags.extend(offload_diags(&plan.facts));
    let (replicas, why_not) = crate::replica::plan(m);
    plan.replicas = replicas;
    if crate::config::remarks() {
        plan.diags.extend(why_not);
    }
    plan
}

fn plan_checkpoints(m: Module) -> ModulePlan {
    let facts = ModuleFacts::new(m);
    let scan = scan_calls(&facts);
    let main = m.function(known::names::MAIN).filter(|f| !f.is_declaration());
    let participates = paths::participates(&scan.calls, main.is_some());
    let has_tp = facts.funcs.iter().any(|f| f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| matches!(known::call_role(i), Some(Role::ThreadprivateCached { .. }))));
    if !participates && !has_tp && facts.globals.is_empty() {
        return ModulePlan { facts, funcs: vec![], diags: vec![], participates, main, conservative_sites: 0, moves: vec![], tp: vec![], sections: SectionReport::default(), replicas: vec![], master_only: vec![], exported: vec![] };
    }
    // Per-function facts (stack objects, escapes, pointer bases), built once
    // and shared by the summaries and the live sets below.
    let ffs: Vec<FuncFacts> = facts.funcs.iter().map(|f| FuncFacts::new(&facts, *f)).collect();
    // the globals a runtime-checked condition may read (before any loop
    // facts: the shim takes each function's stable ones)
    if crate::config::sections() && participates {
        crate::cond::setup(&facts, &scan.calls.graph, &ffs);
    }
    // Interprocedural read summaries.
    // what any code may read of each global (the loop facts of every
    // function), before any kill is decided
    let sections = crate::config::sections();
    if sections {
        let reads: Vec<_> = ffs.iter().flat_map(|ff| ff.loop_facts().reads.iter().cloned()).collect();
        facts.set_readable(&reads);
    }
    let locals: Vec<Summary> = ffs.iter().map(local_summary).collect();
    let sums = scan.calls.graph.summarize(locals, |a, b| a.join(b));
    let (sums, specialised) = if sections { refine_summaries(&facts, &scan.calls, &ffs, sums) } else { (sums, 0) };
    let tp = if has_tp { threadprivate_vars(&facts, &scan.calls, main, &ffs, &sums) } else { vec![] };
    let exported = exported_state(&facts, &sums);
    if !participates {
        drop(ffs);
        return ModulePlan { facts, funcs: vec![], diags: vec![], participates, main, conservative_sites: 0, moves: vec![], tp, sections: SectionReport::default(), replicas: vec![], master_only: vec![], exported };
    }
    let paths = paths::marker_paths(&scan.calls, main.map(|mf| facts.func_ix[&mf]));

    let mut p = Planner { facts: &facts, calls: &scan.calls, paths: &paths, diags: Vec::new(), moves: Vec::new(), master_only: Vec::new(), conservative: 0, sections: SectionReport::default() };
    p.construct_diags(&scan);
    let mut funcs = Vec::new();
    for (fi, ff) in ffs.iter().enumerate() {
        if paths.on_path[fi] {
            funcs.push(p.plan_function(fi, ff, &sums));
        }
    }
    let Planner { diags, moves, master_only, conservative, mut sections, .. } = p;
    sections.specialised = specialised;
    // World 1 of the runtime-checked conditions (`cond.rs`): the same
    // plan with the conditional kills as kills and writes of their
    // globals as uses of what they kill. A global live at a site in world
    // 0 but not in world 1 is dead there when its conditions hold.
    if facts.cond.any() {
        facts.cond.world1.set(true);
        let locals: Vec<Summary> = ffs.iter().map(local_summary).collect();
        let sums1 = scan.calls.graph.summarize(locals, |a, b| a.join(b));
        let (sums1, _) = refine_summaries(&facts, &scan.calls, &ffs, sums1);
        let mut p1 = Planner { facts: &facts, calls: &scan.calls, paths: &paths, diags: Vec::new(), moves: Vec::new(), master_only: Vec::new(), conservative: 0, sections: SectionReport::default() };
        let mut k = 0;
        let of_object = facts.cond.of_object();
        for (fi, ff) in ffs.iter().enumerate() {
            if !paths.on_path[fi] {
                continue;
            }
            let fp1 = p1.plan_function(fi, ff, &sums1);
            let fp = &mut funcs[k];
            k += 1;
            for (s0, s1) in fp.sites.iter_mut().zip(fp1.sites.iter()) {
                let (cdead, keep): (Vec<usize>, Vec<usize>) = s0.globals.iter().partition(|g| !s1.globals.contains(g) && of_object.contains_key(g));
                if !cdead.is_empty() {
                    sections.cond_sites += 1;
                }
                s0.globals = keep;
                s0.cdead = cdead;
            }
        }
        facts.cond.world1.set(false);
        sections.cond_loops = facts.cond.loops();
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
    ModulePlan { facts, funcs, diags, participates, main, conservative_sites: conservative, moves, tp, sections, replicas: vec![], master_only, exported }
}

/// OpenMP offload (issue #31, until device data is checkpointed: issue
/// #35): a restart would bring back the host's copies and not the
/// device's, and continue silently with a wrong result. Every function
/// that calls libomptarget's entry points (`__tgt_target_kernel`,
/// `__tgt_target_data_begin_mapper`, ...) or the device memory routines
/// (`omp_target_alloc`, `omp_target_memcpy`, ...) is refused with its
/// first such call's location, in every module the pass sees (one without
/// markers may run its kernels between two checkpoints of another).
/// `#pragma omp target` built without `-fopenmp-targets` runs on the host
/// and calls none of these: it is not refused.
fn offload_diags(facts: &ModuleFacts) -> Vec<Diag> {
    let mut out = Vec::new();
    for f in &facts.funcs {
        let calls: Vec<Value> = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.is_call() && i.called_function().is_some_and(|c| is_offload_entry(&c.name())))
            .collect();
        // the first with a location (clang gives some none)
        if let Some(&call) = calls.iter().find(|c| c.debug_loc().is_some()).or(calls.first()) {
            let callee = call.called_function().map(|c| c.name()).unwrap_or_default();
            // the registration constructor clang adds has no location
            let Some(loc) = call.debug_loc().or_else(|| call.operands().first().and_then(|id| crate::omp::ident_loc(*id))).or_else(|| first_loc(*f)) else { continue };
            out.push(Diag {
                severity: Severity::Error,
                loc: Some(loc),
                func: f.name(),
                msg: format!(
                    "OpenMP offload (`omp target` built for a device: this function calls `{callee}`) is not supported by dao yet: a restart would put back the host's data but not the device's, and continue with a wrong result. Build this file without -fopenmp-targets (the target regions then run on the host), or without dao"
                ),
            });
        }
    }
    out
}

/// libomptarget's host entry points and the OpenMP device memory routines.
fn is_offload_entry(name: &str) -> bool {
    name.starts_with("__tgt_target")
        || matches!(
            name,
            "omp_target_alloc" | "omp_target_free" | "omp_target_memcpy" | "omp_target_memcpy_rect" | "omp_target_memcpy_async" | "omp_target_associate_ptr" | "omp_target_disassociate_ptr" | "llvm_omp_target_alloc_host" | "llvm_omp_target_alloc_shared" | "llvm_omp_target_alloc_device"
        )
}

/// The module's state that code outside its own sites may read after a
/// checkpoint (`dao_module_desc.escaped_globals`; docs/design.md section 4):
///
/// - every defined global whose address escapes (an unknown pointer read
///   anywhere may reach it);
/// - every global, defined here or declared, that a function another
///   module can enter may read before writing it whole: its summary's
///   globals. A function can be entered from outside when it has external
///   linkage (another translation unit calls it by name) or its address is
///   taken (a callback, an `atexit` handler, a destructor in
///   `llvm.global_dtors`); the program's entry (`main`, flang's `_QQmain`)
///   is entered once, never again, and an outlined region handed only to
///   libomp's fork and task entry points is not a callback.
///
/// This is what makes a `static` counter of a file without markers, a
/// Fortran module's private or `save` variables, or a common block that
/// only another file's code touches part of the checkpoint (issue #31: they
/// were left out silently). The runtime saves the list of a module without
/// instrumented functions at every checkpoint, and that of any other
/// module when a site of another module reads unknown memory.
pub fn exported_state(facts: &ModuleFacts, sums: &[Summary]) -> Vec<usize> {
    let n = facts.globals.len();
    let mut out = vec![false; n];
    for (i, g) in facts.globals.iter().enumerate() {
        if !facts.global_declared[i] && crate::front::escapes(*g) {
            out[i] = true;
        }
    }
    for (fi, f) in facts.funcs.iter().enumerate() {
        let name = f.name();
        let program_entry = name == known::names::MAIN || name == "_QQmain" || name == "MAIN__";
        let external = !f.is_local_linkage() && !program_entry;
        if !(external || crate::front::address_taken(*f)) {
            continue;
        }
        if let Some(s) = sums.get(fi) {
            for g in s.globals.iter() {
                if g < n {
                    out[g] = true;
                }
            }
        }
    }
    out.iter().enumerate().filter(|(_, e)| **e).map(|(i, _)| i).collect()
}


/// Phase 3b: the summaries for callers, narrowed bottom-up over the call
/// graph: a call uses the globals live at its callee's entry (read before
/// written whole), and kills those every path through the callee writes
/// whole before reading (`dao_analysis::sections::entry_summary` on the
/// callee's body, with its loop kills and its own callees' summaries).
/// Recursive functions keep the may-read summary and kill nothing. An
/// outlined region's summary is its team's (its worksharing loops taken
/// over the whole iteration space): it applies at the fork, after which the
/// whole team has run the region.
///
/// A call that passes globals as pointer arguments (directly, or through a
/// by-reference capture of a region) uses its callee's summary specialised
/// to them ([`Specs`]): the callee analysed again with those arguments as
/// the globals, so its loops' writes through them kill and its reads of
/// them are reads of those globals, not of unknown memory.
fn refine_summaries(facts: &ModuleFacts, calls: &CallFacts, ffs: &[FuncFacts], mut sums: Vec<Summary>) -> (Vec<Summary>, usize) {
    let specs = Specs::new(facts, calls);
    for scc in calls.graph.sccs_bottom_up() {
        let [f] = scc[..] else { continue };
        if calls.graph.callees[f].contains(&f) {
            continue;
        }
        specs.set_overrides(&ffs[f], &sums);
        let t = translate(&ffs[f], Some(&sums));
        sums[f] = summarize(facts, &t);
    }
    // the functions not refined (recursive ones) and those planned below
    // use specialised summaries at their calls too
    for scc in calls.graph.sccs_bottom_up() {
        if scc.len() > 1 || scc.iter().any(|&f| calls.graph.callees[f].contains(&f)) {
            for &f in &scc {
                specs.set_overrides(&ffs[f], &sums);
            }
        }
    }
    let n = specs.memo.borrow().values().filter(|s| s.is_some()).count();
    (sums, n)
}

/// Callee summaries specialised to the globals a call passes (`front::Bind`),
/// memoised by (callee, bindings); only for callees outside recursion (the
/// specialisations then form a DAG), at most `LIMIT` per module (compile
/// time; past it a call uses the callee's own summary).
///
/// On the marker paths the call still uses every object its arguments
/// point to (no `covered_args`): a call whose callee may reach a marker
/// (or unknown code, which may reach one in another module) is labelled
/// and executed again on restart, and the callee then resumes at its own
/// site, whose live set is computed on the callee's own body, where the
/// arguments are parameters: what it reads through them after that site
/// is only accounted for by the call using what they point to, which a
/// specialised summary would replace by what the callee reads from its
/// entry. (Reads through a bound slot are unknown reads in the callee's
/// own body, which use every escaped global there.)
struct Specs<'a> {
    facts: &'a ModuleFacts,
    recursive: Vec<bool>,
    on_path: Vec<bool>,
    memo: std::cell::RefCell<HashMap<(usize, Vec<crate::front::Bind>), Option<std::rc::Rc<Summary>>>>,
}

impl<'a> Specs<'a> {
    const LIMIT: usize = 256;

    fn new(facts: &'a ModuleFacts, calls: &CallFacts) -> Self {
        let mut recursive = vec![false; facts.funcs.len()];
        for scc in calls.graph.sccs_bottom_up() {
            if scc.len() > 1 || calls.graph.callees[scc[0]].contains(&scc[0]) {
                for &f in &scc {
                    recursive[f] = true;
                }
            }
        }
        let on_path = paths::marker_paths(calls, None).on_path;
        Specs { facts, recursive, on_path, memo: Default::default() }
    }

    /// Sets `ff.spec` for each of its calls that passes known globals.
    fn set_overrides(&self, ff: &FuncFacts, sums: &[Summary]) {
        let mut spec = HashMap::new();
        for i in ff.f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if !i.is_call() {
                continue;
            }
            let Some((callee, bind, mut covered, extra)) = ff.call_binding(i) else { continue };
            if self.on_path[callee] {
                covered.clear();
            }
            if let Some(sum) = self.summary(callee, bind, sums) {
                spec.insert(i, crate::front::Spec { sum, covered_args: covered, extra_uses: extra });
            }
        }
        *ff.spec.borrow_mut() = spec;
    }

    fn summary(&self, f: usize, bind: Vec<crate::front::Bind>, sums: &[Summary]) -> Option<std::rc::Rc<Summary>> {
        if self.recursive[f] {
            return None;
        }
        let key = (f, bind);
        if let Some(s) = self.memo.borrow().get(&key) {
            return s.clone();
        }
        if self.memo.borrow().len() >= Self::LIMIT {
            return None;
        }
        self.memo.borrow_mut().insert(key.clone(), None);
        let ff = FuncFacts::bound(self.facts, self.facts.funcs[f], &key.1);
        let out = if ff.bind_list.is_empty() {
            None
        } else {
            self.set_overrides(&ff, sums);
            let t = translate(&ff, Some(sums));
            let sm = summarize(self.facts, &t);
            Some(std::rc::Rc::new(sm))
        };
        self.memo.borrow_mut().insert(key, out.clone());
        out
    }
}

/// The summary of a translated function for its callers: the globals live
/// at its entry when nothing is live at its exits (read before written
/// whole), whether it reads unknown memory first, the globals every path
/// writes whole before reading, and the byte-level kills and exposed
/// bytes of those it rewrites in part.
fn summarize(facts: &ModuleFacts, t: &Translated) -> Summary {
    {
        let ng = facts.globals.len();
        let mut of_interest = dao_analysis::BitSet::new_empty(t.body.num_vars);
        for g in 0..ng {
            of_interest.insert(t.vars.global_var(g));
        }
        of_interest.insert(t.vars.unknown_var());
        let (exposed, killed) = dao_analysis::sections::entry_summary(&t.body, &of_interest);
        let mut s = Summary {
            globals: dao_analysis::BitSet::new_empty(ng),
            reads_unknown: exposed.contains(t.vars.unknown_var()),
            kills: dao_analysis::BitSet::new_empty(ng),
            partial: Vec::new(),
            exposed: Vec::new(),
        };
        for g in 0..ng {
            if exposed.contains(t.vars.global_var(g)) {
                s.globals.insert(g);
            }
            if killed.contains(t.vars.global_var(g)) {
                s.kills.insert(g);
            }
        }
        // bytes of globals rewritten in part on every path (by its loops
        // and its callees): partial kills of the call, or whole ones when
        // together they cover the global; and of those it may read first,
        // the bytes (byte-level liveness is gen/kill: the call is then
        // exactly `exposed ∪ (live_after − killed)`)
        let objs = global_objs(facts, &t);
        for (v, w) in dao_analysis::bytelive::entry_partial_kills(&t.body, &objs) {
            let g = v - t.vars.global_var(0);
            if s.kills.contains(g) {
                continue;
            }
            if w.covers(0, facts.global_size[g] as i64) {
                s.kills.insert(g);
            } else {
                s.partial.push((g, w));
            }
        }
        for (v, e) in dao_analysis::bytelive::entry_exposed(&t.body, &objs) {
            let g = v - t.vars.global_var(0);
            if s.globals.contains(g) && !e.covers(0, facts.global_size[g] as i64) {
                s.exposed.push((g, e));
            }
        }
        s
    }
}

/// (variable, size) of the globals a body partly rewrites somewhere
/// (`bytelive::tracked`): the objects of its byte-level liveness.
fn global_objs(facts: &ModuleFacts, t: &Translated) -> Vec<(usize, u64)> {
    let g0 = t.vars.global_var(0);
    dao_analysis::bytelive::tracked(&t.body)
        .into_iter()
        .filter(|&v| v >= g0 && v < t.vars.unknown_var())
        .map(|v| (v, facts.global_size[v - g0]))
        .collect()
}

/// What the section analysis did in a module, for `-Rdao` and the counts
/// of conservative decisions.
#[derive(Debug, Default)]
pub struct SectionReport {
    /// (function, loop location, objects killed at the loop's entry,
    /// globals rewritten in part there with the bytes rewritten).
    pub loops: Vec<(
        String,
        Option<String>,
        Vec<crate::front::Obj>,
        Vec<(usize, u64)>,
    )>,
    /// Loops on a marker path that store to memory but kill nothing, and of
    /// those, the ones with no store ScalarEvolution could describe.
    pub loops_without_kill: usize,
    pub loops_unrecognised: usize,
    /// (function, globals its calls kill).
    pub calls: Vec<(String, Vec<usize>)>,
    /// (function, globals its calls rewrite in part, with the bytes).
    pub calls_partial: Vec<(String, Vec<(usize, u64)>)>,
    /// (function, loop location, global rewritten whole when the
    /// conditions hold, the conditions).
    pub cond_loops: Vec<(String, Option<String>, usize, Vec<crate::cond::Cond>)>,
    /// Per global killed under conditions, all its conditions (the
    /// runtime's table), and the sites where one is dead under them.
    pub conds: Vec<(usize, Vec<crate::cond::Cond>)>,
    pub cond_sites: usize,
    /// Callee summaries specialised to the globals a call passes.
    pub specialised: usize,
}

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
fn threadprivate_vars(facts: &ModuleFacts, calls: &CallFacts, main: Option<Value>, ffs: &[FuncFacts], sums: &[Summary]) -> Vec<TpVar> {
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
    let mut escaping: HashSet<Value> = HashSet::new();
    for (fi, f) in facts.funcs.iter().enumerate() {
        if !in_region[fi] {
            continue;
        }
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if let Some(Role::ThreadprivateCached { data, .. }) = known::call_role(i) {
                if crate::front::escapes(i) {
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
    let mut first_read: HashSet<usize> = HashSet::new();
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

/// What the calls of a module's functions say: the LLVM-free facts for
/// `dao_analysis::paths`, and the OpenMP calls the construct checks need.
struct CallScan {
    calls: CallFacts,
    /// (caller, fork call, outlined function).
    forks: Vec<(usize, Value, usize)>,
    /// (task creation call, task entry).
    task_entries: Vec<(Value, usize)>,
    /// (function, `__kmpc_dispatch_init_*` call).
    dispatch_inits: Vec<(usize, Value)>,
}

/// Phase 1: every call of every defined function, by what it calls.
fn scan_calls(facts: &ModuleFacts) -> CallScan {
    let nf = facts.funcs.len();
    let mut scan = CallScan { calls: CallFacts::new(nf), forks: Vec::new(), task_entries: Vec::new(), dispatch_inits: Vec::new() };
    let c = &mut scan.calls;
    for (fi, f) in facts.funcs.iter().enumerate() {
        for b in f.blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                match call_kind(facts, i) {
                    CallKind::Marker(_) => c.has_marker[fi] = true,
                    CallKind::Defined(g) => c.graph.add_call(fi, g),
                    CallKind::Known(Effect::ForkCall) => {
                        if let Some(&t) = facts.func_ix.get(&i.operand(fork_operand(i))) {
                            c.graph.add_call(fi, t);
                            c.microtask[t] = true;
                            scan.forks.push((fi, i, t));
                        }
                    }
                    CallKind::Unknown => c.calls_unknown[fi] = true,
                    CallKind::Known(_) => match known::call_role(i) {
                        Some(Role::Barrier | Role::EndReduce) => c.has_sync[fi] = true,
                        Some(Role::DispatchInit) => scan.dispatch_inits.push((fi, i)),
                        Some(Role::TaskAlloc { entry, .. }) if i.num_args() > entry => {
                            if let Some(&t) = facts.func_ix.get(&i.operand(entry)) {
                                // the task's body runs as part of its
                                // creator (by the region's end at the
                                // latest): the creator's summary holds
                                // what it reads (front.rs, call_uses)
                                c.graph.add_call(fi, t);
                                scan.task_entries.push((i, t));
                            }
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
        }
    }
    scan
}

/// The state of phases 4 and 5: the module's facts and paths, and what the
/// plan has collected so far.
struct Planner<'a> {
    facts: &'a ModuleFacts,
    calls: &'a CallFacts,
    paths: &'a MarkerPaths,
    diags: Vec<Diag>,
    moves: Vec<(Value, Value)>,
    master_only: Vec<Value>,
    /// Sites where the analysis had to be conservative (unknown reads).
    conservative: usize,
    sections: SectionReport,
}

impl Planner<'_> {
    /// Phase 4: markers reachable inside explicit tasks, dynamic loops in a
    /// marker region, markers in nested regions (one diagnostic per task
    /// entry / inner region, at the marker it reaches).
    fn construct_diags(&mut self, scan: &CallScan) {
        let (facts, on_path, parallel) = (self.facts, &self.paths.on_path, &self.paths.parallel);
        let mut reported = std::collections::HashSet::new();
        for &(call, t) in &scan.task_entries {
            if on_path[t] && reported.insert(t) {
                self.diags.push(Diag {
                    severity: Severity::Error,
                    loc: marker_loc(facts, on_path, t).or_else(|| call.debug_loc()),
                    func: facts.funcs[t].name(),
                    msg: format!(
                        "a checkpoint marker is reachable inside an explicit OpenMP task (created at {}); tasks may run on any thread at any later time, so a restart cannot put them back: move the marker out of the task, into the code that creates it, after the taskwait or taskgroup that waits for it (inside the generating `single` works)",
                        call.debug_loc().unwrap_or_else(|| "?".into())
                    ),
                });
            }
        }
        for &(fi, call) in &scan.dispatch_inits {
            if parallel[fi] {
                self.diags.push(Diag {
                    severity: Severity::Error,
                    loc: call.debug_loc().or_else(|| first_loc(facts.funcs[fi])),
                    func: facts.funcs[fi].name(),
                    msg: "a worksharing loop with a dynamic, guided, runtime or ordered schedule in a parallel region that contains a checkpoint marker is not supported: threads ahead of the one at the checkpoint may already have taken chunks of it, which a restarted team would hand out again; use schedule(static) in this region, or move the marker to another region".into(),
                });
            }
        }
        for &(caller, call, t) in &scan.forks {
            if on_path[t] && parallel[caller] && reported.insert(t) {
                self.diags.push(Diag {
                    severity: Severity::Error,
                    loc: marker_loc(facts, on_path, t).or_else(|| call.debug_loc()),
                    func: facts.funcs[caller].name(),
                    msg: format!(
                        "this checkpoint marker is in a nested parallel region (a parallel region inside a parallel region, opened at {}); nested parallelism is not supported on a marker path: move the marker to the outer region or make the inner region sequential",
                        call.debug_loc().unwrap_or_else(|| "?".into())
                    ),
                });
            }
        }
    }

    /// Phase 5, one function on a marker path: its own diagnostics, its
    /// sites with their live sets, the construct checks of its sites, and
    /// the exit site of an outlined region.
    fn plan_function(&mut self, fi: usize, ff: &FuncFacts, sums: &[Summary]) -> FuncPlan {
        let f = self.facts.funcs[fi];
        let name = f.name();
        self.address_taken_diags(f, &name);
        for a in &ff.dynamic_allocas {
            self.diags.push(Diag {
                severity: Severity::Error,
                loc: a.debug_loc().or_else(|| first_loc(f)),
                func: name.clone(),
                msg: format!("variable-size stack allocation (a VLA or alloca()) in function '{name}', which lies on the path to a checkpoint marker; a restart rebuilds each frame at its old address, which needs a fixed frame layout: use a fixed-size array or malloc"),
            });
        }
        let t = translate(ff, Some(sums));
        let live = LiveSets::compute(&t.body);
        let objs = global_objs(self.facts, &t);
        let bytes = dao_analysis::bytelive::ByteLive::compute(&t.body, &objs);
        let live = (&live, &bytes);
        for k in &t.loop_kills {
            let loc = k
                .header
                .instructions()
                .into_iter()
                .find_map(|i| i.debug_loc());
            self.sections
                .loops
                .push((name.clone(), loc, k.objects.clone(), k.partial.clone()));
        }
        self.sections.loops_without_kill += t.loops_without_kill;
        self.sections.loops_unrecognised += t.loops_unrecognised;
        let entry = f.entry_block();
        let mut sites = Vec::new();
        let mut env_calls = Vec::new();
        for b in f.blocks() {
            for (ii, i) in b.instructions().into_iter().enumerate() {
                let Some((kind, k)) = self.site_kind(fi, &name, i) else {
                    // environment calls in the entry block are replayed
                    if b == entry && i.is_call() && matches!(call_kind(self.facts, i), CallKind::Known(Effect::Env)) && i.operands().iter().all(|o| o.is_constant() || o.is_argument()) {
                        env_calls.push((ii, i));
                    }
                    continue;
                };
                sites.push(self.site_plan(f, b, i, kind, k, &t, live));
            }
        }
        check_constructs(f, &name, &sites, &mut self.diags, &mut self.moves, &mut self.master_only);
        if self.calls.microtask[fi] {
            if !f.function_type().fn_return().is_void() {
                self.diags.push(Diag { severity: Severity::Error, loc: first_loc(f), func: name.clone(), msg: format!("outlined parallel region '{name}' does not return void; not recognised as an OpenMP microtask") });
            }
            sites.extend(exit_site(f));
        }
        FuncPlan {
            f,
            name,
            allocas: ff.allocas.clone(),
            alloca_size: ff.alloca_size.clone(),
            sites,
            env_calls,
            microtask: self.calls.microtask[fi],
            parallel: self.paths.parallel[fi],
        }
    }

    /// A function on a marker path whose address is taken: reachable
    /// through an indirect call or an OpenMP fork.
    fn address_taken_diags(&mut self, f: Value, name: &str) {
        for u in f.users() {
            let direct = u.is_call() && u.called_value() == f;
            if direct {
                continue;
            }
            let fork = match known::call_role(u) {
                Some(Role::Fork { microtask }) => Some(microtask),
                _ => None,
            };
            if fork.is_some_and(|k| u.num_args() > k && u.operand(k) == f) {
                continue; // a Fork site in the caller
            }
            let fork = fork.is_some();
            let task = matches!(known::call_role(u), Some(Role::TaskAlloc { .. }));
            if task {
                continue; // diagnosed in construct_diags
            }
            let msg = if fork {
                format!("outlined function '{name}' is passed to __kmpc_fork_call in an unexpected operand position; not recognised as a parallel region")
            } else {
                format!("function '{name}' contains or reaches a checkpoint marker and its address is taken here; markers reachable through indirect calls (function pointers, callbacks) are not supported: call it directly, or move the marker to the caller")
            };
            let loc = if u.is_instruction() { u.debug_loc() } else { None }.or_else(|| first_loc(f));
            self.diags.push(Diag { severity: Severity::Error, loc, func: name.to_string(), msg });
        }
    }

    /// Whether instruction `i` of function `fi` is a site, and of which
    /// kind; the unsupported calls on a marker path are diagnosed here.
    fn site_kind(&mut self, fi: usize, name: &str, i: Value) -> Option<(SiteKind, CallKind)> {
        let facts = self.facts;
        let on_path = &self.paths.on_path;
        let f = facts.funcs[fi];
        let error = |loc: Option<String>, msg: String| Diag { severity: Severity::Error, loc, func: name.to_string(), msg };
        if i.opcode() == Opcode::LLVMInvoke {
            let k = call_kind(facts, i);
            if matches!(k, CallKind::Defined(g) if on_path[g]) || k == CallKind::Unknown {
                self.diags.push(error(i.debug_loc(), "an invoke (C++ exception edge) on the path to a checkpoint marker is not supported".into()));
            }
            return None;
        }
        if !i.is_call() {
            return None;
        }
        let k = call_kind(facts, i);
        let role = known::call_role(i);
        let kind = match k {
            CallKind::Marker(MarkerKind::Potential) => SiteKind::Marker,
            CallKind::Marker(MarkerKind::Forced) => SiteKind::Forced,
            CallKind::Defined(g) if on_path[g] => SiteKind::Call,
            CallKind::Unknown => SiteKind::Call,
            CallKind::Known(Effect::ForkCall) => match facts.func_ix.get(&i.operand(fork_operand(i))) {
                Some(&t) if on_path[t] => SiteKind::Fork,
                _ => return None,
            },
            CallKind::Known(_) if self.paths.parallel[fi] && matches!(role, Some(Role::Barrier | Role::EndReduce)) => SiteKind::Sync,
            CallKind::Known(Effect::ReturnsTwice) => {
                let msg = format!("'{}' (setjmp family) in function '{name}', which lies on the path to a checkpoint marker; a longjmp across instrumented frames would corrupt the recorded call chain: move the marker out of this call chain", i.called_function().map(|c| c.name()).unwrap_or_default());
                self.diags.push(error(i.debug_loc().or_else(|| first_loc(f)), msg));
                return None;
            }
            _ => return None,
        };
        if i.is_musttail() {
            self.diags.push(error(i.debug_loc(), "a musttail call on the path to a checkpoint marker is not supported".into()));
            return None;
        }
        Some((kind, k))
    }

    /// The site at call `i` with what is live there: before the call for a
    /// site that is executed again on restart (calls, forks, barriers),
    /// after it for a marker.
    #[allow(clippy::too_many_arguments)]
    fn site_plan(
        &mut self,
        f: Value,
        b: crate::ir::Block,
        i: Value,
        kind: SiteKind,
        k: CallKind,
        t: &Translated,
        (live, bytes): (&LiveSets, &dao_analysis::bytelive::ByteLive),
    ) -> SitePlan {
        let entry = f.entry_block();
        // a fork is replayed together with the pushes before it
        let anchor = match k {
            _ if kind == SiteKind::Fork => fork_anchor(f, b, i),
            // clang's `parallel if(...)`, false branch: the outlined
            // function called directly between __kmpc_serialized_parallel
            // and __kmpc_end_serialized_parallel; the restart must
            // enter the serialized region again
            CallKind::Defined(g) if self.calls.microtask[g] => serial_anchor(b, i),
            _ => i,
        };
        let (bi, si) = t.pos[&anchor];
        let re_executed = matches!(kind, SiteKind::Call | SiteKind::Fork | SiteKind::Sync);
        let set = if re_executed {
            // The call is executed again on restart, but its callee resumes
            // at its own site, not from its start: what the callee kills
            // before that site must not make it dead here (the callee's frame
            // keeps only what *it* reads after its site).
            let mut s = live.before(&t.body, bi, si);
            let (cb, ci) = t.pos[&i];
            let after = live.after(&t.body, cb, ci);
            for &d in &t.body.blocks[cb].stmts[ci].defs {
                if after.contains(d) {
                    s.insert(d);
                }
            }
            s
        } else {
            live.after(&t.body, bi, si)
        };
        let mut slots = Vec::new();
        let mut allocas = Vec::new();
        let mut globals = Vec::new();
        let mut unknown_reads = false;
        for v in set.iter() {
            if v < t.vars.ssa.len() {
                let val = t.vars.ssa[v];
                if val == i {
                    continue;
                }
                slots.push(val);
            } else if v < t.vars.global_var(0) {
                allocas.push(v - t.vars.alloca_var(0));
            } else if v < t.vars.unknown_var() {
                globals.push(v - t.vars.global_var(0));
            } else {
                unknown_reads = true;
            }
        }
        if unknown_reads {
            self.conservative += 1;
        }
        // the live bytes of the globals rewritten in part on some path: the
        // same two positions as the live set above
        let mut partial = Vec::new();
        globals.retain(|&g| {
            let v = t.vars.global_var(g);
            let at = if re_executed {
                let (cb, ci) = t.pos[&i];
                bytes
                    .before(&t.body, bi, si, v)
                    .zip(bytes.after(&t.body, cb, ci, v))
                    .map(|(a, b)| a.union(&b))
            } else {
                bytes.after(&t.body, bi, si, v)
            };
            let Some(at) = at else { return true };
            let size = self.facts.global_size[g];
            if at.is_empty() {
                return false;
            }
            if !at.covers(0, size as i64) {
                partial.push((g, at.clip(0, size as i64)));
            }
            true
        });
        let callee = match kind {
            SiteKind::Call => i.called_function().map(|c| c.name()),
            SiteKind::Fork => Some(i.operand(fork_operand(i)).name()),
            _ => None,
        };
        let (dead, unread) =
            if matches!(kind, SiteKind::Marker | SiteKind::Forced) {
                self.why_dead(f, t, &globals, &partial, (bi, si))
            } else {
                (Vec::new(), (0, 0))
            };
        SitePlan {
            dead,
            unread,
            cdead: Vec::new(),
            inst: i,
            kind,
            callee,
            loc: i.debug_loc(),
            slots,
            allocas,
            globals,
            partial,
            unknown_reads,
            entry_pos: (anchor.parent_block() == entry).then(|| anchor_index(entry, anchor)),
            anchor,
            end_reduce: kind == SiteKind::Sync && matches!(known::call_role(i), Some(Role::EndReduce)),
        }
    }
}

impl Planner<'_> {
    /// For `-Rdao`: the defined globals not in `live` after the site at
    /// `at` (declared ones, saved anyway, left out; an escaped global
    /// that unknown reads may reach is in `live` unless rewritten first), with the statements that rewrite each first on the paths from
    /// the site (`sections::first_kills`), described by kind and file:line;
    /// and the number and bytes of those no path rewrites.
    fn why_dead(
        &self,
        f: Value,
        t: &Translated,
        live: &[usize],
        partial: &[(usize, dao_analysis::intervals::Intervals)],
        at: (usize, usize),
    ) -> (Vec<(usize, u64, Vec<String>)>, (usize, u64)) {
        let blocks = f.blocks();
        let mut dead = Vec::new();
        let mut unread = (0, 0);
        for g in 0..self.facts.globals.len() {
            let v = t.vars.global_var(g);
            let size = self.facts.global_size[g];
            let dead_bytes = match partial.iter().find(|(p, _)| *p == g) {
                Some((_, l)) => size - l.bytes(),
                None if live.contains(&g) => continue,
                None => size,
            };
            if self.facts.global_declared[g] {
                continue;
            }
            let (kills, _) = dao_analysis::sections::first_kills(&t.body, at, v);
            if kills.is_empty() {
                unread.0 += 1;
                unread.1 += self.facts.global_size[g];
                continue;
            }
            let why = kills
                .iter()
                .map(|&(b, s)| {
                    let at_loc = |i: Value| i.debug_loc().map(|l| format!(" at {l}")).unwrap_or_default();
                    if let Some(k) = t.loop_kills.iter().find(|k| k.at == (b, s)) {
                        let loc = k.header.instructions().into_iter().find_map(|i| i.debug_loc());
                        return format!("the loop{}", loc.map(|l| format!(" at {l}")).unwrap_or_default());
                    }
                    let Some(i) = blocks.get(b).and_then(|blk| blk.instructions().get(s).copied()) else {
                        return "a write".to_string();
                    };
                    if i.is_call() {
                        if let Some(Role::Fork { microtask }) = known::call_role(i) {
                            // the region's own first line (flang gives the
                            // fork call the line of a declaration)
                            let task = i.operand(microtask);
                            let loc = (task.is_function()).then(|| first_loc(task)).flatten().or_else(|| i.debug_loc());
                            return format!("the parallel region '{}'{}", task.name(), loc.map(|l| format!(" at {l}")).unwrap_or_default());
                        }
                        return match known::call_intrinsic(i) {
                            Some(crate::known::Intr::Set { .. }) => format!("a memset{}", at_loc(i)),
                            Some(crate::known::Intr::Copy { .. }) => format!("a memcpy{}", at_loc(i)),
                            _ => format!("the call of '{}'{}", i.called_function().map(|c| c.name()).unwrap_or_else(|| "?".into()), at_loc(i)),
                        };
                    }
                    format!("a store{}", at_loc(i))
                })
                .collect();
            dead.push((g, dead_bytes, why));
        }
        (dead, unread)
    }
}

/// The end of an outlined region, for threads that have finished their part.
fn exit_site(f: Value) -> Option<SitePlan> {
    let ret = f.blocks().into_iter().find_map(|b| b.terminator().filter(|t| t.opcode() == Opcode::LLVMRet))?;
    Some(SitePlan {
        dead: Vec::new(),
        unread: (0, 0),
        cdead: Vec::new(),
        inst: ret,
        kind: SiteKind::Exit,
        callee: None,
        loc: None,
        slots: vec![],
        allocas: vec![],
        globals: vec![],
        partial: vec![],
        unknown_reads: false,
        entry_pos: None,
        anchor: ret,
        end_reduce: false,
    })
}

/// Markers (and calls that reach one) inside OpenMP constructs that not
/// every thread runs, or one thread at a time: rejected with the reason, or,
/// for a marker in a critical or lock-protected section whose end is in the
/// same block, moved right after the end (a remark says so).
///
/// A marker (or a call that reaches one) inside a `master` block, a
/// `masked` block of thread 0, or a `single` block is accepted: the master
/// reaches it while the other threads are at a barrier or a candidate, as
/// at any marker inside a region; the `single` is then run by the master
/// (its `__kmpc_single` is listed in `master_only`), so a restart puts the
/// same thread back into it.
fn check_constructs(f: Value, name: &str, sites: &[SitePlan], diags: &mut Vec<Diag>, moves: &mut Vec<(Value, Value)>, master_only: &mut Vec<Value>) {
    let relevant = sites.iter().any(|s| matches!(s.kind, SiteKind::Marker | SiteKind::Forced | SiteKind::Call | SiteKind::Fork));
    if !relevant {
        return;
    }
    let cons = crate::omp::constructs(f);
    for s in sites {
        let what_site = match s.kind {
            SiteKind::Marker | SiteKind::Forced => "a checkpoint marker".to_string(),
            SiteKind::Call => match s.callee.as_deref() {
                Some(c) if s.inst.called_function().is_some_and(|x| !x.is_declaration()) => format!("a call to '{c}', which reaches a checkpoint marker,"),
                _ => continue, // unknown external callees are labelled conservatively only
            },
            SiteKind::Fork => "a parallel region that reaches a checkpoint marker".to_string(),
            _ => continue,
        };
        for c in &cons {
            if !c.inside.contains(&s.inst) {
                continue;
            }
            if s.kind != SiteKind::Fork {
                match master_block(c.begin) {
                    Some(true) => {
                        if !master_only.contains(&c.begin) {
                            master_only.push(c.begin);
                        }
                        continue;
                    }
                    Some(false) => continue,
                    None => {}
                }
            }
            if c.movable && s.kind == SiteKind::Marker {
                let blk = s.inst.parent_block();
                let insts = blk.instructions();
                let at = insts.iter().position(|x| *x == s.inst).unwrap_or(0);
                if let Some(end) = insts[at..].iter().find(|x| c.ends.contains(x)) {
                    moves.push((s.inst, *end));
                    diags.push(Diag {
                        severity: Severity::Remark,
                        loc: s.loc.clone(),
                        func: name.to_string(),
                        msg: format!("checkpoint marker inside {} moved to just after its end{}: a thread waiting to enter would otherwise wait for a thread stopped at the checkpoint", c.what, end.debug_loc().map(|l| format!(" ({l})")).unwrap_or_default()),
                    });
                    continue;
                }
            }
            let advice = if c.movable {
                "move it after the end of the section (the pass moves a marker only when the section ends in the same basic block)"
            } else {
                "move it out of the construct, e.g. after it, where every thread of the team passes"
            };
            diags.push(Diag {
                severity: Severity::Error,
                loc: s.loc.clone().or_else(|| c.begin.debug_loc()),
                func: name.to_string(),
                msg: format!("{what_site} inside {} is not supported: a checkpoint inside a parallel region needs every thread of the team at a well-defined point; {advice}", c.what),
            });
        }
    }
}

/// Whether the block opened by `begin` can hold a marker because the master
/// runs it: `Some(true)` for a `single` (to be run by the master),
/// `Some(false)` for `master` and `masked` of thread 0, None otherwise.
fn master_block(begin: Value) -> Option<bool> {
    let Some(Role::Exclusive { end, .. }) = known::call_role(begin) else { return None };
    match end {
        known::names::KMPC_END_SINGLE => Some(true),
        known::names::KMPC_END_MASTER => Some(false),
        // __kmpc_masked(ident, gtid, filter)
        known::names::KMPC_END_MASKED if begin.num_args() > 2 && begin.operand(2).const_int_value() == Some(0) => Some(false),
        _ => None,
    }
}

/// Where the first marker reachable from function `f` is (through calls to
/// functions on a marker path), for diagnostics that should point at it.
fn marker_loc(facts: &ModuleFacts, on_path: &[bool], f: usize) -> Option<String> {
    let mut seen = vec![false; facts.funcs.len()];
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        if std::mem::replace(&mut seen[g], true) {
            continue;
        }
        for b in facts.funcs[g].blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                match call_kind(facts, i) {
                    CallKind::Marker(_) => return i.debug_loc().or_else(|| first_loc(facts.funcs[g])),
                    CallKind::Defined(h) if on_path[h] => work.push(h),
                    _ => {}
                }
            }
        }
    }
    None
}

/// Where a fork's label goes: before the first of the `__kmpc_push_*` calls
/// (num_threads, proc_bind) that set up this fork, so that the restart
/// replays them with it. Between them and the fork only flang's filling of
/// its argument struct may stand (stores of pointers into an alloca that is
/// passed to the fork, and constant GEPs into it): re-executing those stores
/// writes the same addresses again. Anything else ends the search.
fn fork_anchor(f: Value, b: crate::ir::Block, fork: Value) -> Value {
    let fork_args = fork.operands();
    let base_of = |p: Value| -> Option<Value> {
        let mut base = p;
        while base.is_instruction() && base.opcode() == Opcode::LLVMGetElementPtr {
            if !base.operands()[1..].iter().all(|o| o.is_const_int()) {
                return None;
            }
            base = base.operand(0);
        }
        base.is_alloca().then_some(base)
    };
    // allocas whose address is stored into the struct in the window (flang's
    // `.reloaded` copies of by-value captures): their stores may be redone too
    let captured = std::cell::RefCell::new(Vec::<Value>::new());
    let struct_arg = |p: Value| -> bool { base_of(p).is_some_and(|a| fork_args.contains(&a) || captured.borrow().contains(&a)) };
    let mut anchor = fork;
    let mut block = b;
    let mut insts = b.instructions();
    let Some(mut pos) = insts.iter().position(|x| *x == fork) else { return fork };
    loop {
        for &p in insts[..pos].iter().rev() {
            let push = known::call_role(p) == Some(Role::ForkPush);
            if push {
                anchor = p;
                continue;
            }
            let fills_struct = match p.opcode() {
                Opcode::LLVMStore if base_of(p.operand(1)).is_some_and(|a| fork_args.contains(&a)) => {
                    // a field of the struct: a pointer (maybe to a capture copy)
                    let v = p.operand(0);
                    if v.ty().is_pointer() && v.is_alloca() {
                        captured.borrow_mut().push(v);
                    }
                    v.ty().is_pointer()
                }
                Opcode::LLVMStore => struct_arg(p.operand(1)),
                Opcode::LLVMGetElementPtr => struct_arg(p),
                _ => false,
            };
            if !fills_struct {
                return anchor;
            }
        }
        // flang -O0 puts the push in a block of its own that branches
        // straight to the fork's block: continue there if it is the only
        // predecessor and only falls through to this block
        let preds: Vec<crate::ir::Block> = f.blocks().into_iter().filter(|x| x.successors().contains(&block)).collect();
        let [pred] = preds[..] else { return anchor };
        let term = pred.terminator();
        if pred.successors().len() != 1 || !term.is_some_and(|t| t.opcode() == Opcode::LLVMBr) || pred == block {
            return anchor;
        }
        block = pred;
        insts = pred.instructions();
        pos = insts.len() - 1; // before the branch
    }
}

/// Where the label of a direct call of an outlined function goes: before
/// the `__kmpc_serialized_parallel` that opens clang's serialized region
/// (the stores of the thread id and the zero bound into the allocas passed
/// to the call may stand between them and are redone), or at the call.
fn serial_anchor(b: crate::ir::Block, call: Value) -> Value {
    let insts = b.instructions();
    let Some(pos) = insts.iter().position(|x| *x == call) else { return call };
    let args = call.operands();
    for &p in insts[..pos].iter().rev() {
        if known::call_role(p) == Some(Role::SerializedParallel) {
            return p;
        }
        let redo = p.opcode() == Opcode::LLVMStore && p.operand(1).is_alloca() && args.contains(&p.operand(1)) && !p.operand(0).ty().is_pointer();
        if !redo {
            break;
        }
    }
    call
}

fn anchor_index(b: crate::ir::Block, anchor: Value) -> usize {
    b.instructions().iter().position(|x| *x == anchor).expect("anchor in its block")
}
