//! The workspace's structure, checked from its sources (no build of the
//! code under test, so it runs in a second):
//!
//! - **no circle of files**: in every crate, the graph whose edge A -> B
//!   means "file A names an item of file B" (`crate::b::x`, `super::x`,
//!   `self::b`, and `use` groups of those) has no cycle. A `pub use` in a
//!   module's root file is a re-export (a facade), not a use: a name
//!   reached through it resolves to the file that defines it. Inline
//!   `#[cfg(test)] mod tests { .. }` blocks and `*_tests.rs` files are
//!   left out (a test of a file names it; it is not named back).
//! - **no file over 900 lines**, except the one table of external functions
//!   (`pass/analysis/src/known.rs`: one row per function, kept together on
//!   purpose).
//! - **the driver reads the environment only in `driver/src/env.rs`** (the
//!   runtime's rule, `runtime/src/config.rs`, is in runtime/tests/layers.rs).
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The crates' source directories (each with lib.rs or main.rs).
fn crate_srcs() -> Vec<PathBuf> {
    let r = repo();
    ["abi", "pass/analysis", "pass/plugin", "runtime", "runtime/format", "runtime/store", "runtime/protocol-model", "placement", "driver", "tests"]
        .iter()
        .map(|c| r.join(c).join("src"))
        .filter(|p| p.is_dir())
        .collect()
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file relative to its crate's src.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(matches!(stem, "mod") || (parts.is_empty() && matches!(stem, "lib" | "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

/// Whether `file` is the root file of its module (lib.rs, main.rs, mod.rs).
fn is_root_file(file: &Path) -> bool {
    matches!(file.file_name().and_then(|n| n.to_str()), Some("lib.rs" | "main.rs" | "mod.rs"))
}

/// Code without comments and without inline test modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let t = l.trim_start();
        if t.starts_with("#[cfg(test)]") {
            if let Some(next) = lines.peek() {
                let n = next.trim_start();
                if (n.starts_with("mod ") || n.starts_with("pub mod ")) && n.trim_end().ends_with('{') {
                    // skip the block by brace depth
                    let mut depth = 0i32;
                    for l2 in lines.by_ref() {
                        depth += l2.matches('{').count() as i32 - l2.matches('}').count() as i32;
                        if depth <= 0 && l2.contains('}') {
                            break;
                        }
                    }
                    continue;
                }
            }
        }
        out.push_str(l.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// One crate: module path -> file, and each file's text.
struct Crate {
    files: BTreeMap<Vec<String>, PathBuf>,
    text: BTreeMap<PathBuf, String>,
}

impl Crate {
    fn load(src: &Path) -> Crate {
        let mut v = Vec::new();
        rs_files(src, &mut v);
        let mut files = BTreeMap::new();
        let mut text = BTreeMap::new();
        for f in v {
            // bin targets under src/bin are crates of their own; tests too
            if f.strip_prefix(src).unwrap().starts_with("bin") {
                continue;
            }
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with("_tests.rs") {
                continue;
            }
            files.insert(module_of(src, &f), f.clone());
            text.insert(f.clone(), code(&std::fs::read_to_string(&f).unwrap()));
        }
        Crate { files, text }
    }

    /// The file an absolute path (module segments, then maybe an item)
    /// names: the deepest module file on the path, followed through `pub
    /// use` re-exports of root files.
    fn resolve(&self, path: &[String], depth: u32) -> Option<PathBuf> {
        let mut best = None;
        let mut used = 0;
        for i in 0..=path.len() {
            if let Some(f) = self.files.get(&path[..i]) {
                best = Some(f.clone());
                used = i;
            }
        }
        let f = best?;
        if depth < 8 && is_root_file(&f) && used < path.len() {
            // `pub use child::{Name}` / `pub use child::Name` in a facade
            let item = &path[used];
            let module = &path[..used];
            for (target, names) in reexports(&self.text[&f]) {
                if names.iter().any(|n| n == item || n == "*") {
                    let mut p: Vec<String> = resolve_relative(module, module, &target, true);
                    p.push(item.clone());
                    if let Some(g) = self.resolve(&p, depth + 1) {
                        return Some(g);
                    }
                }
            }
        }
        Some(f)
    }
}

/// `pub use a::b::{X, Y}` / `pub use a::X` lines of a root file: (the path
/// before the last segment or group, the names).
fn reexports(text: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for stmt in text.split(';') {
        let s = stmt.trim();
        let Some(rest) = s.strip_prefix("pub use ").or_else(|| s.strip_prefix("pub(crate) use ")) else { continue };
        let rest: String = rest.split_whitespace().collect();
        if let Some((head, group)) = rest.split_once("::{") {
            let names = group.trim_end_matches('}').split(',').map(|n| n.split("::").next().unwrap_or("").trim().to_string()).filter(|n| !n.is_empty()).collect();
            out.push((head.split("::").map(str::to_string).collect(), names));
        } else if let Some((head, last)) = rest.rsplit_once("::") {
            let name = last.split(" as ").next().unwrap_or(last).to_string();
            out.push((head.split("::").map(str::to_string).collect(), vec![name]));
        }
    }
    out
}

/// An absolute module path from a path written in file of module `me`
/// whose own module is `scope` (`crate::`, `super::`, `self::` or a bare
/// child name in a root file's `use`).
fn resolve_relative(me: &[String], scope: &[String], p: &[String], bare_is_child: bool) -> Vec<String> {
    let _ = me;
    let mut base: Vec<String> = scope.to_vec();
    let mut it = p.iter().peekable();
    match it.peek().map(|s| s.as_str()) {
        Some("crate") => {
            base.clear();
            it.next();
        }
        Some("self") => {
            it.next();
        }
        Some("super") => {
            while it.peek().map(|s| s.as_str()) == Some("super") {
                base.pop();
                it.next();
            }
        }
        _ if bare_is_child => {}
        _ => return Vec::new(),
    }
    base.extend(it.cloned());
    base
}

/// The paths a file names: each `crate::`/`super::`/`self::` path in its
/// code, groups expanded, plus bare `use child::..` in root files.
fn named_paths(text: &str, root: bool, children: &BTreeSet<String>) -> Vec<(Vec<String>, bool)> {
    let mut out = Vec::new();
    let bytes: Vec<char> = text.chars().collect();
    let n = bytes.len();
    let mut i = 0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < n {
        let start_ok = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':');
        if start_ok && is_ident(bytes[i]) {
            // read a path a::b::{c, d::e}
            let (paths, end) = read_path(&bytes, i);
            for p in paths {
                let first = p.first().map(String::as_str).unwrap_or("");
                if matches!(first, "crate" | "super" | "self") && p.len() > 1 {
                    out.push((p, false));
                } else if root && p.len() > 1 && children.contains(first) {
                    out.push((p, true));
                }
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads a path starting at `i`; returns the expanded paths and the end.
fn read_path(c: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut segs: Vec<String> = Vec::new();
    loop {
        let s = i;
        while i < c.len() && is_ident(c[i]) {
            i += 1;
        }
        segs.push(c[s..i].iter().collect());
        let mut j = i;
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        if j + 1 < c.len() && c[j] == ':' && c[j + 1] == ':' {
            j += 2;
            while j < c.len() && c[j].is_whitespace() {
                j += 1;
            }
            if j < c.len() && c[j] == '{' {
                // a group: split on top-level commas
                let mut depth = 0;
                let mut k = j + 1;
                let mut item_start = k;
                let mut out = Vec::new();
                while k < c.len() {
                    match c[k] {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            push_item(&segs, &c[item_start..k], &mut out);
                            item_start = k + 1;
                        }
                        _ => {}
                    }
                    k += 1;
                }
                push_item(&segs, &c[item_start..k.min(c.len())], &mut out);
                return (out, k + 1);
            }
            if j < c.len() && is_ident(c[j]) {
                i = j;
                continue;
            }
            return (vec![segs], j);
        }
        return (vec![segs], i);
    }
}

fn push_item(prefix: &[String], item: &[char], out: &mut Vec<Vec<String>>) {
    let s: String = item.iter().collect();
    let s = s.trim();
    if s.is_empty() {
        return;
    }
    let chars: Vec<char> = s.chars().collect();
    let (paths, _) = read_path(&chars, 0);
    for p in paths {
        if p.first().is_some_and(|x| x == "self") {
            out.push(prefix.to_vec());
            continue;
        }
        let mut v = prefix.to_vec();
        v.extend(p);
        out.push(v);
    }
}

/// Each file's edges to other files of its crate.
fn edges(c: &Crate) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut g: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &c.files {
        let root = is_root_file(file);
        // the module a path in this file is relative to
        let scope: Vec<String> = module.clone();
        let children: BTreeSet<String> = c
            .files
            .keys()
            .filter(|k| k.len() == module.len() + 1 && k.starts_with(module))
            .map(|k| k.last().unwrap().clone())
            .collect();
        let text = &c.text[file];
        // re-exports of a root file are not uses
        let facade: String = if root {
            text.split(';').filter(|s| !s.trim().starts_with("pub use ") && !s.trim().starts_with("pub(crate) use ")).collect::<Vec<_>>().join(";")
        } else {
            text.clone()
        };
        let e = g.entry(file.clone()).or_default();
        for (p, bare) in named_paths(&facade, root, &children) {
            let abs = resolve_relative(module, &scope, &p, bare);
            if abs.is_empty() && !p.is_empty() && p[0] != "crate" {
                continue;
            }
            if let Some(t) = c.resolve(&abs, 0) {
                if &t != file {
                    e.insert(t);
                }
            }
        }
    }
    g
}

/// The cycles of a graph (one per strongly connected component with more
/// than one file), as file lists.
fn cycles(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Tarjan
    struct St<'a> {
        g: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        on: BTreeSet<&'a PathBuf>,
        stack: Vec<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a PathBuf) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.g.get(v) {
            for w in ws {
                if !s.g.contains_key(w) {
                    continue;
                }
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St { g, index: BTreeMap::new(), low: BTreeMap::new(), on: BTreeSet::new(), stack: Vec::new(), next: 0, out: Vec::new() };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

#[test]
fn no_circles_of_files() {
    let mut found = Vec::new();
    for src in crate_srcs() {
        let c = Crate::load(&src);
        let g = edges(&c);
        for comp in cycles(&g) {
            let names: Vec<String> = comp.iter().map(|f| rel(f)).collect();
            // the edges inside the component, to show the circle
            let inside: Vec<String> = comp
                .iter()
                .flat_map(|a| g[a].iter().filter(|b| comp.contains(b)).map(move |b| format!("{} -> {}", rel(a), rel(b))))
                .collect();
            found.push(format!("{}\n    {}", names.join(", "), inside.join("\n    ")));
        }
    }
    assert!(found.is_empty(), "files that name each other (move the shared pieces down a file):\n  {}", found.join("\n  "));
}

/// The checker itself: a planted circle is found, a parent's re-export is
/// not a use, and a chain through a facade reaches the defining file.
#[test]
fn the_circle_check_sees_a_planted_circle() {
    let mk = |files: &[(&str, &str)]| {
        let mut c = Crate { files: BTreeMap::new(), text: BTreeMap::new() };
        for (name, text) in files {
            let p = PathBuf::from(format!("/src/{name}"));
            c.files.insert(module_of(Path::new("/src"), &p), p.clone());
            c.text.insert(p, code(text));
        }
        c
    };
    let c = mk(&[("lib.rs", "mod a; mod b;"), ("a.rs", "use crate::b::X; fn f() {}"), ("b.rs", "pub struct X; fn g() { crate::a::f() }")]);
    assert_eq!(cycles(&edges(&c)).len(), 1);
    let c = mk(&[("lib.rs", "mod a; mod b;"), ("a.rs", "use crate::b::X;"), ("b.rs", "pub struct X;")]);
    assert!(cycles(&edges(&c)).is_empty());
    // omp/mod.rs re-exports team's items; team uses singles (through the
    // facade, super::{x}), singles uses team: found
    let c = mk(&[
        ("lib.rs", "mod omp;"),
        ("omp/mod.rs", "mod team; mod singles; pub use team::{tid, depth};"),
        ("omp/team.rs", "use super::singles; pub fn tid() {} fn f() { singles::reset() }"),
        ("omp/singles.rs", "use super::team::{self, depth}; pub fn reset() { crate::omp::tid(); }"),
    ]);
    assert_eq!(cycles(&edges(&c)).len(), 1, "{:?}", edges(&c));
    let c = mk(&[
        ("lib.rs", "mod omp;"),
        ("omp/mod.rs", "mod team; mod singles; pub use team::{tid, depth};"),
        ("omp/team.rs", "pub fn tid() {}"),
        ("omp/singles.rs", "pub fn reset() { crate::omp::tid(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}"),
    ]);
    assert!(cycles(&edges(&c)).is_empty(), "{:?}", edges(&c));
}

#[test]
fn no_file_over_900_lines() {
    const LIMIT: usize = 900;
    // the one table of external functions (a row per function)
    let exempt = [repo().join("pass/analysis/src/known.rs")];
    let mut long = Vec::new();
    let r = repo();
    for dir in ["abi", "pass", "runtime", "placement", "driver", "tests"] {
        let mut v = Vec::new();
        rs_files(&r.join(dir), &mut v);
        for f in v {
            if f.components().any(|c| c.as_os_str() == "target" || c.as_os_str() == "out") || exempt.contains(&f) {
                continue;
            }
            let n = std::fs::read_to_string(&f).unwrap().lines().count();
            if n > LIMIT {
                long.push(format!("{} ({n} lines)", rel(&f)));
            }
        }
    }
    assert!(long.is_empty(), "files over {LIMIT} lines (split them by concept): {}", long.join(", "));
}

#[test]
fn the_driver_reads_the_environment_only_in_env_rs() {
    let src = repo().join("driver/src");
    let mut v = Vec::new();
    rs_files(&src, &mut v);
    let mut bad = Vec::new();
    for f in v {
        if f.ends_with("env.rs") {
            continue;
        }
        let t = code(&std::fs::read_to_string(&f).unwrap());
        for pat in ["env::var", "env::vars", "getenv"] {
            if t.contains(pat) {
                bad.push(format!("{} ({pat})", rel(&f)));
            }
        }
    }
    assert!(bad.is_empty(), "environment read outside driver/src/env.rs: {}", bad.join(", "));
}

/// `rust-version` is true to what building needs: no crate of the
/// workspace depends (normal or build dependency, through any chain, as
/// Cargo.lock resolves it) on a package that declares a newer one. The
/// standard library side (APIs newer than rust-version) is clippy's
/// `incompatible_msrv`, denied in scripts/test.sh.
#[test]
fn rust_version_covers_the_dependencies() {
    // the packages of this platform only: those a build here has
    // downloaded (on a fresh machine the registry holds no other
    // platform's, and `--offline` cannot fetch them)
    let rustc = std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into())).arg("-vV").output().expect("run rustc -vV");
    let host = String::from_utf8_lossy(&rustc.stdout).lines().find_map(|l| l.strip_prefix("host: ").map(str::to_string)).expect("rustc -vV names the host");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--locked", "--filter-platform", &host])
        .current_dir(repo())
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ver = |v: &serde_json::Value| -> Option<(u32, u32)> {
        let s = v.as_str()?;
        let mut it = s.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
        Some((it.next()?, it.next().unwrap_or(0)))
    };
    let mut rv: BTreeMap<String, Option<(u32, u32)>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for p in m["packages"].as_array().unwrap() {
        let id = p["id"].as_str().unwrap().to_string();
        rv.insert(id.clone(), ver(&p["rust_version"]));
        names.insert(id, format!("{} {}", p["name"].as_str().unwrap(), p["version"].as_str().unwrap()));
    }
    // normal and build edges of the resolved graph
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for n in m["resolve"]["nodes"].as_array().unwrap() {
        let id = n["id"].as_str().unwrap().to_string();
        let mut v = Vec::new();
        for d in n["deps"].as_array().unwrap() {
            let kinds = d["dep_kinds"].as_array().unwrap();
            if kinds.iter().any(|k| k["kind"].is_null() || k["kind"] == "build") {
                v.push(d["pkg"].as_str().unwrap().to_string());
            }
        }
        deps.insert(id, v);
    }
    let mut bad = Vec::new();
    for member in m["workspace_members"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        let mine = rv[member].unwrap_or_else(|| panic!("{} declares no rust-version", names[member]));
        let mut seen = BTreeSet::new();
        let mut todo = vec![member.to_string()];
        while let Some(p) = todo.pop() {
            for d in deps.get(&p).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                    if let Some(v) = rv[d] {
                        if v > mine {
                            bad.push(format!("{} (rust-version {}.{}) needs {} (rust-version {}.{})", names[member], mine.0, mine.1, names[d], v.0, v.1));
                        }
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "rust-version below what the dependencies need:\n  {}", bad.join("\n  "));
}
