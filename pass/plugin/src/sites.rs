//! Phases 4 and 5 of the plan ([`Planner`]): the module-level construct
//! checks, and per function on a marker path its diagnostics, its sites
//! (labelled calls and markers) and what is live at each (SSA values, stack
//! objects, globals whole or in part, the globals dead after a candidate
//! and why).
use crate::anchors::{anchor_index, fork_anchor, serial_anchor};
use crate::constructs::check_constructs;
use crate::diag::{first_loc, Diag, Severity};
use crate::facts::{call_kind, CallKind, ModuleFacts, Summary};
use crate::func_facts::FuncFacts;
use crate::ir::{Opcode, Value};
use crate::known::{self, Effect, MarkerKind, Role};
use crate::plan::{FuncPlan, SectionReport, SiteKind, SitePlan};
use crate::scan::{fork_operand, CallScan};
use crate::summaries::global_objs;
use crate::translate::{translate, Translated};
use dao_analysis::liveness::LiveSets;
use dao_analysis::paths::{CallFacts, MarkerPaths};

/// The state of phases 4 and 5: the module's facts and paths, and what the
/// plan has collected so far.
pub struct Planner<'a> {
    pub facts: &'a ModuleFacts,
    pub calls: &'a CallFacts,
    pub paths: &'a MarkerPaths,
    pub diags: Vec<Diag>,
    pub moves: Vec<(Value, Value)>,
    pub master_only: Vec<Value>,
    /// Sites where the analysis had to be conservative (unknown reads).
    pub conservative: usize,
    pub sections: SectionReport,
    /// The device view's facts, in a module that launches kernels
    /// (`device.rs`).
    pub device: Option<&'a crate::device::DeviceFacts>,
    /// Variable-size allocas on the path that `to_heap.rs` can move.
    pub to_heap: Vec<Value>,
    /// Outlined regions held at run time (no checkpoint inside them), with
    /// the position of the dynamic loop that makes them so.
    pub hold: dao_analysis::fxhash::HashMap<usize, String>,
}

impl Planner<'_> {
    /// Phase 4: markers reachable inside explicit tasks, dynamic loops in a
    /// marker region, markers in nested regions (one diagnostic per task
    /// entry / inner region, at the marker it reaches).
    pub fn construct_diags(&mut self, scan: &CallScan) {
        let (facts, on_path, parallel) = (self.facts, &self.paths.on_path, &self.paths.parallel);
        let mut reported = dao_analysis::fxhash::HashSet::default();
        // explicit tasks and host `teams` regions: a marker reachable
        // inside one cannot be restarted
        let task = |at: String| format!("a checkpoint marker is reachable inside an explicit OpenMP task (created at {at}); tasks may run on any thread at any later time, so a restart cannot put them back: move the marker out of the task, into the code that creates it, after the taskwait or taskgroup that waits for it (inside the generating `single` works)");
        let teams = |at: String| format!("a checkpoint marker is reachable inside an OpenMP `teams` region (opened at {at}); the teams of a league run without a common barrier, so a restart cannot put them back: move the marker out of the `teams` construct");
        let inside = scan.task_entries.iter().map(|&(c, t)| (c, t, &task as &dyn Fn(String) -> String)).chain(scan.teams.iter().map(|&(c, t)| (c, t, &teams as &dyn Fn(String) -> String)));
        for (call, t, msg) in inside {
            if on_path[t] && reported.insert(t) {
                self.diags.push(Diag {
                    severity: Severity::Error,
                    loc: marker_loc(facts, on_path, t).or_else(|| call.debug_loc()),
                    func: facts.funcs[t].name(),
                    msg: msg(call.debug_loc().unwrap_or_else(|| "?".into())),
                });
            }
        }
        // A dynamic loop in a region that reaches a marker of this module is
        // refused here. One in a region that reaches markers only through
        // code of other files (which may hold none) is held at run time
        // instead: no checkpoint is taken inside such a region
        // (`dao_omp_hold_begin`, runtime/src/omp/region.rs).
        let n = facts.funcs.len();
        let own_roots: Vec<bool> = (0..n).map(|f| self.calls.microtask[f] && self.paths.reaches_marker[f]).collect();
        let own = dao_analysis::team::in_marker_region(&self.calls.graph, &own_roots);
        let no_block = vec![false; n];
        for &(fi, call) in &scan.dispatch_inits {
            if parallel[fi] && !own[fi] {
                let loc = call.debug_loc().or_else(|| first_loc(facts.funcs[fi])).unwrap_or_else(|| facts.funcs[fi].name());
                let roots: Vec<usize> = (0..n).filter(|&r| self.calls.microtask[r] && on_path[r] && !self.hold.contains_key(&r)).collect();
                for r in roots {
                    let one: Vec<bool> = (0..n).map(|f| f == r).collect();
                    if self.calls.graph.reachable_from(&one, &no_block)[fi] {
                        self.hold.insert(r, loc.clone());
                    }
                }
                continue;
            }
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
    /// `t`: f's translation with `sums`, when the refinement of the
    /// summaries made it (`summaries::refine_summaries`).
    pub fn plan_function(&mut self, fi: usize, ff: &FuncFacts, sums: &[Summary], t: Option<Translated>) -> FuncPlan {
        let f = self.facts.funcs[fi];
        let name = f.name();
        self.address_taken_diags(f, &name);
        for &a in &ff.dynamic_allocas {
            // moved to the heap before planning again (to_heap.rs), or refused
            let Some(why) = crate::to_heap::why_not(self.facts.m, f, a) else {
                self.to_heap.push(a);
                continue;
            };
            self.diags.push(Diag {
                severity: Severity::Error,
                loc: a.debug_loc().or_else(|| first_loc(f)),
                func: name.clone(),
                msg: format!("variable-size stack allocation (a VLA or alloca()) in function '{name}', which lies on the path to a checkpoint marker, cannot be moved to the heap: {why}; a restart rebuilds each frame at its old address, which needs a fixed frame layout: use a fixed-size array or malloc"),
            });
        }
        let t = t.unwrap_or_else(|| translate(ff, Some(sums)));
        let live = LiveSets::compute(&t.body);
        let dev = self.device.map(|d| d.live(ff, &t));
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
                sites.push(self.site_plan(f, b, i, kind, k, &t, live, dev.as_ref(), ff));
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
            hold: self.hold.get(&fi).cloned(),
        }
    }

    /// A function on a marker path whose address is taken: reachable
    /// through an indirect call or an OpenMP fork.
    pub fn address_taken_diags(&mut self, f: Value, name: &str) {
        let surely = self.facts.func_ix.get(&f).is_some_and(|&fi| self.paths.reaches_marker[fi]);
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
            let task = matches!(known::call_role(u), Some(Role::TaskAlloc { .. } | Role::Teams { .. }));
            if task {
                continue; // diagnosed in construct_diags
            }
            if structor_use(u, f) {
                continue; // runs before main or after it: never on a chain a checkpoint records
            }
            if !surely && !fork {
                continue; // reaches unknown code only: the runtime's chain check (paths.rs)
            }
            let vtable = table_of(u).filter(|g| g.name().starts_with("_ZTV"));
            let msg = if let Some(vt) = vtable {
                format!("function '{}' contains or reaches a checkpoint marker and is a virtual function (in the vtable '{}'); markers reachable through virtual dispatch are not supported: make the call on the marker's path a direct (non-virtual) call, or move the marker to the caller", crate::diag::demangle(name), crate::diag::demangle(&vt.name()))
            } else if fork {
                format!("outlined function '{name}' is passed to __kmpc_fork_call in an unexpected operand position; not recognised as a parallel region")
            } else {
                let dm = crate::diag::demangle(name);
                if dm.starts_with("std::_Function_handler<") {
                    format!("a checkpoint marker is reached through a call of a std::function (its target '{dm}' is called indirectly); markers reachable through std::function, function pointers or callbacks are not supported: call the function or lambda directly, or move the marker to the caller")
                } else {
                    format!("function '{dm}' contains or reaches a checkpoint marker and its address is taken here; markers reachable through indirect calls (function pointers, callbacks) are not supported: call it directly, or move the marker to the caller")
                }
            };
            let loc = if u.is_instruction() { u.debug_loc() } else { None }.or_else(|| first_loc(f));
            // a use inside a library header (std::function's constructor)
            // names no line of the user's: name the marker instead
            let in_header = |l: &String| l.contains("/include/c++/") || l.starts_with("/usr/");
            let loc = match loc {
                Some(l) if in_header(&l) => self.facts.func_ix.get(&f).and_then(|&fi| marker_loc(self.facts, &self.paths.on_path, fi)).filter(|m| !in_header(m)).or(Some(l)),
                l => l,
            };
            self.diags.push(Diag { severity: Severity::Error, loc, func: name.to_string(), msg });
        }
    }

    /// Whether instruction `i` of function `fi` is a site, and of which
    /// kind; the unsupported calls on a marker path are diagnosed here.
    pub fn site_kind(&mut self, fi: usize, name: &str, i: Value) -> Option<(SiteKind, CallKind)> {
        let facts = self.facts;
        let on_path = &self.paths.on_path;
        let f = facts.funcs[fi];
        let error = |loc: Option<String>, msg: String| Diag { severity: Severity::Error, loc, func: name.to_string(), msg };
        // calls and invokes (C++: calls with an exception edge) alike; an
        // asm goto (callbr) calls no function: not a site
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
        if i.is_invoke() && kind != SiteKind::Call {
            // markers are nothrow in dao.h, libomp's entries nounwind: an
            // invoke of one means a declaration dao does not expect
            self.diags.push(error(i.debug_loc(), format!("an invoke (a call with a C++ exception edge) of '{}' on the path to a checkpoint marker: the checkpoint marker and OpenMP's fork and barrier calls must be plain calls (declare them nothrow / noexcept)", i.called_function().map(|c| c.name()).unwrap_or_default())));
            return None;
        }
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
    pub fn site_plan(
        &mut self,
        f: Value,
        b: crate::ir::Block,
        i: Value,
        kind: SiteKind,
        k: CallKind,
        t: &Translated,
        (live, bytes): (&LiveSets, &dao_analysis::bytelive::ByteLive),
        dev: Option<&(dao_analysis::Body, LiveSets)>,
        ff: &FuncFacts,
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
        // A call of a function defined here, on a marker path: on restart
        // the call is made again, but the callee jumps at once to the site
        // its own frame recorded (its entry block holds only its stack
        // objects and the replayed environment calls), so what it reads
        // before that site is never read again, and what it reads after it
        // is in its own frame's set. The caller's frame needs what it
        // reads after the call returns, the call's operands, the stack
        // objects the call may use and every object its pointer arguments
        // may reach (reads through a parameter are the caller's business);
        // not the globals the callee's summary reads (nor, in world 1, the
        // objects its writes of a condition's global use): a `main` that
        // calls the function holding the step loop (flang's `main` calling
        // the main program) no longer keeps everything that function reads
        // before its loop.
        let resumes = kind == SiteKind::Call && matches!(k, CallKind::Defined(g) if !self.calls.microtask[g]);
        let by_args: Vec<usize> = if resumes {
            // every pointer argument, whatever a specialised summary of the
            // call covers (the callee's own frame is planned unbound: its
            // reads through a parameter are the caller's business), and the
            // pointers the call passes in local slots
            let mut v = Vec::new();
            crate::translate::uncovered_arg_uses(ff, &t.vars, i, None, &mut v);
            if let Some(sp) = ff.spec.borrow().get(&i) {
                for &x in &sp.extra_uses {
                    crate::translate::mem_uses(ff, &t.vars, x, &mut v);
                }
            }
            v
        } else {
            Vec::new()
        };
        let set = if resumes {
            let (cb, ci) = t.pos[&i];
            let mut s = live.after(&t.body, cb, ci);
            for &u in &t.body.blocks[cb].stmts[ci].uses {
                if u < t.vars.global_var(0) || by_args.contains(&u) {
                    s.insert(u);
                }
            }
            s
        } else if re_executed {
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
        // (world 1: the boxes beyond the globals)
        let ng = self.facts.globals.len();
        let boxes_live: Vec<usize> = globals.iter().copied().filter(|&g| g >= ng).collect();
        globals.retain(|&g| g < ng);
        // the live bytes of the globals rewritten in part on some path: the
        // same two positions as the live set above
        let mut partial = Vec::new();
        globals.retain(|&g| {
            let v = t.vars.global_var(g);
            let at = if resumes {
                let (cb, ci) = t.pos[&i];
                // (an object a pointer argument may reach counts whole)
                if by_args.contains(&v) {
                    None
                } else {
                    bytes.after(&t.body, cb, ci, v)
                }
            } else if re_executed {
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
        // why the big live globals are kept: `-Rdao` and the descriptor
        // (`dao inspect`), so computed with or without remarks
        let kept = if matches!(kind, SiteKind::Marker | SiteKind::Forced) {
            self.why_kept(f, t, &globals, (bi, si))
        } else {
            Vec::new()
        };
        // the device copies dead here, at the same position as the host's
        // live set (device.rs)
        let ddead = match (dev, self.device) {
            (Some((db, dl)), Some(d)) => {
                let dlive = if resumes {
                    let (cb, ci) = t.pos[&i];
                    dl.after(db, cb, ci)
                } else if re_executed {
                    dl.before(db, bi, si)
                } else {
                    dl.after(db, bi, si)
                };
                d.mapped.iter().copied().filter(|&g| !dlive.contains(g) && !self.facts.global_declared[g]).collect()
            }
            _ => Vec::new(),
        };
        SitePlan {
            dead,
            unread,
            kept,
            cdead: Vec::new(),
            boxes_live,
            cboxes: Vec::new(),
            ddead,
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
    pub fn why_dead(
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
            // (a heap object's size may be known only at run time)
            let size = if self.facts.heap_size_unknown(g) { 0 } else { self.facts.global_size[g] };
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
                unread.1 += size;
                continue;
            }
            let why = kills.iter().map(|&at| describe(&blocks, t, at, false)).collect();
            dead.push((g, dead_bytes, why));
        }
        (dead, unread)
    }
}

impl Planner<'_> {
    /// For `-Rdao` (issue #33): why each global of `live` of at least
    /// `KEPT_REMARK` bytes is kept at the site at `at`: the statements
    /// that read it first on the paths from the site
    /// (`sections::first_uses`), described by kind and file:line, at most
    /// three; "live when 'f' returns" when a path reaches the function's
    /// end without reading or rewriting it (its callers' frames read it).
    pub fn why_kept(&self, f: Value, t: &Translated, live: &[usize], at: (usize, usize)) -> Vec<(usize, Vec<String>)> {
        let blocks = f.blocks();
        let mut out = Vec::new();
        for &g in live {
            if self.facts.global_size[g] < KEPT_REMARK {
                continue;
            }
            let (uses, exit) = dao_analysis::sections::first_uses(&t.body, at, t.vars.global_var(g));
            let mut why: Vec<String> = uses.iter().map(|&u| describe(&blocks, t, u, true)).collect();
            why.sort();
            why.dedup();
            let more = why.len().saturating_sub(3);
            why.truncate(3);
            if more > 0 {
                why.push(format!("{more} more"));
            }
            if exit {
                why.push(format!("live when '{}' returns", f.name()));
            }
            out.push((g, why));
        }
        out
    }
}

/// Why a global is kept, in the words `-Rdao` and `dao inspect` both use:
/// "read first by the loop at bt.c:40 or ..." (`why` from
/// [`Planner::why_kept`]).
pub fn kept_text(why: &[String]) -> String {
    format!("read first by {}", if why.is_empty() { "nothing the pass can name".to_string() } else { why.join(" or ") })
}

/// Globals at least this large get a reason they are kept in `-Rdao`.
pub const KEPT_REMARK: u64 = 64 * 1024;

/// A statement of a translated body as `-Rdao` names it: the loop (a loop
/// kill's statement), the parallel region, the call, memset, memcpy,
/// store, or (`read`) the read, with its file:line.
fn describe(blocks: &[crate::ir::Block], t: &Translated, (b, s): (usize, usize), read: bool) -> String {
    let at_loc = |i: Value| i.debug_loc().map(|l| format!(" at {l}")).unwrap_or_default();
    if let Some(k) = t.loop_kills.iter().find(|k| k.at == (b, s)) {
        let loc = k.header.instructions().into_iter().find_map(|i| i.debug_loc());
        return format!("the loop{}", loc.map(|l| format!(" at {l}")).unwrap_or_default());
    }
    let Some(i) = blocks.get(b).and_then(|blk| blk.instructions().get(s).copied()) else {
        return if read { "a read".to_string() } else { "a write".to_string() };
    };
    if i.is_call() {
        if let Some(Role::Fork { microtask }) = known::call_role(i) {
            // the region's own first line (flang gives the fork call the
            // line of a declaration)
            let task = i.operand(microtask);
            let loc = (task.is_function()).then(|| first_loc(task)).flatten().or_else(|| i.debug_loc());
            return format!("the parallel region '{}'{}", task.name(), loc.map(|l| format!(" at {l}")).unwrap_or_default());
        }
        return match known::call_intrinsic(i) {
            Some(crate::known::Intr::Set { .. }) => format!("a memset{}", at_loc(i)),
            Some(crate::known::Intr::Copy { .. }) => format!("a memcpy{}", at_loc(i)),
            _ => {
                let name = i.called_function().map(|c| c.name());
                let unknown = i.called_function().is_none_or(|c| c.is_declaration() && known::effect(c).is_none());
                format!(
                    "the call of '{}'{}{}",
                    name.unwrap_or_else(|| "?".into()),
                    at_loc(i),
                    if unknown && read { " (code the pass cannot see: it may read any global whose address escapes)" } else { "" }
                )
            }
        };
    }
    if read {
        format!("a read{}", at_loc(i))
    } else {
        format!("a store{}", at_loc(i))
    }
}

/// The end of an outlined region, for threads that have finished their part.
pub fn exit_site(f: Value) -> Option<SitePlan> {
    let ret = f.blocks().into_iter().find_map(|b| b.terminator().filter(|t| t.opcode() == Opcode::LLVMRet))?;
    Some(SitePlan {
        dead: Vec::new(),
        unread: (0, 0),
        kept: Vec::new(),
        cdead: Vec::new(),
        boxes_live: Vec::new(),
        cboxes: Vec::new(),
        ddead: Vec::new(),
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

/// Where the first marker reachable from function `f` is (through calls to
/// functions on a marker path), for diagnostics that should point at it.
pub fn marker_loc(facts: &ModuleFacts, on_path: &[bool], f: usize) -> Option<String> {
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

/// Whether user `u` of function `f` only registers it to run before or
/// after `main`: an entry of `llvm.global_ctors` / `llvm.global_dtors`
/// (C++ static initializers and destructors, `__attribute__((constructor))`)
/// or the handler operand of `atexit` / `__cxa_atexit` (a static object's
/// destructor). Such a function runs outside every call chain a checkpoint
/// records; the exit handlers `atexit` registers are put back by the
/// runtime at a restart (runtime/src/process.rs).
fn structor_use(u: Value, f: Value) -> bool {
    if u.is_call() {
        let reg = u.called_function().map(|c| c.name());
        return matches!(reg.as_deref(), Some("atexit" | "__cxa_atexit" | "__cxa_thread_atexit" | "__cxa_thread_atexit_impl")) && u.num_args() > 0 && u.operand(0) == f;
    }
    table_of(u).is_some_and(|g| matches!(g.name().as_str(), "llvm.global_ctors" | "llvm.global_dtors"))
}

/// The global variable whose initializer holds constant `u` (through at
/// most three levels of constant aggregates), if any.
fn table_of(u: Value) -> Option<Value> {
    let mut level = vec![u];
    for _ in 0..4 {
        if let Some(g) = level.iter().find(|v| v.is_global_var()) {
            return Some(*g);
        }
        level = level.iter().filter(|v| v.is_constant() && !v.is_instruction()).flat_map(|v| v.users()).collect();
        if level.is_empty() {
            return None;
        }
    }
    None
}
