//! A thin typed wrapper over LLVM's C API (llvm-sys) and the C++ shim.
//!
//! This is the only module of the plugin with `unsafe` code. Every handle
//! here borrows from the module the pass manager gave us; none is owned or
//! disposed by Rust, which is why the plugin uses llvm-sys rather than
//! inkwell (whose `Module` owns and disposes the module it wraps).
//!
//! SAFETY (for every block below unless stated otherwise): the handles are
//! non-null values obtained from LLVM for the module currently being
//! transformed, which outlives the pass invocation; the C API functions are
//! called with the kinds of values they document (checked by the `is_*`
//! predicates at the call sites), and strings passed in are NUL-terminated.
//!
//! - `handles.rs`: modules, types, values, blocks and what they answer;
//! - `builder.rs`: the instruction builder and edits made with it;
//! - `loops.rs`: the shim's loop facts (ScalarEvolution) for the
//!   array-section kills.

mod builder;
mod handles;
mod loops;

pub use builder::{set_unlikely_first, Builder};
pub use handles::{clone_function, demangle, promote_allocas, with_module, Block, Module, Opcode, Type, Value};
pub use loops::{loop_facts, shim_phases, ArgFrom, ArgRead, LoopFacts, ReadBox, RelRead, SectionRec, SymCount, SymFactor};
