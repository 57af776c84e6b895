//! The plugin's side of the external-function table: the table itself is
//! LLVM-free and lives in `dao_analysis::known` (pass/analysis/src/known.rs:
//! the columns and how to add a row are described there). Here a
//! declaration is matched against it by name *and* LLVM function type: a
//! declaration whose type is not one of its row's shapes is not recognised
//! and is treated as unknown (never guessed); [`mismatches`] lists them for
//! the remarks (`DAO_REMARKS=1`).
//!
//! A declaration not in the table is *unknown*: it may read any memory
//! whose address escaped, and in a module with markers it may reach a marker
//! in another translation unit, so calls to it are labelled call sites.
//! Keeping the table honest matters: an entry that claims "reads nothing"
//! for a function that reads user memory would drop live data.
use crate::ir::{Module, Value};
pub use dao_analysis::known::{alloc_routes, is_dao_own, is_omp_runtime_state, names, Effect, Guard, Intr, MarkerKind, Role, Row};

/// The table's row for function `f` (declared or defined), if its name is
/// in the table and its type is one the row accepts.
pub fn lookup(f: Value) -> Option<&'static Row> {
    let m = dao_analysis::known::lookup_name(&f.name())?;
    if m.row.shapes.is_empty() || m.accepts(&f.function_type().print()) {
        Some(m.row)
    } else {
        None
    }
}

/// Liveness effect of calling `f` (`None`: unknown).
pub fn effect(f: Value) -> Option<Effect> {
    lookup(f).and_then(|r| r.effect)
}

/// Checkpointing role of `f`.
pub fn role(f: Value) -> Option<Role> {
    lookup(f).and_then(|r| r.role)
}

/// What `f` does if it is an LLVM intrinsic.
pub fn intrinsic(f: Value) -> Option<Intr> {
    match role(f) {
        Some(Role::Intrinsic(i)) => Some(i),
        _ => None,
    }
}

/// What the function a call instruction calls directly does if it is an
/// LLVM intrinsic.
pub fn call_intrinsic(call: Value) -> Option<Intr> {
    if !call.is_call() {
        return None;
    }
    call.called_function().and_then(intrinsic)
}

/// Role of the function a call instruction calls directly.
pub fn call_role(call: Value) -> Option<Role> {
    if !call.is_call() {
        return None;
    }
    call.called_function().and_then(role)
}

/// Operand position of the outlined function, if `f` is a fork entry point.
pub fn fork_microtask(f: Value) -> Option<u32> {
    match role(f) {
        Some(Role::Fork { microtask }) => Some(microtask),
        _ => None,
    }
}

/// Whether `call` calls the end function named `end` of an exclusive block.
pub fn is_exclusive_end(call: Value, end: &str) -> bool {
    call.is_call() && call.called_function().is_some_and(|c| matches!(role(c), Some(Role::ExclusiveEnd)) && c.name() == end)
}

/// Declarations whose name is in the table but whose type is not one of its
/// row's shapes: (name, declared type, accepted types).
pub fn mismatches(m: Module) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    for f in m.functions() {
        if !f.is_declaration() {
            continue;
        }
        let name = f.name();
        let Some(mt) = dao_analysis::known::lookup_name(&name) else { continue };
        let ty = f.function_type().print();
        if let Some(acc) = mt.accepted() {
            if !acc.contains(&ty) {
                out.push((name, ty, acc));
            }
        }
    }
    out
}
