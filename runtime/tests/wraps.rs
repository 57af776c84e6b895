//! The link-time wraps, checked from the sources: `dao cc`/`dao fc` (and
//! `dao mpicc`/`dao mpifort`, the same plan) link every program with
//! `-Wl,--wrap=SYM` for each symbol of `LINK_WRAP` (driver/src/compile.rs),
//! so that the program's calls to SYM reach the runtime's `__wrap_SYM`.
//!
//! - every wrapped symbol has a `#[no_mangle]` `__wrap_SYM` in the runtime
//!   (else the link fails, or worse, an uninstrumented call is not seen);
//! - every `__wrap_SYM` the runtime defines is wrapped by the driver (else
//!   it is dead code: the program's calls go to SYM itself);
//! - the runtime reaches the real functions with dlsym, never through
//!   `__real_SYM` of a symbol the driver does not wrap.
//!
//! MPI is interposed differently: mpi/wrap.rs defines the MPI functions
//! under their own names (`MPI_Send`, `mpi_send_`, ...) and forwards to
//! Open MPI's `PMPI_*` / `pmpi_*_`; the executable's definitions come before
//! the shared libmpi's, so no `--wrap` is involved. The test checks that
//! this stays so: no MPI symbol in `LINK_WRAP`, no `__wrap_` in mpi/wrap.rs,
//! and `MPI_` definitions there.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Source text without `//` comments.
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The symbols of `pub const LINK_WRAP: &str = "-Wl,--wrap=a,--wrap=b";`.
fn link_wraps(compile_rs: &str) -> Vec<String> {
    let code = code(compile_rs);
    let start = code.find("const LINK_WRAP").expect("driver/src/compile.rs defines LINK_WRAP");
    let rest = &code[start..];
    let open = rest.find('"').expect("LINK_WRAP is a string literal") + 1;
    let close = open + rest[open..].find('"').expect("LINK_WRAP's string ends");
    let value = &rest[open..close];
    let value = value.strip_prefix("-Wl,").expect("LINK_WRAP is one -Wl, option");
    value
        .split(',')
        .map(|w| w.strip_prefix("--wrap=").unwrap_or_else(|| panic!("LINK_WRAP holds `{w}`, not a --wrap=SYM")).to_string())
        .collect()
}

fn ident_after(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// `(symbol, file)` of every `fn __wrap_SYM` in `text`; a definition that
/// is not `#[no_mangle]` is an error (the linker would not find it).
fn wrap_defs(file: &Path, text: &str) -> (Vec<String>, Vec<String>) {
    let code = code(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut defs = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(k) = line.find("fn __wrap_") else { continue };
        let sym = ident_after(&line[k + "fn __wrap_".len()..]);
        // the attributes above the signature
        let exported = lines[..i].iter().rev().take_while(|l| l.trim().starts_with("#[") || l.trim().is_empty()).any(|l| l.contains("no_mangle"));
        if !exported {
            bad.push(format!("{}: __wrap_{sym} is not #[no_mangle]", file.display()));
        }
        defs.push(sym);
    }
    (defs, bad)
}

/// The symbols whose `__real_SYM` the text names.
fn real_uses(text: &str) -> Vec<String> {
    let code = code(text);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("__real_") {
        rest = &rest[i + "__real_".len()..];
        out.push(ident_after(rest));
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The mismatches between the driver's wraps and the runtime's
/// definitions (empty: they agree).
fn mismatches(wrapped: &[String], defined: &[(String, PathBuf)], reals: &[(String, PathBuf)]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    for w in wrapped {
        if !seen.insert(w) {
            bad.push(format!("LINK_WRAP names {w} twice"));
        }
    }
    let defs: BTreeSet<&String> = defined.iter().map(|(s, _)| s).collect();
    for w in wrapped {
        if !defs.contains(w) {
            bad.push(format!("LINK_WRAP wraps {w}, but the runtime defines no __wrap_{w}"));
        }
    }
    let mut once = BTreeSet::new();
    for (s, f) in defined {
        if !once.insert(s) {
            bad.push(format!("__wrap_{s} is defined twice (again in {})", f.display()));
        }
        if !seen.contains(s) {
            bad.push(format!("{} defines __wrap_{s}, but LINK_WRAP does not wrap {s} (the program's calls would never reach it)", f.display()));
        }
    }
    for (s, f) in reals {
        if !seen.contains(s) {
            bad.push(format!("{} calls __real_{s}, which exists only when LINK_WRAP wraps {s}", f.display()));
        }
    }
    bad
}

#[test]
fn link_wraps_match_the_runtime() {
    let compile = std::fs::read_to_string(root().join("../driver/src/compile.rs")).unwrap();
    let wrapped = link_wraps(&compile);
    assert!(wrapped.len() > 10, "LINK_WRAP parsed as {wrapped:?}");
    let mut defined = Vec::new();
    let mut reals = Vec::new();
    let mut bad = Vec::new();
    for f in rust_files(&root().join("src")) {
        let text = std::fs::read_to_string(&f).unwrap();
        let (d, b) = wrap_defs(&f, &text);
        defined.extend(d.into_iter().map(|s| (s, f.clone())));
        bad.extend(b);
        reals.extend(real_uses(&text).into_iter().map(|s| (s, f.clone())));
    }
    bad.extend(mismatches(&wrapped, &defined, &reals));
    assert!(bad.is_empty(), "driver/src/compile.rs's LINK_WRAP and the runtime's __wrap_ functions disagree:\n{}", bad.join("\n"));
}

#[test]
fn mpi_is_interposed_by_name_not_wrapped() {
    let compile = std::fs::read_to_string(root().join("../driver/src/compile.rs")).unwrap();
    for w in link_wraps(&compile) {
        assert!(!w.to_ascii_lowercase().starts_with("mpi_") && !w.to_ascii_lowercase().starts_with("pmpi_"), "LINK_WRAP wraps the MPI function {w}: mpi/wrap.rs defines MPI functions under their own names");
    }
    let text = std::fs::read_to_string(root().join("src/mpi/wrap.rs")).unwrap();
    let code = code(&text);
    assert!(!code.contains("__wrap_"), "mpi/wrap.rs defines a __wrap_ function; dao mpicc links no --wrap for MPI");
    assert!(code.contains("no_mangle") && code.contains("MPI_"), "mpi/wrap.rs no longer defines MPI functions by name: update this test with how dao mpicc interposes them");
}

/// The checker itself: each kind of mismatch is reported.
#[test]
fn a_mismatch_is_caught() {
    let compile = "pub const LINK_WRAP: &str = \"-Wl,--wrap=malloc,--wrap=fopen,--wrap=fopen\";";
    let wrapped = link_wraps(compile);
    assert_eq!(wrapped, ["malloc", "fopen", "fopen"]);
    let f = PathBuf::from("x.rs");
    let text = "#[no_mangle]\npub extern \"C\" fn __wrap_malloc() {}\n\n#[no_mangle]\n#[allow(x)]\npub unsafe extern \"C\" fn __wrap_close() {}\npub extern \"C\" fn __wrap_free() {}\n// fn __wrap_commented() {}\nfn g() { __real_dup(); }\n";
    let (defs, bad) = wrap_defs(&f, text);
    assert_eq!(defs, ["malloc", "close", "free"]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    let defined: Vec<(String, PathBuf)> = defs.into_iter().map(|s| (s, f.clone())).collect();
    let reals: Vec<(String, PathBuf)> = real_uses(text).into_iter().map(|s| (s, f.clone())).collect();
    let m = mismatches(&wrapped, &defined, &reals);
    let has = |s: &str| m.iter().any(|x| x.contains(s));
    assert!(has("names fopen twice"), "{m:?}");
    assert!(has("defines no __wrap_fopen"), "{m:?}");
    assert!(has("does not wrap close"), "{m:?}");
    assert!(has("does not wrap free"), "{m:?}");
    assert!(has("__real_dup"), "{m:?}");
    assert!(!has("malloc"), "{m:?}");
}
