//! Routing calls to the dao runtime: a declaration replaced by the
//! runtime's (libc allocation to the dao heap, libomp entry points the
//! runtime wraps, the `single` blocks the master runs).
use crate::declare::declare;
use crate::ir::{Module, Value};
use crate::known::{alloc_routes, names};
use dao_abi::entry;

/// Replace the declaration `from` by `to` (declared with the same type):
/// every call goes to `to`. Nothing happens when the module defines `from`
/// itself (the program's own allocator, say) or declares `to` with another
/// type. Returns whether it was routed.
fn route(m: Module, from: &str, to: &str) -> bool {
    let Some(f) = m.function(from) else { return false };
    if !f.is_declaration() {
        return false;
    }
    let fty = f.function_type();
    let target = match m.function(to) {
        Some(t) if t.function_type() == fty => t,
        Some(_) => return false,
        None => m.add_function(to, fty),
    };
    f.replace_all_uses_with(target);
    f.delete_function();
    true
}

/// Route libc allocation calls to the dao heap. Returns the number of
/// declarations rerouted.
pub fn route_allocations(m: Module) -> usize {
    alloc_routes().map(|(from, to)| route(m, from, to) as usize).sum()
}

/// Route libomp entry points the runtime wraps, in every module:
/// `__kmpc_single` to `dao_omp_single`, which skips, after a restart inside
/// a region, the single instances another thread had already run
/// (runtime/src/omp/singles.rs); `__kmpc_threadprivate_cached` to
/// `dao_threadprivate_cached`, which keeps the workers' copies of flang's
/// threadprivate variables at fixed addresses (runtime/src/omp/tp.rs);
/// `__kmpc_omp_task_alloc`, `__kmpc_taskloop(_5)` and
/// `__kmpc_(end_)taskgroup` to `dao_omp_task_new`, `dao_omp_taskloop(_5)`
/// and `dao_omp_(end_)taskgroup`, which count the tasks in flight
/// (runtime/src/omp/tasks.rs). Returns whether anything changed.
pub fn route_omp(m: Module) -> bool {
    let single = route(m, names::KMPC_SINGLE, entry::OMP_SINGLE.name);
    let tp = route(m, names::KMPC_THREADPRIVATE_CACHED, entry::THREADPRIVATE_CACHED.name);
    // explicit tasks in flight (runtime/src/omp/tasks.rs; every task entry
    // ends with dao_omp_task_done through its trampoline, replica.rs)
    let task = route(m, names::KMPC_OMP_TASK_ALLOC, entry::OMP_TASK_NEW.name);
    let taskloop = route(m, names::KMPC_TASKLOOP, entry::OMP_TASKLOOP.name);
    let taskloop5 = route(m, names::KMPC_TASKLOOP_5, entry::OMP_TASKLOOP_5.name);
    let group = route(m, names::KMPC_TASKGROUP, entry::OMP_TASKGROUP.name);
    let end_group = route(m, names::KMPC_END_TASKGROUP, entry::OMP_END_TASKGROUP.name);
    single || tp || task || taskloop || taskloop5 || group || end_group
}

/// Route libomptarget's data mapping and kernel entry points, the OpenMP
/// device memory routines and `target ... nowait` task allocation to the
/// runtime (`names::OFFLOAD_ROUTES`), which records the device data
/// environment (runtime/src/offload/). A declaration of another type than
/// the runtime's is left alone (then `dao cc`'s link-time wrap still sees
/// the calls). Returns whether anything changed.
pub fn route_offload(m: Module) -> bool {
    let mut any = false;
    for (from, to) in names::OFFLOAD_ROUTES {
        let Some(f) = m.function(from) else { continue };
        // the runtime's signature (dao-abi): the pass never guesses
        let Some(e) = dao_abi::entry::ALL.iter().find(|e| e.name == *to) else { continue };
        if f.function_type() != crate::declare::entry_type(m, e) {
            continue;
        }
        any |= route(m, from, to);
    }
    any
}

/// The `single` blocks that reach a marker are run by the master:
/// their `__kmpc_single` calls go to `dao_omp_single_master` (true on
/// thread 0; libomp's single counters are not touched, equally in every
/// thread). Before `route_omp`, which routes the other calls.
pub fn route_master_singles(m: Module, calls: &[Value]) {
    if calls.is_empty() {
        return;
    }
    let f = declare(m, &entry::OMP_SINGLE_MASTER);
    for c in calls {
        c.set_callee(f.f);
    }
}
