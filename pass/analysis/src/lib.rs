//! dao-analysis: the pure analyses behind the dao pass, with no LLVM in sight.
//!
//! - [`fxhash`]: the hash maps and sets of the pass (the Fx hash).
//! - [`graph`]: blocks numbered from the entry with successor lists
//!   ([`graph::BlockId`], the [`graph::Graph`] trait the engine solves on)
//!   and their depth-first orders.
//! - [`intervals`]: sorted disjoint byte intervals, the facts of the
//!   array-section and byte-level analyses.
//! - [`body`]: a function as a control-flow graph of statements that use and
//!   define abstract variables (SSA values and memory objects alike).
//! - [`dataflow`]: the lattice/direction/transfer split and the one fixpoint
//!   engine (after rustc's `rustc_mir_dataflow`).
//! - [`liveness`]: backward may-liveness, the core of DAO: a variable must be
//!   saved at a point iff it is live there; one analysis parameterised by
//!   the set live at the exits (nothing, for the checkpoint criterion).
//! - [`bytelive`]: byte-level liveness of partly rewritten objects.
//! - [`callgraph`]: which functions may reach a checkpoint marker, and
//!   interprocedural read summaries over strongly connected components.
//! - [`omp`]: which program points lie inside an OpenMP construct opened
//!   and closed by runtime calls (single, critical, dynamic loops, ...).
//! - [`guards`]: where the shared-write guards of the non-blocking protocol
//!   go: every shared write after a guard with no check-in in between, one
//!   guard on entry for a loop that never checks in.
//! - [`known`]: the one table of external functions the pass understands
//!   (liveness effect, OpenMP role, guard effect, declared types).
//! - [`paths`]: which functions lie on a path to a marker (the plan's
//!   reachability phase), from per-function call facts.
//! - [`team`]: which functions may run in a team, for the plan (inside a
//!   region that reaches a marker) and for the guards (on a worker of a
//!   region that can be checkpointed): two questions, one place.
//! - [`sections`]: array sections: the bytes a loop nest certainly writes
//!   (boxes from the front's ScalarEvolution facts, as byte intervals), the
//!   objects a loop kills at its entry, and a function's entry summary
//!   (exposed reads, kills) for its callers (liveness from two boundaries).
//! - [`disjoint`]: bounds on the values of run-time counts under which two
//!   boxes share no byte (a read of one member of a Fortran common block
//!   in the loop that rewrites another).
//! - [`textcfg`]: a tiny text format for hand-written test bodies with the
//!   expected live sets written inline.
//!
//! The LLVM front (`dao-pass`) translates IR into [`body::Body`] and asks
//! these modules; everything here is tested on hand-written inputs.
//!
//! # Layers
//!
//! The modules form layers, bottom first. A module uses (names as
//! `crate::m`) only modules listed before it: lower layers, or earlier on
//! its own line. `tests/layers.rs` parses this list and fails on any other
//! reference.
//!
//! 1. foundation: fxhash, bitset, intervals, graph, callgraph, known, disjoint
//! 2. bodies: body, dataflow, textcfg
//! 3. analyses: liveness, bytelive, sections, omp, guards, team, paths
#![forbid(unsafe_code)]

pub mod bitset;
pub mod bytelive;
pub mod body;
pub mod callgraph;
pub mod dataflow;
pub mod disjoint;
pub mod fxhash;
pub mod graph;
pub mod guards;
pub mod intervals;
pub mod known;
pub mod liveness;
pub mod omp;
pub mod paths;
pub mod sections;
pub mod team;
pub mod textcfg;

pub use bitset::BitSet;
pub use body::{Body, Stmt, VarId};
pub use graph::BlockId;
pub use intervals::Intervals;
