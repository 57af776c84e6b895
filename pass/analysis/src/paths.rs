//! Which functions of a module lie on a path to a checkpoint marker (and are
//! instrumented), from per-function facts about their calls: the plan's
//! reachability phase, without LLVM.
//!
//! Participation: a module with markers, or one that defines `main`, is
//! instrumented; calls in it to unknown external functions may reach a
//! marker in another translation unit, so they count as marker paths too.
use crate::callgraph::{CallGraph, FuncId};
use crate::team::in_marker_region;

/// What the plan knows of each defined function from its calls.
#[derive(Clone, Debug, Default)]
pub struct CallFacts {
    /// Direct calls and forks (caller -> outlined function).
    pub graph: CallGraph,
    /// Calls a checkpoint marker.
    pub has_marker: Vec<bool>,
    /// Calls an external function the table does not know (or an
    /// unrecognised declaration).
    pub calls_unknown: Vec<bool>,
    /// Is passed to a fork call (an outlined parallel region).
    pub microtask: Vec<bool>,
    /// Calls a barrier (or another point where a thread waits for the team).
    pub has_sync: Vec<bool>,
}

impl CallFacts {
    pub fn new(n: usize) -> Self {
        CallFacts { graph: CallGraph::new(n), has_marker: vec![false; n], calls_unknown: vec![false; n], microtask: vec![false; n], has_sync: vec![false; n] }
    }
}

/// Whether a module takes part in checkpointing at all.
pub fn participates(facts: &CallFacts, defines_main: bool) -> bool {
    facts.has_marker.iter().any(|x| *x) || defines_main
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerPaths {
    /// Instrumented: reaches a marker (or unknown code), or waits at a
    /// barrier of a region that does, or is `main`.
    pub on_path: Vec<bool>,
    /// May run inside a parallel region that reaches a marker
    /// ([`crate::team::in_marker_region`]).
    pub parallel: Vec<bool>,
    /// Reaches a marker of this module through its own functions (not
    /// merely unknown code, which may or may not hold one). A function
    /// whose address is taken is rejected only then: one that reaches
    /// unknown code alone -- a C++ virtual function or callback calling a
    /// library -- is left to the runtime's chain check (a checkpoint below
    /// an indirect call finds a frame its caller's site did not call and
    /// is refused; docs/design.md section 20).
    pub reaches_marker: Vec<bool>,
}

/// The functions on a marker path. A barrier in a region that reaches a
/// marker is a place where a thread may wait while another stands at a
/// candidate, so the functions with barriers there are on a path too (sync
/// sites, docs/design.md section 8); `main` always is (the root of every
/// chain).
pub fn marker_paths(facts: &CallFacts, main: Option<FuncId>) -> MarkerPaths {
    let n = facts.graph.len();
    let seeds: Vec<bool> = (0..n).map(|f| facts.has_marker[f] || facts.calls_unknown[f]).collect();
    let reaches = facts.graph.may_reach(&seeds);
    let roots: Vec<bool> = (0..n).map(|f| facts.microtask[f] && reaches[f]).collect();
    let parallel = in_marker_region(&facts.graph, &roots);
    let seeds2: Vec<bool> = (0..n).map(|f| seeds[f] || (parallel[f] && facts.has_sync[f])).collect();
    let mut on_path = facts.graph.may_reach(&seeds2);
    if let Some(m) = main {
        on_path[m] = true;
    }
    let reaches_marker = facts.graph.may_reach(&facts.has_marker);
    MarkerPaths { on_path, parallel, reaches_marker }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_functions_of_a_marker_region_are_on_the_path() {
        // 0 main -fork-> 1 region (marker) -> 2 helper (barrier); 3 serial helper (barrier)
        let mut f = CallFacts::new(4);
        f.graph.add_call(0, 1);
        f.graph.add_call(1, 2);
        f.graph.add_call(0, 3);
        f.microtask[1] = true;
        f.has_marker[1] = true;
        f.has_sync[2] = true;
        f.has_sync[3] = true;
        let p = marker_paths(&f, Some(0));
        assert_eq!(p.parallel, vec![false, true, true, false]);
        assert_eq!(p.on_path, vec![true, true, true, false]);
        assert!(participates(&f, false));
    }

    #[test]
    fn unknown_calls_are_paths_and_main_always_is() {
        let mut f = CallFacts::new(3);
        f.graph.add_call(1, 2);
        f.calls_unknown[2] = true;
        let p = marker_paths(&f, Some(0));
        assert_eq!(p.on_path, vec![true, true, true]);
        assert_eq!(p.parallel, vec![false; 3]);
        assert!(!participates(&f, false));
    }

    #[test]
    fn reaching_a_marker_of_the_module_is_not_reaching_unknown_code() {
        // 0 main -> 1 -> 2 (marker); 3 (a virtual function) -> 4 (calls a library)
        let mut f = CallFacts::new(5);
        f.graph.add_call(0, 1);
        f.graph.add_call(1, 2);
        f.graph.add_call(3, 4);
        f.has_marker[2] = true;
        f.calls_unknown[4] = true;
        let p = marker_paths(&f, Some(0));
        assert_eq!(p.on_path, vec![true, true, true, true, true]);
        assert_eq!(p.reaches_marker, vec![true, true, true, false, false]);
    }
}
