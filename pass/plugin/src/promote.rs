//! Integer locals of `main` that parallel regions read, made globals
//! (issue #33: loop extents in `main`'s variables).
//!
//! Real codes keep extents in `main`'s locals: `rows = atoi(argv[1])`,
//! then `#pragma omp parallel for` loops to `rows` (Rodinia's SRAD, most
//! small C codes). A region reads such a variable through its by-reference
//! capture, a pointer to `main`'s stack slot, so a loop bound is a load of
//! a stack object the region's facts cannot name, and the runtime-checked
//! conditions (`cond.rs`), which read their values from globals, never see
//! it. `main` runs once per run (the pass counts on it everywhere: heap
//! objects, conditions), so such a local is a variable of the whole run
//! like a `static` one: the pass turns it into an internal global
//! (`main.<name>`, zero-initialised: reading the local before writing it
//! would be undefined), after which the conditions' machinery applies as to
//! any global (eligible when every write of it is a store naming it,
//! frozen when none comes after a marker can be reached).
//!
//! A local is promoted when it is a static alloca of `main` (or flang's
//! `_QQmain`) of an integer type, at least one fork passes it to a region
//! (a capture), and every use of its address is a load, a store into it, a
//! lifetime marker, or a pass to a fork or a defined function whose
//! parameter is only read through (`provenance::read_only_capture`). The change is
//! made before the planning (`lib.rs`): it keeps the program's meaning, and
//! a plan with an error fails the compile, so the module is never used
//! then; planning once keeps the pass's compile time.
use crate::ir::{Module, Opcode, Value};
use crate::known::{self, Intr, Role};
use crate::provenance::{params_passed_all, read_only_capture};
use dao_analysis::fxhash::HashSet;

/// The allocas of `main` / `_QQmain` to promote.
pub fn candidates(m: Module) -> Vec<Value> {
    let mut out = Vec::new();
    for name in [known::names::MAIN, known::names::FORTRAN_MAIN] {
        let Some(f) = m.function(name).filter(|f| !f.is_declaration()) else { continue };
        if (name == known::names::MAIN && !f.users().is_empty()) || f.users().len() > 1 {
            continue;
        }
        for i in f.entry_block().instructions() {
            if !i.is_alloca() || i.operand(0).const_int_value() != Some(1) || i.allocated_type().int_width().is_none() {
                continue;
            }
            let mut captured = false;
            if uses_ok(i, &mut captured) && captured {
                out.push(i);
            }
        }
    }
    out
}

/// Every use of alloca `a` is a whole load or store of it, a lifetime
/// marker, or a fork or defined call that passes it to a read-only
/// parameter (`captured` when a fork does).
fn uses_ok(a: Value, captured: &mut bool) -> bool {
    a.users().into_iter().all(|u| {
        if !u.is_instruction() {
            return false;
        }
        match u.opcode() {
            Opcode::LLVMLoad => true,
            Opcode::LLVMStore => u.operand(1) == a && u.operand(0) != a,
            Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => true,
            Opcode::LLVMCall if u.called_value() != a => {
                if matches!(known::call_role(u), Some(Role::Fork { .. })) {
                    *captured = true;
                }
                params_passed_all(u, a, |p| read_only_capture(p, &mut HashSet::default()))
            }
            _ => false,
        }
    })
}

/// Make each alloca of `allocas` an internal global named after it
/// (`main.rows`), zero-initialised; its lifetime markers go.
pub fn promote(m: Module, allocas: &[Value]) {
    for &a in allocas {
        let f = a.parent_block().parent_function();
        let ty = a.allocated_type();
        let base = format!("{}.{}", f.name(), if a.name().is_empty() { "local".to_string() } else { a.name() });
        let mut name = base.clone();
        let mut k = 1;
        while m.global(&name).is_some() {
            name = format!("{base}.{k}");
            k += 1;
        }
        let g = m.add_internal_global(ty, &name, m.const_int(ty, 0));
        g.set_alignment(a.alignment().max(1));
        for u in a.users() {
            if u.is_instruction() && known::call_intrinsic(u) == Some(Intr::Lifetime) {
                u.erase();
            }
        }
        a.replace_all_uses_with(g);
        a.erase();
    }
}
