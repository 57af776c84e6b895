//! The construct checks of a function's sites: markers (and calls that
//! reach one) inside OpenMP constructs that not every thread runs to the
//! end (refused, or moved after a critical section's end), and `single`
//! blocks the master runs.
use crate::diag::{Diag, Severity};
use crate::ir::Value;
use crate::known::{self, Role};
use crate::plan::{SiteKind, SitePlan};

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
pub fn check_constructs(f: Value, name: &str, sites: &[SitePlan], diags: &mut Vec<Diag>, moves: &mut Vec<(Value, Value)>, master_only: &mut Vec<Value>) {
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
pub fn master_block(begin: Value) -> Option<bool> {
    let Some(Role::Exclusive { end, .. }) = known::call_role(begin) else { return None };
    match end {
        known::names::KMPC_END_SINGLE => Some(true),
        known::names::KMPC_END_MASTER => Some(false),
        // __kmpc_masked(ident, gtid, filter)
        known::names::KMPC_END_MASKED if begin.num_args() > 2 && begin.operand(2).const_int_value() == Some(0) => Some(false),
        _ => None,
    }
}
