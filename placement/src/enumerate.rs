//! Exponential exact methods, for cross-checking [`crate::window`] on small
//! inputs.
//!
//! [`implicit`] is the paper's "filtered implicit enumeration" (Balas'
//! additive algorithm as the DAO and CPU-GPU papers use it): the 0-1 points
//! are enumerated depth first, one variable at a time in time order,
//! keeping the best objective found so far as the filter bound Z; a partial
//! point whose objective already reaches Z is not extended, nor one whose
//! constraint can no longer be met (skipping instance i is only possible if
//! the next point is within the interval of the last chosen one). Exact,
//! exponential in the worst case. [`brute_force`] checks all 2^n subsets.

use crate::error::Infeasible;
use crate::window::{Choice, Problem};

/// Every subset, n <= 24. Returns the cheapest feasible one (the
/// lexicographically first among equals), or the first gap if none is.
pub fn brute_force(p: &Problem) -> Result<Choice, Infeasible> {
    let n = p.len();
    assert!(n <= 24, "brute force over 2^{n} subsets");
    let mut best: Option<Choice> = None;
    for mask in 0u32..(1u32 << n) {
        let chosen: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
        if p.check(&chosen).is_err() {
            continue;
        }
        let cost = p.cost(&chosen);
        if best.as_ref().map_or(true, |b| cost < b.cost) {
            best = Some(Choice { chosen, cost });
        }
    }
    best.ok_or_else(|| p.first_gap().expect("no feasible subset implies a gap"))
}

/// Statistics of one enumeration.
#[derive(Debug, Default, Clone, Copy)]
pub struct Nodes {
    /// Partial points visited.
    pub visited: u64,
    /// Cut by the filter (objective >= Z).
    pub filtered: u64,
}

/// The paper's filtered implicit enumeration. `limit` bounds the nodes
/// visited (None: no bound); returns None when it is reached.
pub fn implicit(p: &Problem, limit: Option<u64>) -> Option<(Result<Choice, Infeasible>, Nodes)> {
    if let Some(g) = p.first_gap() {
        return Some((Err(g), Nodes::default()));
    }
    let mut e = Enum { p, best: f64::INFINITY, best_set: Vec::new(), cur: Vec::new(), nodes: Nodes::default(), limit: limit.unwrap_or(u64::MAX) };
    // The full set is feasible: its cost is the first bound Z.
    e.best = p.cost(&(0..p.len()).collect::<Vec<_>>());
    e.best_set = (0..p.len()).collect();
    if !e.go(0, 0.0, 0.0) {
        return None;
    }
    let nodes = e.nodes;
    Some((Ok(Choice { chosen: e.best_set, cost: e.best }), nodes))
}

struct Enum<'a> {
    p: &'a Problem,
    best: f64,
    best_set: Vec<usize>,
    cur: Vec<usize>,
    nodes: Nodes,
    limit: u64,
}

impl Enum<'_> {
    /// Decide instances i.. given the last chosen time and the cost so far.
    /// Returns false when the node limit is reached.
    fn go(&mut self, i: usize, last: f64, cost: f64) -> bool {
        self.nodes.visited += 1;
        if self.nodes.visited > self.limit {
            return false;
        }
        let n = self.p.len();
        if i == n {
            // The end must be within the interval of the last chosen point.
            if self.p.end - last <= self.p.max_gap && cost < self.best {
                self.best = cost;
                self.best_set = self.cur.clone();
            }
            return true;
        }
        let next = if i + 1 < n { self.p.times[i + 1] } else { self.p.end };
        // x_i = 0 first (it never raises the objective): allowed if the next
        // point is still reachable from the last chosen one.
        if next - last <= self.p.max_gap && !self.go(i + 1, last, cost) {
            return false;
        }
        // x_i = 1: filtered by the bound.
        let c = cost + self.p.weights[i];
        if c >= self.best {
            self.nodes.filtered += 1;
            return true;
        }
        if self.p.times[i] - last > self.p.max_gap {
            return true;
        }
        self.cur.push(i);
        let ok = self.go(i + 1, self.p.times[i], c);
        self.cur.pop();
        ok
    }
}
