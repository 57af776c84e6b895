//! A function body as the analyses see it: blocks of statements, each
//! statement using and defining abstract variables.
//!
//! A variable is anything whose value a checkpoint may have to keep: an SSA
//! value, a stack object, a global, or the pseudo-variable "unknown memory".
//! The front decides what each instruction reads (`uses`) and what it
//! certainly overwrites in full (`defs`, the kills of liveness). A write
//! that certainly overwrites known bytes of a variable but not all of them
//! is a partial kill (`pdefs`): the variable-level liveness ignores it, the
//! byte-level one ([`crate::bytelive`]) removes those bytes. Uncertain
//! writes are neither: keeping a variable that is dead is only a cost,
//! dropping one that is live is a wrong restart.
//!
//! Phi operands are uses on the incoming edge; the front appends them as a
//! statement at the end of the predecessor (after its terminator), which is
//! the usual conservative placement.

use crate::graph::{BlockId, Graph};
use crate::intervals::Intervals;

pub type VarId = usize;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stmt {
    pub uses: Vec<VarId>,
    pub defs: Vec<VarId>,
    /// Partial kills: (variable, the bytes of it certainly overwritten, as
    /// offsets from its first byte). Applied with `defs`, before `uses`.
    pub pdefs: Vec<(VarId, Intervals)>,
    /// Partial uses: (variable of `uses`, the only bytes of it read). For
    /// the byte-level liveness a variable of `uses` listed here reads these
    /// bytes, not all of it (a call whose callee reads a grid's halo first
    /// and rewrites the interior before reading it).
    pub puses: Vec<(VarId, Intervals)>,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub succs: Vec<BlockId>,
}

#[derive(Clone, Debug, Default)]
pub struct Body {
    pub blocks: Vec<Block>,
    /// Number of variables; every `VarId` is below it.
    pub num_vars: usize,
}

impl Body {
    pub fn new(num_vars: usize) -> Self {
        Body { blocks: Vec::new(), num_vars }
    }
    pub fn add_block(&mut self) -> BlockId {
        self.blocks.push(Block::default());
        self.blocks.len() - 1
    }
    pub fn entry(&self) -> BlockId {
        0
    }
}

impl Graph for Body {
    type Stmt = Stmt;
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.blocks[b].succs
    }
    fn stmts(&self, b: BlockId) -> &[Stmt] {
        &self.blocks[b].stmts
    }
}
