//! The pass's diagnostics: errors (the module is left unchanged),
//! warnings and remarks, each at a source location or in a function; and
//! [`first_loc`], the location a diagnostic about a whole function names.
use crate::ir::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    #[allow(dead_code)]
    Warning,
    /// Printed always (a marker moved out of a critical section).
    Remark,
}

#[derive(Clone, Debug)]
pub struct Diag {
    pub severity: Severity,
    pub loc: Option<String>,
    pub func: String,
    pub msg: String,
}

impl Diag {
    pub fn render(&self, source: &str) -> String {
        match &self.loc {
            Some(l) => format!("{l}: dao: {}", self.msg),
            None => format!("{source}: in function '{}': dao: {}", demangle(&self.func), self.msg),
        }
    }
}

/// A function's name as the user wrote it (C++ names demangled).
pub fn demangle(name: &str) -> String {
    crate::ir::demangle(name)
}

/// The first debug location in function `f`.
pub fn first_loc(f: Value) -> Option<String> {
    f.blocks().into_iter().flat_map(|b| b.instructions()).find_map(|i| i.debug_loc())
}
