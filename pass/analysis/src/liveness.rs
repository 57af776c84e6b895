//! Liveness: the DAO criterion. A variable must be in a checkpoint taken at
//! point p iff some path from p reads it before overwriting it, i.e. iff it
//! is live at p. Backward, may, `live_in = uses ∪ (live_out − defs)`.
use crate::bitset::BitSet;
use crate::body::{Body, Stmt};
use crate::dataflow::{solve, Analysis, Direction, Results};
use crate::graph::BlockId;

/// Backward may-liveness, parameterised by its boundary: the set live at
/// every exit (block without successors). The checkpoint criterion has
/// nothing live there ([`Liveness::NOTHING_AT_EXIT`], what [`LiveSets`]
/// computes); a function's entry summary also asks with its globals live
/// at the exits ([`Liveness::at_exit`], [`crate::sections::entry_summary`]).
pub struct Liveness<'a> {
    /// `None`: nothing is live at the exits.
    live_at_exit: Option<&'a BitSet>,
}

impl Liveness<'static> {
    /// Nothing live at the exits.
    pub const NOTHING_AT_EXIT: Liveness<'static> = Liveness { live_at_exit: None };
}

impl<'a> Liveness<'a> {
    /// `live` at every exit.
    pub fn at_exit(live: &'a BitSet) -> Self {
        Liveness { live_at_exit: Some(live) }
    }
}

impl Analysis<Body> for Liveness<'_> {
    type Domain = BitSet;
    const DIRECTION: Direction = Direction::Backward;
    fn bottom(&self, body: &Body) -> BitSet {
        BitSet::new_empty(body.num_vars)
    }
    fn boundary(&self, body: &Body) -> BitSet {
        match self.live_at_exit {
            Some(live) => live.clone(),
            None => BitSet::new_empty(body.num_vars),
        }
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
        LiveSets { results: solve(&Liveness::NOTHING_AT_EXIT, body) }
    }
    /// Live before statement `i` of block `b` (`i == len` gives live-out).
    pub fn before(&self, body: &Body, b: BlockId, i: usize) -> BitSet {
        self.results.stmt_facts(&Liveness::NOTHING_AT_EXIT, body, b).swap_remove(i)
    }
    /// Live after statement `i` of block `b`.
    pub fn after(&self, body: &Body, b: BlockId, i: usize) -> BitSet {
        self.before(body, b, i + 1)
    }
    /// All boundaries of block `b` at once (cheaper when asking many).
    pub fn block(&self, body: &Body, b: BlockId) -> Vec<BitSet> {
        self.results.stmt_facts(&Liveness::NOTHING_AT_EXIT, body, b)
    }
    pub fn live_in(&self, b: BlockId) -> &BitSet {
        &self.results.entry[b]
    }
}
