//! OpenMP offload (issue #35): what the pass refuses at compile time, and
//! the device modules it leaves alone.
//!
//! Offload programs are supported: the runtime records the device data
//! environment through the libomptarget entry points `route.rs` routes to
//! it, saves every mapped range's device copy at a checkpoint and maps it
//! again at a restart (runtime/src/offload/). What it cannot give back is
//! refused here, naming the construct:
//!
//! - a marker inside a `target` region (in the device module: a kernel
//!   cannot be interrupted, checkpoints are taken between kernels);
//! - `declare target` variables that are not constant: their device copy
//!   lives in the device image, outside the mapped ranges the runtime
//!   records, and a kernel may write it;
//! - `#pragma omp requires unified_shared_memory`: host and device share
//!   memory the runtime cannot tell apart from device-only data.
//!
//! What only the run shows (pointer attachment, struct members, mappers,
//! `omp_target_alloc` memory live at a checkpoint) stops the first
//! checkpoint after it with an error naming it (runtime/src/offload/table.rs).
use crate::diag::{first_loc, Diag, Severity};
use crate::ir::{Module, Value};
use crate::known::names;

/// The flag clang gives the device half of an offload compilation.
const DEVICE_MODULE_FLAG: &str = "openmp-device";
/// The prefix of the offload entry table's globals (`__tgt_offload_entry {
/// addr, name, size, flags, data }`, section `omp_offloading_entries`).
const OFFLOAD_ENTRY_PREFIX: &str = ".offloading.entry.";
/// Operand positions in an offload entry.
const ENTRY_ADDR: u32 = 0;
const ENTRY_SIZE: u32 = 2;
const ENTRY_FLAGS: u32 = 3;
const ENTRY_DATA: u32 = 4;
/// `OMP_REGISTER_REQUIRES`: the entry carries the `requires` flags in data.
const ENTRY_REQUIRES: u64 = 0x10;
/// `OMP_REQ_UNIFIED_SHARED_MEMORY`.
const REQ_UNIFIED_SHARED_MEMORY: u64 = 0x8;

/// Whether `m` is the device half of an OpenMP offload compilation (the
/// pass leaves it unchanged: its code runs on the device).
pub fn is_device_module(m: Module) -> bool {
    m.has_module_flag(DEVICE_MODULE_FLAG)
}

/// A device module: a marker in it is a marker inside a `target` region.
pub fn device_diags(m: Module) -> Vec<Diag> {
    let mut out = Vec::new();
    for f in m.functions().into_iter().filter(|f| !f.is_declaration()) {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if !i.is_call() {
                continue;
            }
            let Some(c) = i.called_function() else { continue };
            let n = c.name();
            let loc = i.debug_loc().or_else(|| first_loc(f));
            if (n == names::MARKER_POTENTIAL || n == names::MARKER_FORCED) && !out.iter().any(|d: &Diag| d.loc == loc) {
                out.push(Diag {
                    severity: Severity::Error,
                    loc,
                    func: f.name(),
                    msg: format!("a checkpoint marker (`{n}`) inside an OpenMP `target` region: a kernel cannot be interrupted; put the marker on the host, between kernels"),
                });
            }
        }
    }
    out
}

/// The host module of an offload program: the constructs refused (module
/// comment).
pub fn host_diags(m: Module) -> Vec<Diag> {
    let mut out = Vec::new();
    for e in m.globals().into_iter().filter(|g| g.name().starts_with(OFFLOAD_ENTRY_PREFIX)) {
        let Some(init) = e.initializer() else { continue };
        let ops = init.operands();
        if ops.len() <= ENTRY_DATA as usize {
            continue;
        }
        let int = |k: u32| ops[k as usize].const_int_value().unwrap_or(0);
        if int(ENTRY_FLAGS) & ENTRY_REQUIRES != 0 {
            if int(ENTRY_DATA) & REQ_UNIFIED_SHARED_MEMORY != 0 {
                let (loc, func) = first_offload_call(m);
                out.push(Diag {
                    severity: Severity::Error,
                    loc,
                    func,
                    msg: "`#pragma omp requires unified_shared_memory` is not supported by dao: host and device share memory that a checkpoint cannot tell apart from device copies; map the data explicitly instead".into(),
                });
            }
            continue;
        }
        if int(ENTRY_SIZE) == 0 {
            continue; // a kernel
        }
        let var = ops[ENTRY_ADDR as usize];
        if !var.is_global_var() || var.is_global_constant() {
            continue;
        }
        let shown = var.name().trim_end_matches("_decl_tgt_ref_ptr").to_string();
        let (loc, func) = use_location(m, var).unwrap_or_else(|| first_offload_call(m));
        out.push(Diag {
            severity: Severity::Error,
            loc,
            func,
            msg: format!(
                "the `declare target` variable `{shown}` is not supported by dao: its device copy lives in the device image, outside the data a checkpoint saves, and a kernel may change it; map it instead (`target enter data map(to: {shown})`), or make it const"
            ),
        });
    }
    out
}

/// The first located use of `var` (a kernel's host fallback writing it,
/// say), and its function.
fn use_location(m: Module, var: Value) -> Option<(Option<String>, String)> {
    let uses = |i: Value| i.operands().iter().any(|o| *o == var || (o.is_const_expr() && o.num_operands() > 0 && o.operand(0) == var));
    let mut found = None;
    for f in m.functions().into_iter().filter(|f| !f.is_declaration()) {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if uses(i) {
                if let Some(l) = i.debug_loc() {
                    // a kernel's body first
                    if f.name().starts_with("__omp_offloading_") {
                        return Some((Some(l), f.name()));
                    }
                    found.get_or_insert((Some(l), f.name()));
                }
            }
        }
    }
    found
}

/// The location of the first call into libomptarget (from its ident_t
/// when the call has no location), and its function.
fn first_offload_call(m: Module) -> (Option<String>, String) {
    for f in m.functions().into_iter().filter(|f| !f.is_declaration()) {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if !i.is_call() || !i.called_function().is_some_and(|c| c.name().starts_with("__tgt_target")) {
                continue;
            }
            let loc = i.debug_loc().or_else(|| i.operands().first().and_then(|id| crate::omp::ident_loc(*id))).or_else(|| first_loc(f));
            return (loc, f.name());
        }
    }
    (None, String::new())
}
