//! Liveness: the DAO criterion. A variable must be in a checkpoint taken at
//! point p iff some path from p reads it before overwriting it, i.e. iff it
//! is live at p. Backward, may, `live_in = uses ∪ (live_out − defs)`.
use crate::bitset::BitSet;
use crate::body::{BlockId, Body, Stmt};
use crate::dataflow::{solve, Analysis, Direction, Results};

pub struct Liveness;

impl Analysis<Body> for Liveness {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Backward;
    fn bottom(&self, body: &Body) -> BitSet {
        BitSet::new_empty(body.num_vars)
    }
    fn boundary(&self, body: &Body) -> BitSet {
        BitSet::new_empty(body.num_vars)
    }
    fn join(&self, into: &mut BitSet, other: &BitSet) {
        into.union_with(other);
    }
    fn apply_stmt(&self, fact: &mut BitSet, _b: BlockId, _i: usize, stmt: &Stmt) {
        for &d in &stmt.defs {
            fact.remove(d);
        }
        for &u in &stmt.uses {
            fact.insert(u);
        }
    }
}

/// Live sets at every statement boundary of a body.
pub struct LiveSets {
    results: Results<BitSet>,
}

impl LiveSets {
    pub fn compute(body: &Body) -> Self {
        LiveSets { results: solve(&Liveness, body) }
    }
    /// Live before statement `i` of block `b` (`i == len` gives live-out).
    pub fn before(&self, body: &Body, b: BlockId, i: usize) -> BitSet {
        self.results.stmt_facts(&Liveness, body, b).swap_remove(i)
    }
    /// Live after statement `i` of block `b`.
    pub fn after(&self, body: &Body, b: BlockId, i: usize) -> BitSet {
        self.before(body, b, i + 1)
    }
    /// All boundaries of block `b` at once (cheaper when asking many).
    pub fn block(&self, body: &Body, b: BlockId) -> Vec<BitSet> {
        self.results.stmt_facts(&Liveness, body, b)
    }
    pub fn live_in(&self, b: BlockId) -> &BitSet {
        &self.results.entry[b]
    }
}
