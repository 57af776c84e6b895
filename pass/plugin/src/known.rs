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
    if let Some(r) = MEMO.with(|m| m.borrow().as_ref().and_then(|m| m.get(&f).copied())) {
        return r;
    }
    let r = lookup_uncached(f);
    MEMO.with(|m| {
        if let Some(m) = m.borrow_mut().as_mut() {
            m.insert(f, r);
        }
    });
    r
}

fn lookup_uncached(f: Value) -> Option<&'static Row> {
    let m = dao_analysis::known::lookup_name(&f.name())?;
    if m.row.shapes.is_empty() || m.accepts(&f.function_type().print()) {
        Some(m.row)
    } else {
        None
    }
}

thread_local! {
    /// [`lookup`]'s answers while [`memoized`] runs: a function's name and
    /// type are printed and matched once, not at every call instruction
    /// (a tenth of the planning's time on NPB SP before).
    static MEMO: std::cell::RefCell<Option<dao_analysis::fxhash::HashMap<Value, Option<&'static Row>>>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` with [`lookup`]'s answers kept. Only for code that neither
/// renames, retypes nor deletes functions (planning): a deleted function's
/// handle could be reused by a new one.
pub fn memoized<T>(f: impl FnOnce() -> T) -> T {
    // (cleared on the way out, a panic's included: the next module must not
    // see this one's handles)
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            MEMO.with(|m| *m.borrow_mut() = None);
        }
    }
    if MEMO.with(|m| m.borrow().is_some()) {
        return f();
    }
    MEMO.with(|m| *m.borrow_mut() = Some(Default::default()));
    let _clear = Clear;
    f()
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

/// The arguments whose product is the size of the block `f` allocates,
/// when `f` is a table function that returns one new block
/// (`dao_analysis::known::alloc_size_args`).
pub fn alloc_size_args(f: Value) -> Option<&'static [u32]> {
    lookup(f)?;
    dao_analysis::known::alloc_size_args(&f.name())
}

/// Whether `f` is a table function that frees the block its first argument
/// points to.
pub fn frees_block(f: Value) -> bool {
    lookup(f).is_some() && dao_analysis::known::frees_block(&f.name())
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
