//! The data-flow framework: a lattice, a direction and transfer functions,
//! solved by one worklist engine (the split of rustc's `rustc_mir_dataflow`).
//!
//! An [`Analysis`] says what the bottom fact is and how one statement
//! transforms a fact; the engine computes block-boundary facts to a fixpoint
//! and [`Results::stmt_facts`] replays a block to get the fact before/after
//! every statement. Facts are joined with `union` (may-analyses); that is all
//! dao needs.
use crate::bitset::BitSet;
use crate::body::{BlockId, Body, Stmt};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

pub trait Analysis {
    const DIRECTION: Direction;
    /// The fact at the boundary (entry for forward, every exit for backward).
    fn boundary(&self, body: &Body) -> BitSet {
        BitSet::new_empty(body.num_vars)
    }
    /// Transfer one statement, in the analysis direction.
    fn apply_stmt(&self, fact: &mut BitSet, stmt: &Stmt);
}

/// Facts at block boundaries, in program order: `entry[b]` holds before the
/// first statement of `b`, `exit[b]` after the last.
pub struct Results {
    pub entry: Vec<BitSet>,
    pub exit: Vec<BitSet>,
}

pub fn solve<A: Analysis>(a: &A, body: &Body) -> Results {
    let n = body.blocks.len();
    let empty = BitSet::new_empty(body.num_vars);
    let mut entry = vec![empty.clone(); n];
    let mut exit = vec![empty.clone(); n];
    let preds = body.preds();
    let order = body.reverse_postorder();
    let mut queue: VecDeque<BlockId> = match A::DIRECTION {
        Direction::Forward => order.iter().copied().collect(),
        Direction::Backward => order.iter().rev().copied().collect(),
    };
    let mut queued = vec![true; n];
    while let Some(b) = queue.pop_front() {
        queued[b] = false;
        let blk = &body.blocks[b];
        match A::DIRECTION {
            Direction::Backward => {
                let mut fact = if blk.succs.is_empty() { a.boundary(body) } else { empty.clone() };
                for &s in &blk.succs {
                    fact.union_with(&entry[s]);
                }
                exit[b] = fact.clone();
                for st in blk.stmts.iter().rev() {
                    a.apply_stmt(&mut fact, st);
                }
                if fact != entry[b] {
                    entry[b] = fact;
                    for &p in &preds[b] {
                        if !queued[p] {
                            queued[p] = true;
                            queue.push_back(p);
                        }
                    }
                }
            }
            Direction::Forward => {
                let mut fact = if b == body.entry() { a.boundary(body) } else { empty.clone() };
                for &p in &preds[b] {
                    fact.union_with(&exit[p]);
                }
                entry[b] = fact.clone();
                for st in &blk.stmts {
                    a.apply_stmt(&mut fact, st);
                }
                if fact != exit[b] {
                    exit[b] = fact;
                    for &s in &blk.succs {
                        if !queued[s] {
                            queued[s] = true;
                            queue.push_back(s);
                        }
                    }
                }
            }
        }
    }
    Results { entry, exit }
}

impl Results {
    /// The facts before each statement of block `b` (in program order),
    /// plus the fact after the last one: `stmts.len() + 1` sets.
    pub fn stmt_facts<A: Analysis>(&self, a: &A, body: &Body, b: BlockId) -> Vec<BitSet> {
        let stmts = &body.blocks[b].stmts;
        let mut out = Vec::with_capacity(stmts.len() + 1);
        match A::DIRECTION {
            Direction::Backward => {
                let mut fact = self.exit[b].clone();
                out.push(fact.clone());
                for st in stmts.iter().rev() {
                    a.apply_stmt(&mut fact, st);
                    out.push(fact.clone());
                }
                out.reverse();
            }
            Direction::Forward => {
                let mut fact = self.entry[b].clone();
                out.push(fact.clone());
                for st in stmts {
                    a.apply_stmt(&mut fact, st);
                    out.push(fact.clone());
                }
            }
        }
        out
    }
}
