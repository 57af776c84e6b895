//! libdao.so: the dao pass plugin for LLVM 19 (clang-19, flang-new-19, opt-19).
//!
//! The plugin entry point `llvmGetPassPluginInfo` is defined here in Rust
//! (a cdylib exports only Rust `#[no_mangle]` items); the C++ shim
//! (cpp/shim.cpp) supplies the callback that adds the pass to the
//! PassBuilder. The C++ pass calls [`dao_rust_run_on_module`] for every
//! module; this file is only the boundary, where panics are caught so that
//! a bug in dao never crashes the user's compiler, and the driver of the
//! phases (`run`: plan, report, apply and verify, or drop the module's code
//! on an internal error). The environment
//! variables the pass reads are in `config.rs`.
//!
//! # Layers
//!
//! The modules form layers, bottom first. A module uses (names as
//! `crate::m`) only modules listed before it: lower layers, or earlier on
//! its own line; this file, the driver, uses them all. What a lower layer
//! needs from above comes as arguments (the runtime-checked conditions get
//! the globals a pointer may point into as a closure, `cond.rs`).
//! `tests/layers.rs` parses this list and fails on any other reference.
//!
//! 1. LLVM: ffi, ir
//! 2. foundation: config, timing, known, diag, declare
//! 3. facts: provenance, promote, to_heap, heap, cond, facts, read_boxes, func_facts, varmap
//! 4. translation: write_boxes, loop_kills, translate, omp
//! 5. fault-tolerant tasks: replica
//! 6. the plan: plan, anchors, constructs, scan, summaries, exported, threadprivate, offload, device, sites, planning
//! 7. carrying it out: emit, route, guard, remarks

mod anchors;
mod cond;
mod config;
mod constructs;
mod declare;
mod device;
mod diag;
mod emit;
mod exported;
mod facts;
mod ffi;
mod func_facts;
mod guard;
mod heap;
mod ir;
mod known;
mod loop_kills;
mod write_boxes;
mod offload;
mod omp;
mod plan;
mod planning;
mod promote;
mod provenance;
mod read_boxes;
mod remarks;
mod replica;
mod route;
mod scan;
mod sites;
mod summaries;
mod threadprivate;
mod timing;
mod to_heap;
mod translate;
mod varmap;

use std::ffi::c_void;
use std::os::raw::c_char;

/// `llvm::PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, LLVM 19).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_callbacks: unsafe extern "C" fn(*mut c_void),
}

/// `LLVM_PLUGIN_API_VERSION` in LLVM 19.
const LLVM_PLUGIN_API_VERSION: u32 = 1;

/// The plugin entry point that clang/opt look up with dlsym.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"dao".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_callbacks: ffi::dao_cxx_register_callbacks,
    }
}

/// Called by the C++ pass for every module. Returns 1 when the module changed.
#[no_mangle]
pub extern "C" fn dao_rust_run_on_module(m: llvm_sys::prelude::LLVMModuleRef, _opt_level: i32) -> i32 {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ir::with_module(m, |m| {
            let r = timing::phase("pass", || run(m));
            timing::report(&m.source_name(), "pass");
            r
        })
    }));
    match result {
        Ok(changed) => changed as i32,
        Err(_) => {
            // The panic message was printed by the panic hook. Planning
            // does not change the module (but for moving markers after a
            // critical section, which leaves it valid); a panic while the
            // plan is carried out is caught in `run`, which drops the
            // module's code.
            ir::with_module(m, |m| {
                m.diagnose(0, &format!("dao: internal error in the dao pass while planning {}; the module was left unchanged. Please report this with the source file.", m.source_name()))
            });
            0
        }
    }
}

/// Carry out `plan` on `m` (the plan must have been made for `m`, unchanged
/// since). Returns whether the module changed, and the guard counts.
fn apply(m: ir::Module, plan: &plan::ModulePlan) -> (bool, guard::GuardStats) {
    // first: the replicas are copies of the task bodies as the program
    // wrote them (no frames, no guards: dao.ft.* functions are dao's own)
    replica::apply(m, &plan.replicas);
    let restart_only = emit::emit(m, plan);
    route::route_master_singles(m, &plan.master_only);
    let routed = route::route_allocations(m);
    let singles = route::route_omp(m);
    let offload = route::route_offload(m);
    // last: the guards see the instrumented code (its stores go to the
    // frame and to thread-locals: private) and the routed allocation calls
    let microtasks: Vec<ir::Value> = plan.funcs.iter().filter(|f| f.microtask).map(|f| f.f).collect();
    let guards = if guard::enabled() { guard::insert(m, &microtasks, &restart_only) } else { guard::GuardStats::default() };
    (!plan.funcs.is_empty() || !plan.replicas.is_empty() || plan.facts.has_defined_globals() || !plan.exported.is_empty() || !plan.tp.is_empty() || routed > 0 || singles || offload || guards.guards > 0, guards)
}

fn run(m: ir::Module) -> bool {
    let source = m.source_name();
    // OpenMP offload: the device half of the compilation is left as it is
    // (its code runs on the device; a marker there is an error), and the
    // host half, which clang runs through the pipeline twice (to bitcode,
    // then to an object), is instrumented once
    if offload::is_device_module(m) {
        let diags = offload::device_diags(m);
        for d in &diags {
            m.diagnose(0, &d.render(&source));
            if config::exit_on_error() {
                eprintln!("error: {}", d.render(&source));
            }
        }
        if !diags.is_empty() && config::exit_on_error() {
            std::process::exit(1);
        }
        return false;
    }
    if m.function(dao_abi::entry::REGISTER_MODULE.name).is_some() {
        return false;
    }
    // integer locals of `main` that regions read become globals first
    // (promote.rs: a rewrite that keeps the program's meaning; a plan with
    // an error fails the compile, so the module is never used then)
    if config::sections() {
        let cands = promote::candidates(m);
        if !cands.is_empty() {
            timing::phase("promote", || promote::promote(m, &cands));
        }
    }
    let mut plan = timing::phase("planning", || known::memoized(|| planning::plan_module(m)));
    if !plan.has_errors() && !plan.to_heap.is_empty() {
        // variable-size allocas on a marker path go to the heap, then the
        // module is planned again without them (to_heap.rs); a module
        // with none is planned once
        let moved = timing::phase("stack to heap", || to_heap::rewrite(m, &plan.to_heap));
        plan = timing::phase("planning", || known::memoized(|| planning::plan_module(m)));
        if config::remarks() {
            for (func, loc) in moved {
                plan.diags.push(diag::Diag {
                    severity: diag::Severity::Remark,
                    loc,
                    msg: format!("variable-size stack allocation in function '{}' moved to the heap (freed where the stack would release it): a restart needs a fixed frame layout", ir::demangle(&func)),
                    func,
                });
            }
        }
    }
    let report = |plan: &plan::ModulePlan| {
        for d in &plan.diags {
            let sev = match d.severity {
                diag::Severity::Error => 0,
                diag::Severity::Warning => 1,
                diag::Severity::Remark => 2,
            };
            m.diagnose(sev, &d.render(&source));
        }
    };
    if !plan.has_errors() && !plan.moves.is_empty() {
        // markers in critical/lock-protected sections go right after the
        // section's end; then plan again on the moved form
        report(&plan);
        let b = m.builder();
        for (marker, end) in &plan.moves {
            if let Some(next) = end.next_instruction() {
                marker.move_before(next, &b);
            }
        }
        plan = timing::phase("planning", || known::memoized(|| planning::plan_module(m)));
        plan.diags.retain(|d| d.severity != diag::Severity::Remark);
    }
    report(&plan);
    if plan.has_errors() {
        if config::exit_on_error() {
            // a front end that does not show context diagnostics (flang)
            for d in plan.diags.iter().filter(|d| d.severity == diag::Severity::Error) {
                eprintln!("error: {}", d.render(&source));
            }
            std::process::exit(1);
        }
        return false;
    }
    if config::remarks() {
        remarks::print(m, &plan);
    }
    // Carried out in place, then verified. A panic half way or a verifier
    // failure is an internal error: all the module's code is dropped (every
    // function and variable a declaration, `Module::drop_code`), so no later
    // pass sees half-instrumented IR, and the compile fails on dao's error,
    // never with a crash of the compiler. (Until 2026-11-29 the plan was
    // carried out first on a clone of the module, planned again there: a
    // second planning, half of the pass's compile time.)
    let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let r = timing::phase("apply", || apply(m, &plan));
        config::fault(m);
        (r, timing::phase("verify", || m.verify()))
    }));
    let failure = match applied {
        Ok(((changed, g), true)) => {
            if config::remarks() {
                eprintln!(
                    "remark: {source}: dao: shared-write guards: {} inserted ({} on loop entries) in {} functions, covering {} writes that may touch shared data ({} of them in {} loops without and {} innermost loops with a check-in point); {} stores to private memory need none",
                    g.guards, g.hoisted, g.functions, g.writes, g.loop_covered, g.hoisted_loops, g.eager_loops, g.private
                );
            }
            return changed;
        }
        Ok((_, false)) => format!("dao: internal error: the instrumented form of {source} does not verify (reasons above); its code was dropped. Please report this with the source file."),
        Err(_) => format!("dao: internal error in the dao pass while instrumenting {source}; its code was dropped. Please report this with the source file."),
    };
    m.drop_code();
    if !m.verify() {
        eprintln!("dao: internal error: the module does not verify after its code was dropped (reasons above)");
    }
    m.diagnose(0, &failure);
    if config::exit_on_error() {
        eprintln!("error: {failure}");
        std::process::exit(1);
    }
    true
}
