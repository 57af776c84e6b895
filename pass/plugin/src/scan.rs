//! Phase 1 of the plan: every call of every defined function, by what it
//! calls ([`CallScan`]: the LLVM-free call facts for `dao_analysis::paths`,
//! and the OpenMP calls the construct checks need).
use crate::facts::{call_kind, CallKind, ModuleFacts};
use crate::ir::Value;
use crate::known::{self, Effect, Role};
use dao_analysis::paths::CallFacts;

/// The outlined-function operand of a call whose callee is a fork entry point.
pub fn fork_operand(call: Value) -> u32 {
    call.called_function().and_then(known::fork_microtask).expect("a fork entry point has a microtask operand")
}

/// Whether `f` is the outlined function of a host `teams` region (the
/// microtask operand of a `__kmpc_fork_teams` call).
pub fn teams_entry(f: Value) -> bool {
    f.users().into_iter().any(|u| u.is_call() && matches!(known::call_role(u), Some(Role::Teams { microtask }) if u.num_args() > microtask && u.operand(microtask) == f))
}

/// What the calls of a module's functions say: the LLVM-free facts for
/// `dao_analysis::paths`, and the OpenMP calls the construct checks need.
pub struct CallScan {
    pub calls: CallFacts,
    /// (caller, fork call, outlined function).
    pub forks: Vec<(usize, Value, usize)>,
    /// (task creation call, task entry).
    pub task_entries: Vec<(Value, usize)>,
    /// (`__kmpc_fork_teams` call, its outlined function).
    pub teams: Vec<(Value, usize)>,
    /// (function, `__kmpc_dispatch_init_*` call).
    pub dispatch_inits: Vec<(usize, Value)>,
}

/// Phase 1: every call of every defined function, by what it calls.
pub fn scan_calls(facts: &ModuleFacts) -> CallScan {
    let nf = facts.funcs.len();
    let mut scan = CallScan { calls: CallFacts::new(nf), forks: Vec::new(), task_entries: Vec::new(), teams: Vec::new(), dispatch_inits: Vec::new() };
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
                                // what it reads (translate.rs, call_uses)
                                c.graph.add_call(fi, t);
                                scan.task_entries.push((i, t));
                            }
                        }
                        // a host `teams` region: its outlined function runs
                        // within the call (its reads are the caller's,
                        // translate.rs `call_uses`)
                        Some(Role::Teams { microtask }) if i.num_args() > microtask => {
                            if let Some(&t) = facts.func_ix.get(&i.operand(microtask)) {
                                c.graph.add_call(fi, t);
                                scan.teams.push((i, t));
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
