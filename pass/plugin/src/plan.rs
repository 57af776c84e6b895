//! The plan: everything the pass will do to a module, decided before the IR
//! is touched. Which functions lie on a path to a marker, which call sites
//! and markers get labels, what is live at each, and every diagnostic. If
//! the plan has an error, the module is left exactly as it was.
//!
//! Participation: a module with markers, or one that defines `main`, is
//! instrumented; calls in it to unknown external functions may reach a
//! marker in another translation unit, so they are labelled too. Any other
//! module only has its heap calls routed to the dao heap (see design.md:
//! blocks allocated there may be reachable from checkpointed data).
//!
//! This file is the plan's data ([`ModulePlan`], [`FuncPlan`],
//! [`SitePlan`], the [`SectionReport`]); `planning.rs` makes it, in phases
//! (`scan.rs`, `summaries.rs`, `exported.rs`, `threadprivate.rs`,
//! `sites.rs`, `constructs.rs`, `offload.rs`), `emit.rs` and `replica.rs`
//! carry it out, `remarks.rs` reports it.
use crate::diag::{Diag, Severity};
use crate::facts::ModuleFacts;
use crate::ir::Value;

/// What a labelled site is: the ABI's `dao_site_desc.kind` (values in
/// `dao_abi`, defined once for the pass and the runtime).
pub use dao_abi::SiteKind;

#[derive(Debug)]
pub struct SitePlan {
    pub inst: Value,
    pub kind: SiteKind,
    pub callee: Option<String>,
    pub loc: Option<String>,
    /// Live SSA values (saved in the frame's slot area).
    pub slots: Vec<Value>,
    /// Live stack objects, as indices into `FuncPlan::allocas`.
    pub allocas: Vec<usize>,
    /// Live globals, as indices into `ModulePlan::globals`.
    pub globals: Vec<usize>,
    /// Globals of `globals` only some of whose bytes are live (the rest
    /// rewritten first on every path: `dao_analysis::bytelive`), with those
    /// bytes; the others are live whole.
    pub partial: Vec<(usize, dao_analysis::intervals::Intervals)>,
    pub unknown_reads: bool,
    /// Position of the site in the entry block, if it is there.
    pub entry_pos: Option<usize>,
    /// Where the label, the spills and the restart edge go: the call itself,
    /// or the `__kmpc_push_num_threads` right before a fork.
    pub anchor: Value,
    /// A sync site at `__kmpc_end_reduce`: on restart only its barrier is redone.
    pub end_reduce: bool,
    /// Candidates (markers, forced checkpoints): the defined globals this
    /// function does not need after the site although it may read them
    /// later, each with the must-writes that rewrite it first on the
    /// paths from the site (for `-Rdao`); and the bytes of the others it
    /// neither reads nor rewrites again.
    /// (global, dead bytes: all of it or the part rewritten first, what
    /// rewrites it first).
    pub dead: Vec<(usize, u64, Vec<String>)>,
    pub unread: (usize, u64),
    /// `-Rdao` (issue #33): for each kept global of at least
    /// `sites::KEPT_REMARK` bytes, what reads it first after the site.
    pub kept: Vec<(usize, Vec<String>)>,
    /// Globals live at the site unless the runtime-checked conditions of
    /// their conditional kills hold (`cond.rs`; not in `globals`, their
    /// parts, if any, in `partial`).
    pub cdead: Vec<usize>,
    /// World 1: the boxes (`cond::WBox`, as objects `ng + k`) live here.
    pub boxes_live: Vec<usize>,
    /// Boxes (indices `k` of `CondFacts::boxes`) of globals in `globals`
    /// dead here when their conditions hold: the runtime leaves their
    /// bytes out (live in world 0, not in world 1).
    pub cboxes: Vec<usize>,
    /// Defined globals whose device copies are dead here (`device.rs`;
    /// ABI 13): the runtime neither copies back nor saves a mapped range
    /// inside one when every frame of the chain lists it.
    pub ddead: Vec<usize>,
}

#[derive(Debug)]
pub struct FuncPlan {
    pub f: Value,
    pub name: String,
    pub allocas: Vec<Value>,
    pub alloca_size: Vec<u64>,
    pub sites: Vec<SitePlan>,
    /// Calls that set hidden runtime state (Fortran runtime start, OpenMP
    /// settings) in the entry block, with their position: replayed on the
    /// jump path to any site after them.
    pub env_calls: Vec<(usize, Value)>,
    /// An outlined parallel region (the microtask of a fork).
    pub microtask: bool,
    /// An outlined region that runs a dynamic, guided, runtime or ordered
    /// loop and reaches markers only through other files' code: held at
    /// run time (`dao_omp_hold_begin` with this position of the loop).
    pub hold: Option<String>,
    /// May run inside a parallel region: markers also check the runtime's
    /// checkpoint request flag.
    pub parallel: bool,
}

pub struct ModulePlan {
    pub facts: ModuleFacts,
    pub funcs: Vec<FuncPlan>,
    pub diags: Vec<Diag>,
    /// The module has markers or defines main (see the module comment).
    #[allow(dead_code)]
    pub participates: bool,
    pub main: Option<Value>,
    /// How often the analysis had to be conservative (unknown reads at a
    /// site), for the remark and the docs.
    pub conservative_sites: usize,
    /// Markers inside a critical or lock-protected section, to be moved right
    /// after the call that ends it (done before planning again).
    pub moves: Vec<(Value, Value)>,
    /// flang's threadprivate variables this module reaches through
    /// `__kmpc_threadprivate_cached` (every module, markers or not).
    pub tp: Vec<TpVar>,
    /// What the array-section kills did (issue #15).
    pub sections: SectionReport,
    /// Task entries replicated for fault-tolerant tasks (replica.rs).
    pub replicas: Vec<crate::replica::ReplicaPlan>,
    /// `__kmpc_single` calls of `single` blocks that reach a marker: routed
    /// to `dao_omp_single_master`, so the master runs them (docs/design.md
    /// section 8).
    pub master_only: Vec<Value>,
    /// The globals (indices into `facts.globals`, defined or declared) that
    /// code outside this module's own sites may reach: those whose address
    /// escapes, and those any function another module can enter (external
    /// linkage, or address taken) may read before writing them whole
    /// ([`exported_state`]). The module descriptor's `escaped_globals`.
    pub exported: Vec<usize>,
    /// Variable-size allocas on a marker path to move to the heap before
    /// planning again (`to_heap.rs`); the plan made with them is dropped.
    pub to_heap: Vec<Value>,
}

/// A threadprivate variable reached through `__kmpc_threadprivate_cached`.
#[derive(Clone, Debug)]
pub struct TpVar {
    /// The original variable (a global: a common block or a module variable).
    pub data: Value,
    pub size: u64,
    /// A region (of this module, or of another one through a function
    /// another module may call) may read a worker's copy before writing it
    /// whole: the workers' copies then carry values from region to region.
    pub in_region: bool,
}

impl ModulePlan {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

/// What the section analysis did in a module, for `-Rdao` and the counts
/// of conservative decisions.
#[derive(Debug, Default)]
pub struct SectionReport {
    /// (function, loop location, objects killed at the loop's entry,
    /// globals rewritten in part there with the bytes rewritten).
    pub loops: Vec<(
        String,
        Option<String>,
        Vec<crate::provenance::Obj>,
        Vec<(usize, u64)>,
    )>,
    /// Loops on a marker path that store to memory but kill nothing, and of
    /// those, the ones with no store ScalarEvolution could describe.
    pub loops_without_kill: usize,
    pub loops_unrecognised: usize,
    /// (function, globals its calls kill).
    pub calls: Vec<(String, Vec<usize>)>,
    /// (function, globals its calls rewrite in part, with the bytes).
    pub calls_partial: Vec<(String, Vec<(usize, u64)>)>,
    /// (function, loop location, global rewritten whole when the
    /// conditions hold, the conditions).
    pub cond_loops: Vec<(String, Option<String>, usize, Vec<crate::cond::Cond>)>,
    /// Per global killed under conditions, all its conditions (the
    /// runtime's table), and the sites where one is dead under them.
    pub conds: Vec<(usize, Vec<crate::cond::Cond>)>,
    pub cond_sites: usize,
    /// (function, loop location, box rewritten when the conditions hold,
    /// the conditions), and the sites where one is dead under them.
    pub boxes: Vec<(String, Option<String>, crate::cond::WBox, Vec<crate::cond::Cond>)>,
    pub box_sites: usize,
    /// Callee summaries specialised to the globals a call passes.
    pub specialised: usize,
}
