//! No circle of references among the files of one directory module
//! (src/omp/, src/task_ft/, src/files/, format/src/): a reference is a
//! path that names another file's items (`super::x`, `crate::dir::x`,
//! `use super::{x, y::z}`; for a file's own directory's mod.rs or lib.rs:
//! an item defined or re-exported there, `super::item` / `crate::item`).
//! mod.rs (lib.rs) names each of its files, so a file that names an item
//! of its mod.rs closes a circle. The modules' layers (src/lib.rs) are
//! checked by tests/layers.rs; this is the same rule one level down.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Source text without `//` comments.
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The first names of the paths after each `prefix` (`a` of `prefix a::b`,
/// each top-level name of `prefix {a, b::c}`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        // `prefix` must start a path (not `xsuper::`)
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(item);
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.into_iter().map(|s| s.trim().split("::").next().unwrap_or("").trim().to_string()).filter(|s| !s.is_empty() && s != "self").collect()
}

/// The files of directory module `dir` by name ("mod" for mod.rs or
/// lib.rs), and the references between them.
fn graph(dir: &Path, path_prefix: &str, top: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "rs") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let name = if stem == top { "mod".to_string() } else { stem };
            files.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut g = BTreeMap::new();
    for (f, text) in &files {
        let code = code(text);
        let mut refs = BTreeSet::new();
        let mut named = Vec::new();
        if f == "mod" {
            // `mod x;`, `pub use x::..`, `use self::x`
            for l in code.lines() {
                let l = l.trim();
                let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
                if let Some(m) = l.strip_prefix("mod ") {
                    named.push(m.trim_end_matches(';').trim().to_string());
                } else if let Some(u) = l.strip_prefix("use ") {
                    named.push(u.trim_start_matches("self::").split("::").next().unwrap_or("").to_string());
                }
            }
            named.extend(names_after(&code, path_prefix));
        } else {
            named.extend(names_after(&code, "super::"));
            named.extend(names_after(&code, path_prefix));
        }
        for n in named {
            if n == *f {
                continue;
            }
            if names.contains(&n) && n != "mod" {
                refs.insert(n);
            } else if f != "mod" && !n.is_empty() && n != "super" {
                // an item of mod.rs / lib.rs (or a crate outside the
                // directory, for lib.rs's `crate::` of other crates: none)
                refs.insert("mod".to_string());
            }
        }
        g.insert(f.clone(), refs);
    }
    g
}

/// A circle of `g`, if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(n: &str, g: &BTreeMap<String, BTreeSet<String>>, state: &mut BTreeMap<String, u8>, stack: &mut Vec<String>) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|x| x == m).unwrap();
                    let mut c = stack[i..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_circles_among_the_files_of_a_directory() {
    let dirs = [
        (root().join("src/omp"), "crate::omp::", "mod"),
        (root().join("src/task_ft"), "crate::task_ft::", "mod"),
        (root().join("src/files"), "crate::files::", "mod"),
        (root().join("format/src"), "crate::", "lib"),
    ];
    let mut bad = Vec::new();
    for (dir, prefix, top) in dirs {
        let g = graph(&dir, prefix, top);
        assert!(g.len() > 2, "{}: {g:?}", dir.display());
        if let Some(c) = circle(&g) {
            bad.push(format!("{}: {}", dir.display(), c.join(" -> ")));
        }
    }
    assert!(bad.is_empty(), "circles of references among files:\n{}", bad.join("\n"));
}

/// The checker itself: a circle through siblings, and one through mod.rs.
#[test]
fn a_circle_is_caught() {
    let d = std::env::temp_dir().join(format!("dao-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("mod.rs"), "mod a;\nmod b;\npub use a::X;\npub fn helper() {}\n").unwrap();
    std::fs::write(d.join("a.rs"), "use super::b::Y; // super::mod in a comment\npub struct X;\n").unwrap();
    std::fs::write(d.join("b.rs"), "pub struct Y;\n").unwrap();
    let g = graph(&d, "crate::m::", "mod");
    assert_eq!(circle(&g), None, "{g:?}");
    std::fs::write(d.join("b.rs"), "pub struct Y;\nfn f() { crate::m::a::X; }\n").unwrap();
    assert!(circle(&graph(&d, "crate::m::", "mod")).is_some());
    std::fs::write(d.join("b.rs"), "pub struct Y;\nfn f() { super::helper() }\n").unwrap();
    let c = circle(&graph(&d, "crate::m::", "mod")).unwrap();
    assert!(c.contains(&"mod".to_string()), "{c:?}");
    std::fs::remove_dir_all(&d).unwrap();
}
