//! The call graph of a module: which functions may reach a checkpoint
//! marker (they are on a "marker path" and get instrumented), and
//! interprocedural summaries solved bottom-up over strongly connected
//! components (recursion included).
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

pub type FuncId = usize;

#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// `callees[f]`: the functions f calls directly (duplicates allowed).
    pub callees: Vec<Vec<FuncId>>,
}

impl CallGraph {
    pub fn new(n: usize) -> Self {
        CallGraph { callees: vec![Vec::new(); n] }
    }
    pub fn add_call(&mut self, caller: FuncId, callee: FuncId) {
        self.callees[caller].push(callee);
    }
    pub fn len(&self) -> usize {
        self.callees.len()
    }
    pub fn is_empty(&self) -> bool {
        self.callees.is_empty()
    }

    /// `reaches[f]` iff f is a seed or calls (transitively) a seed.
    pub fn may_reach(&self, seeds: &[bool]) -> Vec<bool> {
        let n = self.len();
        let mut callers = vec![Vec::new(); n];
        for (f, cs) in self.callees.iter().enumerate() {
            for &g in cs {
                callers[g].push(f);
            }
        }
        let mut reach = seeds.to_vec();
        let mut work: Vec<FuncId> = (0..n).filter(|&f| seeds[f]).collect();
        while let Some(g) = work.pop() {
            for &f in &callers[g] {
                if !reach[f] {
                    reach[f] = true;
                    work.push(f);
                }
            }
        }
        reach
    }

    /// `reached[f]` iff f is a root or a (transitive) callee of one, never
    /// entering a `blocked` function (a blocked root is still reached).
    pub fn reachable_from(&self, roots: &[bool], blocked: &[bool]) -> Vec<bool> {
        let mut reached = roots.to_vec();
        let mut work: Vec<FuncId> = (0..self.len()).filter(|&f| roots[f]).collect();
        while let Some(f) = work.pop() {
            for &g in &self.callees[f] {
                if !blocked[g] && !reached[g] {
                    reached[g] = true;
                    work.push(g);
                }
            }
        }
        reached
    }

    /// The functions whose own (may-read) summary a bottom-up narrowing
    /// keeps or joins into one it keeps: those in a cycle (an SCC of more
    /// than one function, or calling themselves), those `kept` names, and
    /// their transitive callees. Every other function's summary is replaced
    /// before any caller reads it, so its may-read summary need not be made.
    pub fn may_read_needed(&self, kept: &[bool]) -> Vec<bool> {
        let mut roots = kept.to_vec();
        for scc in self.sccs_bottom_up() {
            for &f in &scc {
                roots[f] |= scc.len() > 1 || self.callees[f].contains(&f);
            }
        }
        self.reachable_from(&roots, &vec![false; self.len()])
    }

    /// Strongly connected components, callees before callers.
    pub fn sccs_bottom_up(&self) -> Vec<Vec<FuncId>> {
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..self.len()).map(|_| g.add_node(())).collect();
        for (f, cs) in self.callees.iter().enumerate() {
            for &c in cs {
                g.add_edge(nodes[f], nodes[c], ());
            }
        }
        // tarjan_scc yields SCCs in reverse topological order: callees first.
        tarjan_scc(&g).into_iter().map(|scc| scc.into_iter().map(|n| n.index()).collect()).collect()
    }

    /// Interprocedural summaries: start from each function's `local` summary
    /// and join in every callee's, to a fixpoint within each SCC.
    pub fn summarize<T: Clone>(&self, local: Vec<T>, join: impl Fn(&mut T, &T) -> bool) -> Vec<T> {
        let mut sum = local;
        for scc in self.sccs_bottom_up() {
            loop {
                let mut changed = false;
                for &f in &scc {
                    for &g in &self.callees[f] {
                        if f == g {
                            continue;
                        }
                        let gs = sum[g].clone();
                        changed |= join(&mut sum[f], &gs);
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_through_chain_and_recursion() {
        // 0 main -> 1 solve -> 2 step (marker); 3 report (no marker); 2 -> 2 recursive
        let mut cg = CallGraph::new(4);
        cg.add_call(0, 1);
        cg.add_call(1, 2);
        cg.add_call(2, 2);
        cg.add_call(0, 3);
        let r = cg.may_reach(&[false, false, true, false]);
        assert_eq!(r, vec![true, true, true, false]);
        let down = cg.reachable_from(&[false, true, false, false], &[false; 4]);
        assert_eq!(down, vec![false, true, true, false]);
        let blocked = cg.reachable_from(&[true, false, false, false], &[false, false, true, false]);
        assert_eq!(blocked, vec![true, true, false, true]);
    }

    #[test]
    fn may_read_needed_below_cycles_and_kept() {
        // 0 -> 1 -> 2 ; 0 -> 3 <-> 4 -> 5 ; 6 -> 6 -> 7 ; 8 (kept) -> 9 ; 10 -> 9
        let mut cg = CallGraph::new(11);
        for (a, b) in [(0, 1), (1, 2), (0, 3), (3, 4), (4, 3), (4, 5), (6, 6), (6, 7), (8, 9), (10, 9)] {
            cg.add_call(a, b);
        }
        let mut kept = vec![false; 11];
        kept[8] = true;
        let n = cg.may_read_needed(&kept);
        let want = [false, false, false, true, true, true, true, true, true, true, false];
        assert_eq!(n, want);
    }

    #[test]
    fn summaries_flow_up_through_sccs() {
        // 0 -> 1 <-> 2 -> 3 ; each reads bit = its id
        let mut cg = CallGraph::new(4);
        cg.add_call(0, 1);
        cg.add_call(1, 2);
        cg.add_call(2, 1);
        cg.add_call(2, 3);
        let local: Vec<u32> = (0..4).map(|i| 1 << i).collect();
        let s = cg.summarize(local, |a, b| {
            let n = *a | *b;
            let c = n != *a;
            *a = n;
            c
        });
        assert_eq!(s, vec![0b1111, 0b1110, 0b1110, 0b1000]);
    }
}
