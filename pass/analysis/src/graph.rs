//! Control-flow graphs as the data-flow engine sees them: blocks numbered
//! from 0 (the entry) with successor lists and statements of any type
//! ([`Graph`]), and the depth-first orders over them. [`crate::body::Body`]
//! is the graph liveness runs on, the guard placement has its own
//! ([`crate::guards::Cfg`]).

/// A block of a graph: its index, 0 being the entry.
pub type BlockId = usize;

/// A control-flow graph of statements. Block 0 is the entry.
pub trait Graph {
    type Stmt;
    fn num_blocks(&self) -> usize;
    fn succs(&self, b: BlockId) -> &[BlockId];
    fn stmts(&self, b: BlockId) -> &[Self::Stmt];

    fn preds(&self) -> Vec<Vec<BlockId>> {
        let mut p = vec![Vec::new(); self.num_blocks()];
        for b in 0..self.num_blocks() {
            for &s in self.succs(b) {
                p[s].push(b);
            }
        }
        p
    }
    /// Blocks in reverse post-order from the entry (unreachable blocks last).
    fn reverse_postorder(&self) -> Vec<BlockId> {
        let n = self.num_blocks();
        let mut post = reachable_reverse_postorder(n, |b| self.succs(b));
        let mut seen = vec![false; n];
        for &b in &post {
            seen[b] = true;
        }
        post.extend((0..n).filter(|b| !seen[*b]));
        post
    }
}

/// The blocks reachable from block 0 of a graph of `n` blocks, in reverse
/// post-order of a depth-first search that takes successors in order.
pub fn reachable_reverse_postorder<'a>(n: usize, succs: impl Fn(BlockId) -> &'a [BlockId]) -> Vec<BlockId> {
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return post;
    }
    let mut stack = vec![(0, 0usize)];
    seen[0] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if let Some(&s) = succs(b).get(*i) {
            *i += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}
