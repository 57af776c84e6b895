//! OpenMP constructs on the control-flow graph: which program points lie
//! *inside* a construct that is opened and closed by runtime calls
//! (`__kmpc_single` .. `__kmpc_end_single`, `__kmpc_critical` ..
//! `__kmpc_end_critical`, a dynamically scheduled loop between
//! `__kmpc_dispatch_next_*` calls, a `sections` construct between
//! `__kmpc_for_static_init_*` and `__kmpc_for_static_fini`, ...).
//!
//! The answer is computed on the CFG, not on source nesting, because the
//! front ends' shapes differ (clang: the body in the block after a branch on
//! the begin call's result; flang: the end call in a join block both paths
//! reach; -O2: bodies merged, loops rotated): a point is inside when it is
//! reachable from a begin call without passing an end call, *and* an end
//! call is reachable from it without passing a begin call. The second half
//! keeps out the code after the construct that loops back to it
//! (`for (...) { single {...} marker; }`) and the path that skips a
//! `single` body.
//!
//! Points are (block, statement index) of a [`Body`]; the pass builds a body
//! with one statement per instruction (`pass/plugin/src/omp.rs`), the tests
//! write bodies by hand (`tests/omp.rs`).
use std::collections::BTreeSet;

use crate::body::Body;
use crate::graph::{BlockId, Graph};

/// A program point: (block, statement index).
pub type Point = (BlockId, usize);

/// The points strictly between `begins` and an end (see the module comment).
/// `is_end` / `is_begin` classify points; the begin and end points
/// themselves are not inside.
pub fn between(body: &Body, begins: &[Point], is_end: impl Fn(Point) -> bool, is_begin: impl Fn(Point) -> bool) -> BTreeSet<Point> {
    let n = body.blocks.len();
    // forward from after each begin, not across end points
    let mut fwd = BTreeSet::new();
    let mut seen = vec![false; n];
    let mut work: Vec<(BlockId, usize)> = begins.iter().map(|&(b, i)| (b, i + 1)).collect();
    while let Some((b, from)) = work.pop() {
        let len = body.blocks[b].stmts.len();
        let mut stopped = false;
        for i in from.min(len)..len {
            if is_end((b, i)) {
                stopped = true;
                break;
            }
            fwd.insert((b, i));
        }
        if !stopped {
            for &s in &body.blocks[b].succs {
                if !seen[s] {
                    seen[s] = true;
                    work.push((s, 0));
                }
            }
        }
    }
    // backward from each end point, not across begin points
    let preds = body.preds();
    let mut bwd = BTreeSet::new();
    let mut seen = vec![false; n];
    let mut work: Vec<(BlockId, Option<usize>)> = Vec::new();
    for (b, blk) in body.blocks.iter().enumerate() {
        for i in 0..blk.stmts.len() {
            if is_end((b, i)) {
                work.push((b, Some(i)));
            }
        }
    }
    while let Some((b, upto)) = work.pop() {
        let end = upto.unwrap_or(body.blocks[b].stmts.len());
        let mut stopped = false;
        for i in (0..end).rev() {
            if is_begin((b, i)) {
                stopped = true;
                break;
            }
            bwd.insert((b, i));
        }
        if !stopped {
            for &p in &preds[b] {
                if !seen[p] {
                    seen[p] = true;
                    work.push((p, None));
                }
            }
        }
    }
    fwd.intersection(&bwd).copied().collect()
}
