//! The module layers of a crate, checked from its sources: src/lib.rs's
//! doc comment lists them ("# Layers", bottom first, `N. name: module,
//! module`), and a module names (`crate::m`, `use crate::{m, ...}`) only
//! modules listed before it (on a lower line, or earlier on its own), so
//! the modules form no cycle. A module's files are src/m.rs, everything
//! under src/m/, and the files its `#[path = "..."]` attributes name (a
//! `#[cfg(test)]` test file such as src/known_tests.rs).
//!
//! The same file checks dao-pass (pass/plugin/tests/layers.rs includes it
//! as a module): `CARGO_MANIFEST_DIR` is the crate under test. After
//! runtime/tests/layers.rs.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer list of lib.rs: module names in order, bottom first.
fn layer_order(lib: &str) -> Vec<String> {
    let mut order = Vec::new();
    let mut in_layers = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else { break };
        let doc = doc.trim();
        if doc.starts_with('#') {
            in_layers = doc == "# Layers";
            continue;
        }
        if !in_layers {
            continue;
        }
        // "N. name: a, b, c"
        let Some((num, rest)) = doc.split_once(". ") else { continue };
        if num.parse::<u32>().is_err() {
            continue;
        }
        let (_, mods) = rest.split_once(':').expect("a layer line is `N. name: module, module`");
        order.extend(mods.split(',').map(|m| m.trim().to_string()));
    }
    order
}

/// The modules lib.rs declares (`mod m;`, `pub mod m;`).
fn declared(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .filter_map(|l| l.strip_suffix(';'))
        .map(|l| l.trim().to_string())
        .collect()
}

/// Source text without `//` comments (doc comments name modules freely).
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The crate modules `text` names: `crate::m` and `use crate::{m, n::x}`.
fn references(text: &str) -> Vec<String> {
    let code = code(text);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // the top-level names of the group
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
    out.into_iter()
        .map(|s| s.trim().split("::").next().unwrap_or("").trim().to_string())
        .filter(|s| !s.is_empty() && s != "self")
        .collect()
}

/// The files `#[path = "..."]` attributes in `file` name (relative to its
/// directory).
fn path_attrs(file: &Path, text: &str) -> Vec<PathBuf> {
    let dir = file.parent().unwrap();
    code(text)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#[path = \"")?.split('"').next().map(|p| dir.join(p)))
        .collect()
}

/// The files of module `m`: src/m.rs, everything under src/m/, and the
/// files their `#[path]` attributes name.
fn files(m: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let f = src().join(format!("{m}.rs"));
    if f.exists() {
        out.push(f);
    }
    let mut dirs = vec![src().join(m)];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut i = 0;
    while i < out.len() {
        let text = std::fs::read_to_string(&out[i]).unwrap();
        for p in path_attrs(&out[i], &text) {
            assert!(p.exists(), "{} names {} in #[path], which does not exist", out[i].display(), p.display());
            if !out.contains(&p) {
                out.push(p);
            }
        }
        i += 1;
    }
    out.sort();
    out
}

/// The references that break the order: (module, file, module it names).
fn violations(order: &[String], refs: &BTreeMap<String, Vec<(PathBuf, String)>>) -> Vec<String> {
    let pos = |m: &str| order.iter().position(|x| x == m);
    let mut bad = Vec::new();
    for (m, rs) in refs {
        let me = pos(m).unwrap();
        for (file, r) in rs {
            match pos(r) {
                Some(p) if p < me || r == m => {}
                Some(_) => bad.push(format!("{m} ({}) uses {r}, which is not below it", file.display())),
                None => bad.push(format!("{m} ({}) uses {r}, which the layer list does not name", file.display())),
            }
        }
    }
    bad
}

#[test]
fn modules_follow_the_layers() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let order = layer_order(&lib);
    let mut a = order.clone();
    a.sort();
    let mut b = declared(&lib);
    b.sort();
    assert_eq!(a, b, "lib.rs's layer list must name every module exactly once");

    let mut refs = BTreeMap::new();
    for m in &order {
        let fs = files(m);
        assert!(!fs.is_empty(), "no source for module {m}");
        let mut rs = Vec::new();
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap();
            rs.extend(references(&text).into_iter().map(|r| (f.clone(), r)));
        }
        refs.insert(m.clone(), rs);
    }
    let bad = violations(&order, &refs);
    assert!(bad.is_empty(), "module references against the layers of lib.rs:\n{}", bad.join("\n"));
}

/// The checker itself: a reference upwards (which any cycle needs) fails.
#[test]
fn a_cycle_is_caught() {
    let order: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let text_a = "use crate::{b::X, self};\n// crate::c in a comment\n";
    let text_c = "fn f() { crate::a::g(); crate::b::h() }";
    assert_eq!(references(text_a), vec!["b"]);
    let mut refs = BTreeMap::new();
    refs.insert("a".to_string(), references(text_a).into_iter().map(|r| (PathBuf::from("a.rs"), r)).collect::<Vec<_>>());
    refs.insert("c".to_string(), references(text_c).into_iter().map(|r| (PathBuf::from("c.rs"), r)).collect::<Vec<_>>());
    let bad = violations(&order, &refs);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("a (a.rs) uses b"));
    assert_eq!(declared("mod a;\npub mod b;\nmod c {\n"), vec!["a", "b"]);
}
