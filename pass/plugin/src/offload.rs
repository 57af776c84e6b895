//! OpenMP offload is refused (issue #31, until device data is
//! checkpointed: issue #35): the diagnostics of the functions that call
//! libomptarget or the device memory routines.
use crate::diag::{first_loc, Diag, Severity};
use crate::facts::ModuleFacts;
use crate::ir::Value;

/// OpenMP offload (issue #31, until device data is checkpointed: issue
/// #35): a restart would bring back the host's copies and not the
/// device's, and continue silently with a wrong result. Every function
/// that calls libomptarget's entry points (`__tgt_target_kernel`,
/// `__tgt_target_data_begin_mapper`, ...) or the device memory routines
/// (`omp_target_alloc`, `omp_target_memcpy`, ...) is refused with its
/// first such call's location, in every module the pass sees (one without
/// markers may run its kernels between two checkpoints of another).
/// `#pragma omp target` built without `-fopenmp-targets` runs on the host
/// and calls none of these: it is not refused.
pub fn offload_diags(facts: &ModuleFacts) -> Vec<Diag> {
    let mut out = Vec::new();
    for f in &facts.funcs {
        let calls: Vec<Value> = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.is_call() && i.called_function().is_some_and(|c| is_offload_entry(&c.name())))
            .collect();
        // the first with a location (clang gives some none)
        if let Some(&call) = calls.iter().find(|c| c.debug_loc().is_some()).or(calls.first()) {
            let callee = call.called_function().map(|c| c.name()).unwrap_or_default();
            // the registration constructor clang adds has no location
            let Some(loc) = call.debug_loc().or_else(|| call.operands().first().and_then(|id| crate::omp::ident_loc(*id))).or_else(|| first_loc(*f)) else { continue };
            out.push(Diag {
                severity: Severity::Error,
                loc: Some(loc),
                func: f.name(),
                msg: format!(
                    "OpenMP offload (`omp target` built for a device: this function calls `{callee}`) is not supported by dao yet: a restart would put back the host's data but not the device's, and continue with a wrong result. Build this file without -fopenmp-targets (the target regions then run on the host), or without dao"
                ),
            });
        }
    }
    out
}

/// libomptarget's host entry points and the OpenMP device memory routines.
pub fn is_offload_entry(name: &str) -> bool {
    name.starts_with("__tgt_target")
        || matches!(
            name,
            "omp_target_alloc" | "omp_target_free" | "omp_target_memcpy" | "omp_target_memcpy_rect" | "omp_target_memcpy_async" | "omp_target_associate_ptr" | "omp_target_disassociate_ptr" | "llvm_omp_target_alloc_host" | "llvm_omp_target_alloc_shared" | "llvm_omp_target_alloc_device"
        )
}
