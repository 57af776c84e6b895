//! The module's exported state: the globals code outside its own sites
//! may reach (the module descriptor's `escaped_globals`).
use crate::facts::{ModuleFacts, Summary};
use crate::known;

/// The module's state that code outside its own sites may read after a
/// checkpoint (`dao_module_desc.escaped_globals`; docs/design.md section 4):
///
/// - every defined global whose address escapes (an unknown pointer read
///   anywhere may reach it);
/// - every global, defined here or declared, that a function another
///   module can enter may read before writing it whole: its summary's
///   globals. A function can be entered from outside when it has external
///   linkage (another translation unit calls it by name) or its address is
///   taken (a callback, an `atexit` handler, a destructor in
///   `llvm.global_dtors`); the program's entry (`main`, flang's `_QQmain`)
///   is entered once, never again, and an outlined region handed only to
///   libomp's fork and task entry points is not a callback.
///
/// This is what makes a `static` counter of a file without markers, a
/// Fortran module's private or `save` variables, or a common block that
/// only another file's code touches part of the checkpoint (issue #31: they
/// were left out silently). The runtime saves the list of a module without
/// instrumented functions at every checkpoint, and that of any other
/// module when a site of another module reads unknown memory.
pub fn exported_state(facts: &ModuleFacts, sums: &[Summary]) -> Vec<usize> {
    let n = facts.globals.len();
    let mut out = vec![false; n];
    for (i, g) in facts.globals.iter().enumerate() {
        if !facts.global_declared[i] && crate::provenance::escapes(*g) {
            out[i] = true;
        }
    }
    for (fi, f) in facts.funcs.iter().enumerate() {
        let name = f.name();
        let program_entry = name == known::names::MAIN || name == "_QQmain" || name == "MAIN__";
        let external = !f.is_local_linkage() && !program_entry;
        if !(external || crate::provenance::address_taken(*f)) {
            continue;
        }
        if let Some(s) = sums.get(fi) {
            for g in s.globals.iter() {
                if g < n {
                    out[g] = true;
                }
            }
        }
    }
    out.iter().enumerate().filter(|(_, e)| **e).map(|(i, _)| i).collect()
}
