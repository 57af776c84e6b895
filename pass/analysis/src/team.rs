//! Which functions may run in a team (on several threads of an OpenMP
//! parallel region). The pass asks this twice, and the two questions are
//! deliberately different; both are answered here, on the call graph:
//!
//! - [`in_marker_region`] (the plan): *may this function run inside a
//!   parallel region of this module that reaches a checkpoint marker?* Such
//!   functions are instrumented as parallel code (markers also check the
//!   team's checkpoint request, barriers become sync sites). The roots are
//!   the outlined functions on a marker path, the edges are direct calls and
//!   forks. It is a question about this module's markers only.
//! - [`may_run_in_team`] (guard.rs): *may this function run on a worker of a
//!   team whose region can be checkpointed, as far as this module can tell?*
//!   Such functions get shared-write guards. A region in another translation
//!   unit may call any function visible from outside the module (external
//!   linkage or address taken), so those are roots too, except outlined
//!   regions this module does not instrument (they never see a round), the
//!   program's `main` (it runs serially) and dao's own functions; the edges
//!   are direct calls only (an outlined function is a root or nothing).
//!
//! Unifying them would change the output: the first would miss the
//! functions that other modules' regions call, the second would instrument
//! (not only guard) code that never reaches a marker of this module.
use crate::callgraph::CallGraph;

/// The functions that may run inside a parallel region that reaches a
/// marker: `region_roots[f]` when f is an outlined function on a marker
/// path; `calls_and_forks` has an edge for every direct call and every fork
/// of an outlined function.
pub fn in_marker_region(calls_and_forks: &CallGraph, region_roots: &[bool]) -> Vec<bool> {
    calls_and_forks.reachable_from(region_roots, &vec![false; region_roots.len()])
}

/// What the guards' question needs to know of one defined function.
#[derive(Clone, Copy, Debug, Default)]
pub struct TeamFacts {
    /// The program's `main`.
    pub is_main: bool,
    /// One of dao's own functions (runtime entry points, generated helpers).
    pub dao_own: bool,
    /// An outlined function whose region the plan instruments.
    pub instrumented_microtask: bool,
    /// Passed to a fork call (an outlined parallel region).
    pub outlined: bool,
    /// External linkage, or its address is taken.
    pub visible: bool,
}

/// The functions that may run in a team whose region can be checkpointed
/// (see the module comment); `direct_calls` has an edge per direct call.
pub fn may_run_in_team(direct_calls: &CallGraph, facts: &[TeamFacts]) -> Vec<bool> {
    let roots: Vec<bool> = facts
        .iter()
        .map(|f| {
            if f.is_main || f.dao_own {
                false
            } else if f.instrumented_microtask {
                true
            } else if f.outlined {
                false // a region that never reaches a marker
            } else {
                f.visible
            }
        })
        .collect();
    let blocked: Vec<bool> = facts.iter().map(|f| f.dao_own).collect();
    direct_calls.reachable_from(&roots, &blocked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_region_follows_calls_and_forks() {
        // 0 main -fork-> 1 region -> 2 helper; 3 other
        let mut cg = CallGraph::new(4);
        cg.add_call(0, 1);
        cg.add_call(1, 2);
        assert_eq!(in_marker_region(&cg, &[false, true, false, false]), vec![false, true, true, false]);
    }

    #[test]
    fn team_roots_and_blocking() {
        // 0 main -> 1 (static, not visible) ; 2 visible -> 3 dao_own -> 4 ;
        // 5 outlined, not instrumented -> 6 ; 7 instrumented microtask -> 1
        let mut cg = CallGraph::new(8);
        cg.add_call(0, 1);
        cg.add_call(2, 3);
        cg.add_call(3, 4);
        cg.add_call(5, 6);
        cg.add_call(7, 1);
        let mut f = [TeamFacts::default(); 8];
        f[0] = TeamFacts { is_main: true, visible: true, ..Default::default() };
        f[2].visible = true;
        f[3] = TeamFacts { dao_own: true, visible: true, ..Default::default() };
        f[5] = TeamFacts { outlined: true, visible: true, ..Default::default() };
        f[7] = TeamFacts { outlined: true, instrumented_microtask: true, ..Default::default() };
        assert_eq!(may_run_in_team(&cg, &f), vec![false, true, true, false, false, false, false, true]);
    }
}
