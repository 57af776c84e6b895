//! The data-flow framework: a lattice, a direction and transfer functions,
//! solved by one worklist engine (the split of rustc's `rustc_mir_dataflow`).
//!
//! A [`Graph`] ([`crate::graph`]) is blocks of statements with successor
//! lists (block 0 is the entry); [`crate::body::Body`] is the one liveness
//! runs on, the guard placement has its own ([`crate::guards::Cfg`]). An
//! [`Analysis`] names its
//! fact type ([`Analysis::Domain`]) with its lattice (the fact every block
//! starts from, [`Analysis::bottom`], and [`Analysis::join`], which may only
//! move a fact up), the fact at the boundary, and how one statement
//! transforms a fact. [`solve`] computes block-boundary facts to the least
//! fixpoint above `bottom`; [`Results::stmt_facts`] replays a block to get the
//! fact before/after every statement.
//!
//! Both kinds of analysis dao needs are instances:
//! - may-analyses (liveness): a set, `bottom` empty, `join` = union;
//! - must-analyses (guard availability): "holds on every path", `bottom` =
//!   "holds" (the optimistic start, the top of the must-lattice), `join` =
//!   intersection, the boundary "does not hold". Starting optimistic is what
//!   makes a loop whose body keeps the property keep it around the back
//!   edge; the fixpoint reached is the greatest solution of the must
//!   equations, which is the sound one (every path from the boundary
//!   establishes the property, by induction on the path).
use crate::graph::{BlockId, Graph};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

pub trait Analysis<G: Graph> {
    /// The facts, a join-semilattice with [`Analysis::bottom`] and
    /// [`Analysis::join`].
    type Domain: Clone + Eq;
    const DIRECTION: Direction;
    /// The fact every block boundary starts from before the fixpoint
    /// iteration (the least element).
    fn bottom(&self, g: &G) -> Self::Domain;
    /// The fact at the boundary: the entry for forward analyses, every exit
    /// (block without successors) for backward ones.
    fn boundary(&self, g: &G) -> Self::Domain;
    /// `into = into ⊔ other`.
    fn join(&self, into: &mut Self::Domain, other: &Self::Domain);
    /// Transfer statement `i` of block `b`, in the analysis direction.
    fn apply_stmt(&self, fact: &mut Self::Domain, b: BlockId, i: usize, stmt: &G::Stmt);
    /// Transfer at the start of block `b` (program order), before its first
    /// statement: forward, right after the join; backward, last.
    fn apply_block_start(&self, _fact: &mut Self::Domain, _b: BlockId) {}
    /// Transfer at the end of block `b` (program order), after its last
    /// statement: forward, last; backward, right after the join.
    fn apply_block_end(&self, _fact: &mut Self::Domain, _b: BlockId) {}
}

/// Facts at block boundaries, in program order: `entry[b]` holds before the
/// first statement of `b` (after [`Analysis::apply_block_start`]), `exit[b]`
/// after the last one (before [`Analysis::apply_block_end`]); the edges
/// carry the facts across the hooks.
pub struct Results<D> {
    pub entry: Vec<D>,
    pub exit: Vec<D>,
}

pub fn solve<G: Graph, A: Analysis<G>>(a: &A, g: &G) -> Results<A::Domain> {
    let n = g.num_blocks();
    let bottom = a.bottom(g);
    let mut entry = vec![bottom.clone(); n];
    let mut exit = vec![bottom.clone(); n];
    // what flows along the edges: forward, the fact after the block's end
    // hook; backward, the fact before its start hook
    let mut out = vec![bottom.clone(); n];
    let preds = g.preds();
    let order = g.reverse_postorder();
    let mut queue: VecDeque<BlockId> = match A::DIRECTION {
        Direction::Forward => order.iter().copied().collect(),
        Direction::Backward => order.iter().rev().copied().collect(),
    };
    let mut queued = vec![true; n];
    while let Some(b) = queue.pop_front() {
        queued[b] = false;
        let stmts = g.stmts(b);
        let (next, changed): (&[BlockId], bool) = match A::DIRECTION {
            Direction::Backward => {
                let mut fact = if g.succs(b).is_empty() { a.boundary(g) } else { bottom.clone() };
                for &s in g.succs(b) {
                    a.join(&mut fact, &out[s]);
                }
                a.apply_block_end(&mut fact, b);
                exit[b] = fact.clone();
                for (i, st) in stmts.iter().enumerate().rev() {
                    a.apply_stmt(&mut fact, b, i, st);
                }
                entry[b] = fact.clone();
                a.apply_block_start(&mut fact, b);
                let changed = fact != out[b];
                out[b] = fact;
                (&preds[b], changed)
            }
            Direction::Forward => {
                let mut fact = if b == 0 { a.boundary(g) } else { bottom.clone() };
                for &p in &preds[b] {
                    a.join(&mut fact, &out[p]);
                }
                a.apply_block_start(&mut fact, b);
                entry[b] = fact.clone();
                for (i, st) in stmts.iter().enumerate() {
                    a.apply_stmt(&mut fact, b, i, st);
                }
                exit[b] = fact.clone();
                a.apply_block_end(&mut fact, b);
                let changed = fact != out[b];
                out[b] = fact;
                (g.succs(b), changed)
            }
        };
        // (blocks not visited yet are still queued from the start)
        if changed {
            for &s in next {
                if !queued[s] {
                    queued[s] = true;
                    queue.push_back(s);
                }
            }
        }
    }
    Results { entry, exit }
}

impl<D: Clone> Results<D> {
    /// The facts before each statement of block `b` (in program order),
    /// plus the fact after the last one: `stmts.len() + 1` facts.
    pub fn stmt_facts<G: Graph, A: Analysis<G, Domain = D>>(&self, a: &A, g: &G, b: BlockId) -> Vec<D> {
        let stmts = g.stmts(b);
        let mut out = Vec::with_capacity(stmts.len() + 1);
        match A::DIRECTION {
            Direction::Backward => {
                let mut fact = self.exit[b].clone();
                out.push(fact.clone());
                for (i, st) in stmts.iter().enumerate().rev() {
                    a.apply_stmt(&mut fact, b, i, st);
                    out.push(fact.clone());
                }
                out.reverse();
            }
            Direction::Forward => {
                let mut fact = self.entry[b].clone();
                out.push(fact.clone());
                for (i, st) in stmts.iter().enumerate() {
                    a.apply_stmt(&mut fact, b, i, st);
                    out.push(fact.clone());
                }
            }
        }
        out
    }
}
