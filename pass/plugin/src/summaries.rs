//! Phase 3 of the plan: the interprocedural summaries of the defined
//! functions for their callers (what a call may read before writing it,
//! what it kills whole or in part), narrowed bottom-up over the call graph,
//! and specialised to the globals a call passes ([`Specs`]).
use crate::facts::{ModuleFacts, Summary};
use crate::func_facts::FuncFacts;
use crate::translate::{translate, Translated};
use dao_analysis::paths::{self, CallFacts};
use dao_analysis::fxhash::HashMap;

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
///
/// Returns the summaries, the number of specialised ones, and the
/// translations made of the functions `keep` marks (those on marker paths,
/// whose sites the planning computes on the same translation).
pub fn refine_summaries(facts: &ModuleFacts, calls: &CallFacts, ffs: &[FuncFacts], mut sums: Vec<Summary>, keep: &[bool]) -> (Vec<Summary>, usize, Vec<Option<Translated>>) {
    let specs = Specs::new(facts, calls);
    let mut kept: Vec<Option<Translated>> = (0..ffs.len()).map(|_| None).collect();
    for scc in calls.graph.sccs_bottom_up() {
        let [f] = scc[..] else { continue };
        if !refined(facts, calls, f) {
            continue;
        }
        specs.set_overrides(&ffs[f], &sums);
        let t = translate(&ffs[f], Some(&sums));
        sums[f] = summarize(facts, &t);
        // (the planning of f's sites translates f with these same
        // overrides and callee summaries: f's own is never read, f not
        // being recursive)
        if keep[f] {
            kept[f] = Some(t);
        }
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
    (sums, n, kept)
}

/// Whether [`refine_summaries`] replaces the summary of f, alone in its
/// call-graph SCC, by the one of its translation with its callees'
/// (refined) summaries: f does not call itself and is not a host `teams`
/// region's outlined function. A host `teams` region's keeps its may-read
/// summary: its teams share no barrier, so what one team writes before
/// another reads it kills nothing at the call (the team view the shim
/// takes of a `distribute` loop is the whole iteration space, one team's
/// would be a part).
fn refined(facts: &ModuleFacts, calls: &CallFacts, f: usize) -> bool {
    !calls.graph.callees[f].contains(&f) && !crate::scan::teams_entry(facts.funcs[f])
}

/// The functions whose local (may-read) summaries [`refine_summaries`]
/// leaves in place or joins into one it leaves (recursive functions,
/// host `teams` regions' outlined functions, and their transitive
/// callees). Every other function's local summary only flows into its
/// callers' before its own is replaced, bottom-up, and so is never read:
/// the planning does not translate it for one (a fifth of the pass's time
/// on NPB SP, in each world).
pub fn locals_needed(facts: &ModuleFacts, calls: &CallFacts) -> Vec<bool> {
    let teams: Vec<bool> = facts.funcs.iter().map(|f| crate::scan::teams_entry(*f)).collect();
    calls.graph.may_read_needed(&teams)
}

/// Callee summaries specialised to the globals a call passes (`func_facts::Bind`),
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
pub struct Specs<'a> {
    pub facts: &'a ModuleFacts,
    pub recursive: Vec<bool>,
    pub on_path: Vec<bool>,
    pub memo: std::cell::RefCell<HashMap<(usize, Vec<crate::func_facts::Bind>), Option<std::rc::Rc<Summary>>>>,
}

impl<'a> Specs<'a> {
    const LIMIT: usize = 256;

    pub fn new(facts: &'a ModuleFacts, calls: &CallFacts) -> Self {
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
    pub fn set_overrides(&self, ff: &FuncFacts, sums: &[Summary]) {
        let mut spec = HashMap::default();
        for i in ff.f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if !i.is_call() {
                continue;
            }
            let Some((callee, bind, mut covered, extra)) = ff.call_binding(i) else { continue };
            if self.on_path[callee] {
                covered.clear();
            }
            if let Some(sum) = self.summary(callee, bind, sums) {
                spec.insert(i, crate::func_facts::Spec { sum, covered_args: covered, extra_uses: extra });
            }
        }
        *ff.spec.borrow_mut() = spec;
    }

    pub fn summary(&self, f: usize, bind: Vec<crate::func_facts::Bind>, sums: &[Summary]) -> Option<std::rc::Rc<Summary>> {
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
            if crate::config::debug_loops() {
                let names = |b: &dao_analysis::BitSet| b.iter().map(|g| self.facts.globals.get(g).map(|v| v.name()).unwrap_or_else(|| format!("#{g}"))).collect::<Vec<_>>();
                eprintln!("dao-debug: summary of '{}' for {} bindings (world {}): reads first {:?}{}, kills {:?}", self.facts.funcs[f].name(), key.1.len(), self.facts.cond.world1.get() as u8, names(&sm.globals), if sm.reads_unknown { " and unknown memory" } else { "" }, names(&sm.kills));
            }
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
pub fn summarize(facts: &ModuleFacts, t: &Translated) -> Summary {
    {
        let ng = facts.n_objs();
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
pub fn global_objs(facts: &ModuleFacts, t: &Translated) -> Vec<(usize, u64)> {
    let g0 = t.vars.global_var(0);
    dao_analysis::bytelive::tracked(&t.body)
        .into_iter()
        .filter(|&v| v >= g0 && v < t.vars.unknown_var())
        .map(|v| (v, facts.global_size[v - g0]))
        .collect()
}
