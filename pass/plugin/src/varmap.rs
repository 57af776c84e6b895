//! The variable numbering of one function's body (its SSA values, then
//! its stack objects, the module's globals and the unknown variable) and
//! where each instruction's statement is.
use crate::ir::Value;
use dao_analysis::fxhash::HashMap;

/// Variable numbering of one function's body.
pub struct VarMap {
    pub ssa: Vec<Value>,
    pub ssa_ix: HashMap<Value, usize>,
    pub n_allocas: usize,
    pub n_globals: usize,
}

impl VarMap {
    pub fn alloca_var(&self, i: usize) -> usize {
        self.ssa.len() + i
    }
    pub fn global_var(&self, g: usize) -> usize {
        self.ssa.len() + self.n_allocas + g
    }
    pub fn unknown_var(&self) -> usize {
        self.ssa.len() + self.n_allocas + self.n_globals
    }
    pub fn num_vars(&self) -> usize {
        self.unknown_var() + 1
    }
}

/// Where each instruction's statement is: (block index, statement index).
pub type StmtPos = (usize, usize);
