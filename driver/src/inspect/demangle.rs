//! C++ names in a report as the user wrote them: `Domain::step(double)`
//! for `_ZN6Domain4stepEd`, `us` for the file-static `_ZL2us`.
//!
//! The checkpoint holds the names the pass emitted (the mangled ones: the
//! runtime matches a call site's callee against the next frame by name, so
//! the descriptors keep them). The report demangles them in one batch
//! through LLVM's `llvm-cxxfilt-19` (installed with LLVM 19, which dao
//! needs), else binutils' `c++filt`; without either, or for names that are
//! not mangled (C, Fortran), the names stay as they are.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use super::process::FileReport;

/// Demangled forms of the `_Z` names among `names` (one filter run).
fn demangle_batch(names: &[String]) -> HashMap<String, String> {
    let mangled: Vec<&String> = names.iter().filter(|n| n.starts_with("_Z")).collect();
    if mangled.is_empty() {
        return HashMap::new();
    }
    for tool in ["llvm-cxxfilt-19", "c++filt"] {
        let Ok(mut child) = Command::new(tool).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() else { continue };
        let input: String = mangled.iter().map(|n| format!("{n}\n")).collect();
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        let Ok(out) = child.wait_with_output() else { continue };
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        if out.status.success() && lines.len() == mangled.len() {
            return mangled.iter().zip(lines).map(|(m, d)| ((*m).clone(), d.to_string())).collect();
        }
    }
    HashMap::new()
}

/// Replaces every mangled function and variable name of `r` by its
/// demangled form.
pub fn demangle_report(r: &mut FileReport) {
    let mut names = Vec::new();
    for f in r.label_stack.iter().chain(r.workers.iter().flat_map(|w| w.label_stack.iter())) {
        names.push(f.function.clone());
        names.extend(f.slots.iter().chain(&f.stack_objects).map(|v| v.name.clone()));
    }
    names.extend(r.globals.iter().map(|g| g.var.name.clone()));
    names.extend(r.dead_globals.iter().map(|g| g.name.clone()));
    names.extend(r.heap_objects.iter().map(|o| o.name.clone()));
    for w in &r.workers {
        names.extend(w.threadprivate.iter().chain(&w.threadprivate_copies).map(|v| v.name.clone()));
    }
    let map = demangle_batch(&names);
    if map.is_empty() {
        return;
    }
    let fix = |s: &mut String| {
        if let Some(d) = map.get(s.as_str()) {
            *s = d.clone();
        }
    };
    for w in &mut r.workers {
        for f in &mut w.label_stack {
            fix(&mut f.function);
            f.slots.iter_mut().chain(f.stack_objects.iter_mut()).for_each(|v| fix(&mut v.name));
        }
        w.threadprivate.iter_mut().chain(w.threadprivate_copies.iter_mut()).for_each(|v| fix(&mut v.name));
    }
    for f in &mut r.label_stack {
        fix(&mut f.function);
        f.slots.iter_mut().chain(f.stack_objects.iter_mut()).for_each(|v| fix(&mut v.name));
    }
    r.globals.iter_mut().for_each(|g| fix(&mut g.var.name));
    r.dead_globals.iter_mut().for_each(|g| fix(&mut g.name));
    r.heap_objects.iter_mut().for_each(|o| fix(&mut o.name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_demangles_cxx_names_only() {
        let m = demangle_batch(&["_ZN6Domain4stepEd".to_string(), "main".to_string(), "_ZL2us".to_string()]);
        assert_eq!(m.get("_ZN6Domain4stepEd").map(String::as_str), Some("Domain::step(double)"));
        assert_eq!(m.get("_ZL2us").map(String::as_str), Some("us"));
        assert!(!m.contains_key("main"));
    }
}
