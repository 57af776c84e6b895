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
use crate::front::{call_kind, local_summary, translate, CallKind, FuncFacts, ModuleFacts, Summary};
use crate::ir::{Module, Opcode, Value};
use crate::known::{Effect, MarkerKind, FORK_MICROTASK_OPERAND};
use dao_analysis::callgraph::CallGraph;
use dao_analysis::liveness::LiveSets;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Call = 1,
    Marker = 2,
    Forced = 3,
}

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
    pub unknown_reads: bool,
    /// Position of the site in the entry block, if it is there.
    pub entry_pos: Option<usize>,
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
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    /// For rules that only warn (none yet; moved markers in OpenMP will).
    #[allow(dead_code)]
    Warning,
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
}

impl ModulePlan {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

fn first_loc(f: Value) -> Option<String> {
    f.blocks().into_iter().flat_map(|b| b.instructions()).find_map(|i| i.debug_loc())
}

pub fn plan_module(m: Module) -> ModulePlan {
    let facts = ModuleFacts::new(m);
    let nf = facts.funcs.len();
    let mut has_marker = vec![false; nf];
    let mut calls_unknown = vec![false; nf];
    let mut cg = CallGraph::new(nf);
    for (fi, f) in facts.funcs.iter().enumerate() {
        for b in f.blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                match call_kind(&facts, i) {
                    CallKind::Marker(_) => has_marker[fi] = true,
                    CallKind::Defined(g) => cg.add_call(fi, g),
                    CallKind::Known(Effect::ForkCall) => {
                        if let Some(&t) = facts.func_ix.get(&i.operand(FORK_MICROTASK_OPERAND)) {
                            cg.add_call(fi, t);
                        }
                    }
                    CallKind::Unknown => calls_unknown[fi] = true,
                    _ => {}
                }
            }
        }
    }
    let main = m.function("main").filter(|f| !f.is_declaration());
    let participates = has_marker.iter().any(|x| *x) || main.is_some();
    if !participates {
        return ModulePlan { facts, funcs: vec![], diags: vec![], participates, main, conservative_sites: 0 };
    }
    let owned_facts = facts;
    let facts = &owned_facts;
    let seeds: Vec<bool> = (0..nf).map(|f| has_marker[f] || calls_unknown[f]).collect();
    let mut on_path = cg.may_reach(&seeds);
    if let Some(mf) = main {
        // main is always instrumented: it is the root of every chain
        on_path[facts.func_ix[&mf]] = true;
    }
    // Per-function facts (stack objects, escapes, pointer bases), built once
    // and shared by the summaries and the live sets below.
    let ffs: Vec<FuncFacts> = facts.funcs.iter().map(|f| FuncFacts::new(facts, *f)).collect();
    // Interprocedural read summaries.
    let locals: Vec<Summary> = ffs.iter().map(local_summary).collect();
    let sums = cg.summarize(locals, |a, b| a.join(b));

    let mut diags = Vec::new();
    let mut funcs = Vec::new();
    let mut conservative = 0;
    for (fi, &f) in facts.funcs.iter().enumerate() {
        if !on_path[fi] {
            continue;
        }
        let name = f.name();
        // Address taken: reachable through an indirect call or an OpenMP fork.
        for u in f.users() {
            let direct = u.is_call() && u.called_value() == f;
            if direct {
                continue;
            }
            let fork = u.is_call() && u.called_function().is_some_and(|c| c.name() == "__kmpc_fork_call");
            let msg = if fork {
                format!("a checkpoint marker is reachable inside an OpenMP parallel region (outlined function '{name}'); markers inside parallel regions are not supported yet: move the marker between parallel regions")
            } else {
                format!("function '{name}' contains or reaches a checkpoint marker and its address is taken here; markers reachable through indirect calls (function pointers, callbacks) are not supported: call it directly, or move the marker to the caller")
            };
            let loc = if u.is_instruction() { u.debug_loc() } else { None }.or_else(|| first_loc(f));
            diags.push(Diag { severity: Severity::Error, loc, func: name.clone(), msg });
        }
        let ff = &ffs[fi];
        for a in &ff.dynamic_allocas {
            diags.push(Diag {
                severity: Severity::Error,
                loc: a.debug_loc().or_else(|| first_loc(f)),
                func: name.clone(),
                msg: format!("variable-size stack allocation (a VLA or alloca()) in function '{name}', which lies on the path to a checkpoint marker; a restart rebuilds each frame at its old address, which needs a fixed frame layout: use a fixed-size array or malloc"),
            });
        }
        let t = translate(ff, Some(&sums));
        let live = LiveSets::compute(&t.body);
        let entry = f.entry_block();
        let mut sites = Vec::new();
        let mut env_calls = Vec::new();
        for b in f.blocks() {
            for (ii, i) in b.instructions().into_iter().enumerate() {
                if i.opcode() == Opcode::LLVMInvoke {
                    let k = call_kind(facts, i);
                    if matches!(k, CallKind::Defined(g) if on_path[g]) || k == CallKind::Unknown {
                        diags.push(Diag { severity: Severity::Error, loc: i.debug_loc(), func: name.clone(), msg: "an invoke (C++ exception edge) on the path to a checkpoint marker is not supported".into() });
                    }
                    continue;
                }
                if !i.is_call() {
                    continue;
                }
                let k = call_kind(facts, i);
                let kind = match k {
                    CallKind::Marker(MarkerKind::Potential) => SiteKind::Marker,
                    CallKind::Marker(MarkerKind::Forced) => SiteKind::Forced,
                    CallKind::Defined(g) if on_path[g] => SiteKind::Call,
                    CallKind::Unknown => SiteKind::Call,
                    CallKind::Known(Effect::ReturnsTwice) => {
                        diags.push(Diag {
                            severity: Severity::Error,
                            loc: i.debug_loc().or_else(|| first_loc(f)),
                            func: name.clone(),
                            msg: format!("'{}' (setjmp family) in function '{name}', which lies on the path to a checkpoint marker; a longjmp across instrumented frames would corrupt the recorded call chain: move the marker out of this call chain", i.called_function().map(|c| c.name()).unwrap_or_default()),
                        });
                        continue;
                    }
                    CallKind::Known(Effect::Env) => {
                        if b == entry && i.operands().iter().all(|o| o.is_constant() || o.is_argument()) {
                            env_calls.push((ii, i));
                        }
                        continue;
                    }
                    _ => continue,
                };
                if i.is_musttail() {
                    diags.push(Diag { severity: Severity::Error, loc: i.debug_loc(), func: name.clone(), msg: "a musttail call on the path to a checkpoint marker is not supported".into() });
                    continue;
                }
                let (bi, si) = t.pos[&i];
                let set = if kind == SiteKind::Call { live.before(&t.body, bi, si) } else { live.after(&t.body, bi, si) };
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
                    conservative += 1;
                }
                let callee = if kind == SiteKind::Call { i.called_function().map(|c| c.name()) } else { None };
                sites.push(SitePlan {
                    inst: i,
                    kind,
                    callee,
                    loc: i.debug_loc(),
                    slots,
                    allocas,
                    globals,
                    unknown_reads,
                    entry_pos: (b == entry).then_some(ii),
                });
            }
        }
        funcs.push(FuncPlan { f, name, allocas: ff.allocas.clone(), alloca_size: ff.alloca_size.clone(), sites, env_calls });
    }
    drop(ffs);
    ModulePlan { facts: owned_facts, funcs, diags, participates, main, conservative_sites: conservative }
}
