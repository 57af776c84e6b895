//! The runtime's structure, checked from its sources:
//!
//! - the module layers written in src/lib.rs's doc comment ("# Layers"): a
//!   module names (`crate::m`, `use crate::{m, ...}`, `super::`/`self::`
//!   paths resolved from the file's module) only modules listed before it,
//!   so the modules form no cycle; an entry `m::s` lists a submodule of a
//!   directory module on its own (its files are then not `m`'s);
//! - every environment variable is read in src/config.rs, and README.md's
//!   environment table is config.rs's `VARS` (names, defaults, values, in
//!   order).
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

/// Source text without `//` comments (doc comments name modules freely).
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The crate paths `text` names, as written: `crate::m::x` and
/// `use crate::{m, n::x}` give `m::x`, `m`, `n::x` (a group's items are
/// cut at a nested group).
fn references(text: &str) -> Vec<String> {
    paths(text, "").into_iter().map(|p| p.split("::").next().unwrap_or("").to_string()).filter(|s| !s.is_empty() && s != "self").collect()
}

/// The crate paths a file of module `module` (`a::b` for src/a/b.rs or
/// src/a/b/mod.rs) names: `crate::...`, and `super::...` / `self::...`
/// resolved from `module`. Items that are not paths (`*`) are left out.
fn paths(text: &str, module: &str) -> Vec<String> {
    let code = code(text);
    let base: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let prev = code[..i].chars().next_back();
        let start = ["crate::", "super::", "self::"].into_iter().find(|k| rest.starts_with(k));
        let Some(k) = start.filter(|_| !prev.is_some_and(ident)) else {
            i += rest.chars().next().map_or(1, |c| c.len_utf8());
            continue;
        };
        // the module the path starts from
        let mut at: Vec<&str> = if k == "crate::" { Vec::new() } else { base.clone() };
        let mut r = rest;
        if k == "super::" || k == "self::" {
            while let Some(x) = r.strip_prefix("super::") {
                at.pop();
                r = x;
            }
            if let Some(x) = r.strip_prefix("self::") {
                r = x;
            }
        } else {
            r = &r[k.len()..];
        }
        // the path's segments up to a group or a non-path character
        let mut segs: Vec<String> = at.iter().map(|s| s.to_string()).collect();
        loop {
            let seg: String = r.chars().take_while(|&c| ident(c)).collect();
            if seg.is_empty() {
                break;
            }
            r = &r[seg.len()..];
            segs.push(seg);
            match r.strip_prefix("::") {
                Some(x) => r = x,
                None => break,
            }
        }
        let prefix = segs.join("::");
        if let Some(group) = r.strip_prefix('{') {
            // the top-level items of the group
            let mut depth = 0;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            items.push(item);
            for it in items {
                let it = it.trim();
                let head: String = it.split("::{").next().unwrap_or("").split(" as ").next().unwrap_or("").trim().to_string();
                if head.is_empty() || !head.chars().all(|c| ident(c) || c == ':') {
                    continue;
                }
                if head == "self" {
                    out.push(prefix.clone());
                } else if prefix.is_empty() {
                    out.push(head);
                } else {
                    out.push(format!("{prefix}::{head}"));
                }
            }
        } else if !prefix.is_empty() {
            out.push(prefix);
        }
        i += rest.len() - r.len();
    }
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The layer entry a crate path belongs to: the longest entry that is the
/// path or a prefix of it (`mpi::restart::choose` is `mpi::restart`'s when
/// that is listed, else `mpi`'s); None when no entry is.
fn entry_of<'a>(order: &'a [String], path: &str) -> Option<&'a String> {
    order.iter().filter(|e| path == e.as_str() || path.starts_with(&format!("{e}::"))).max_by_key(|e| e.len())
}

/// The module path of a source file: src/a.rs and src/a/mod.rs are `a`,
/// src/a/b.rs is `a::b`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segs.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        segs.push(stem.to_string());
    }
    segs.join("::")
}

/// The files of module `m` (`a` or `a::b`): src/m.rs and everything under
/// src/m/.
fn files(m: &str) -> Vec<PathBuf> {
    let m = m.replace("::", "/");
    let mut out = Vec::new();
    let f = src().join(format!("{m}.rs"));
    if f.exists() {
        out.push(f);
    }
    let mut dirs = vec![src().join(&m)];
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
    out
}

/// The files of layer entry `m`: its module's files less those of the
/// entries listed on their own below it (`mpi` without `mpi::restart`).
fn entry_files(order: &[String], m: &str) -> Vec<PathBuf> {
    let own: Vec<PathBuf> = order.iter().filter(|e| e.starts_with(&format!("{m}::"))).flat_map(|e| files(e)).collect();
    files(m).into_iter().filter(|f| !own.contains(f)).collect()
}

/// The references that break the order: (module, file, module it names).
fn violations(order: &[String], refs: &BTreeMap<String, Vec<(PathBuf, String)>>) -> Vec<String> {
    let pos = |m: &str| order.iter().position(|x| x == m);
    let mut bad = Vec::new();
    for (m, rs) in refs {
        let me = pos(m).unwrap();
        for (file, path) in rs {
            let r = entry_of(order, path).map_or_else(|| path.split("::").next().unwrap_or("").to_string(), |e| e.clone());
            match pos(&r) {
                Some(p) if p < me || &r == m => {}
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
    let declared: Vec<String> = lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|l| l.trim_end_matches(';').to_string()).collect();
    let mut a: Vec<String> = order.iter().filter(|m| !m.contains("::")).cloned().collect();
    a.sort();
    let mut b = declared.clone();
    b.sort();
    assert_eq!(a, b, "lib.rs's layer list must name every module exactly once");

    let mut refs = BTreeMap::new();
    for m in &order {
        let fs = entry_files(&order, m);
        assert!(!fs.is_empty(), "no source for module {m}");
        let mut rs = Vec::new();
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap();
            rs.extend(paths(&text, &module_of(&f)).into_iter().map(|r| (f.clone(), r)));
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
}

/// An entry `m::s` is a layer of its own: `m`'s files may not name it,
/// whichever way the path is written.
#[test]
fn a_submodule_entry_is_its_own_layer() {
    let order: Vec<String> = ["a", "b", "a::s"].iter().map(|s| s.to_string()).collect();
    assert_eq!(entry_of(&order, "a::s::f").map(String::as_str), Some("a::s"));
    assert_eq!(entry_of(&order, "a::sym::f").map(String::as_str), Some("a"));
    // a/x.rs (module a::x) naming its sibling s, and s naming a and b
    let text_x = "use super::s::f;\nfn g() { super::y::h(); crate::a::s::k() }";
    let text_s = "use crate::a::{self, y};\nfn f() { super::y::h(); crate::b::z() }";
    assert_eq!(paths(text_x, "a::x"), vec!["a::s::f", "a::y::h", "a::s::k"]);
    assert_eq!(paths(text_s, "a::s"), vec!["a", "a::y", "a::y::h", "b::z"]);
    let mut refs = BTreeMap::new();
    refs.insert("a".to_string(), paths(text_x, "a::x").into_iter().map(|r| (PathBuf::from("a/x.rs"), r)).collect::<Vec<_>>());
    refs.insert("a::s".to_string(), paths(text_s, "a::s").into_iter().map(|r| (PathBuf::from("a/s.rs"), r)).collect::<Vec<_>>());
    let bad = violations(&order, &refs);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad.iter().all(|b| b.starts_with("a (a/x.rs) uses a::s")), "{bad:?}");
}

/// config.rs's `VARS`: (name, default, values).
fn vars() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(src().join("config.rs")).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(args) = line.trim().strip_prefix("v(\"") else { continue };
        let fields: Vec<&str> = args.split("\", \"").collect();
        assert_eq!(fields.len(), 4, "a VARS entry on one line: {line}");
        let last = fields[3].strip_suffix("\"),").expect("an entry ends with `\"),`");
        out.push((fields[0].to_string(), fields[2].to_string(), last.to_string()));
    }
    out
}

#[test]
fn environment_is_read_in_config_and_listed_in_the_readme() {
    // read only in config.rs (the store crate reads none: the runtime passes
    // it a lookup)
    let mut files = files("");
    files.extend(std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("store/src")).unwrap().flatten().map(|e| e.path()));
    for f in files {
        if f.extension().map_or(true, |x| x != "rs") || f.ends_with("src/config.rs") && f.starts_with(src()) {
            continue;
        }
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for pat in ["env::var", "var_os(", "getenv"] {
            assert!(!text.contains(pat), "{} reads the environment ({pat}); read it in src/config.rs", f.display());
        }
    }
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = readme.split("| variable | default | values | meaning |").nth(1).expect("README.md's environment table");
    let rows: Vec<(String, String, String)> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let c: Vec<&str> = l.split(" | ").collect();
            (c[0].trim_start_matches("| ").trim_matches('`').to_string(), c[1].to_string(), c[2].to_string())
        })
        .collect();
    assert_eq!(rows, vars(), "README.md's environment table must be src/config.rs's VARS (name, default, values; same order)");
}
