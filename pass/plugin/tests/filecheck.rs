//! IR tests of the pass, lit-style: every file under tests/ir carries its
//! own `RUN:` lines and FileCheck `CHECK:` lines. Substitutions:
//! `%s` the file, `%clang` (clang-19 -S -emit-llvm -o -), `%clangxx` (the
//! same with clang++-19, for C++ files), `%flang`
//! (flang-new-19 -S -emit-llvm -o -), `%opt` (opt-19 with libdao.so and
//! -passes=dao; the verifier runs after the pass), `%FileCheck`, `%not`.
//! Each RUN line runs under `bash -o pipefail` and must exit 0.
//!
//! Bless mode, `DAO_TEST_BLESS=1`: the CHECK lines are hand-written
//! patterns (what must hold, not a copy of the output), so they cannot be
//! regenerated. Instead every FileCheck input -- the actual output of the
//! pass a CHECK pattern is matched against -- is also written to
//! `target/filecheck-out/<test file>.run<N>.<k>.out` (N: the RUN line,
//! k: the FileCheck on it), and each failing RUN prints the command that
//! shows, line by line, where its CHECK patterns stop matching that output
//! (`FileCheck-19 ... --input-file=<out> --dump-input=always`). Edit the
//! CHECK lines from there; a test with a failing pattern still fails.
//! Two such directories (before and after a change to the pass) compare
//! with `diff -r`.
use std::path::{Path, PathBuf};
use std::process::Command;

/// `DAO_TEST_BLESS` set (and not `0`): write the FileCheck inputs.
fn bless() -> bool {
    std::env::var_os("DAO_TEST_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where bless mode writes the FileCheck inputs.
fn bless_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root).join("target/filecheck-out")
}

/// A FileCheck that also copies its input to the file named by its first
/// argument (bless mode).
fn tee_filecheck(tmp: &Path) -> PathBuf {
    let script = tmp.join("filecheck-tee.sh");
    std::fs::write(&script, "#!/bin/bash\nout=\"$1\"; shift\ntee \"$out\" | FileCheck-19 \"$@\"\n").unwrap();
    script
}

fn plugin() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for profile in ["release", "debug"] {
        let p = root.join("target").join(profile).join("libdao.so");
        if p.exists() {
            return p.canonicalize().unwrap();
        }
    }
    panic!("libdao.so not found under target/: run `cargo build --release -p dao-pass` first");
}

fn run_file(path: &Path) -> Result<usize, String> {
    let src = std::fs::read_to_string(path).unwrap();
    let plugin = plugin();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/include").canonicalize().unwrap();
    let mut n = 0;
    let tmp = std::env::temp_dir().join(format!("dao-ir-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for line in src.lines() {
        let Some(cmd) = line.split_once("RUN:").map(|(_, c)| c.trim()) else { continue };
        let mut cmd = cmd
            .replace("%clangxx", &format!("clang++-19 -S -emit-llvm -fno-discard-value-names -I{} -o -", include.display()))
            .replace("%clang", &format!("clang-19 -S -emit-llvm -fno-discard-value-names -I{} -o -", include.display()))
            .replace("%flang", "flang-new-19 -S -emit-llvm -o -")
            .replace("%opt", &format!("opt-19 -load-pass-plugin={} -passes=dao -S", plugin.display()))
            .replace("%not", "not-19")
            .replace("%s", &path.display().to_string());
        // bless mode: the k-th FileCheck of this RUN line tees its input
        let mut outs = Vec::new();
        if bless() {
            let dir = bless_dir();
            std::fs::create_dir_all(&dir).unwrap();
            let tee = tee_filecheck(&tmp);
            let pieces: Vec<&str> = cmd.split("%FileCheck").collect();
            let mut c = pieces[0].to_string();
            for (k, rest) in pieces[1..].iter().enumerate() {
                let out = dir.join(format!("{name}.run{}.{}.out", n + 1, k + 1));
                c.push_str(&format!("bash {} {}", tee.display(), out.display()));
                c.push_str(rest);
                // the FileCheck arguments: up to the next shell operator
                let args: String = rest.split(['|', ';', '&', '<', '>']).next().unwrap_or("").trim().to_string();
                outs.push((out, args));
            }
            cmd = c;
        } else {
            cmd = cmd.replace("%FileCheck", "FileCheck-19");
        }
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &cmd])
            .current_dir(&tmp)
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if !out.status.success() {
            let inspect: String = outs
                .iter()
                .map(|(o, args)| format!("\n--- inspect: FileCheck-19 {args} --input-file={} --dump-input=always", o.display()))
                .collect();
            let inspect = if outs.is_empty() && cmd.contains("FileCheck-19") {
                "\n--- rerun with DAO_TEST_BLESS=1 to keep FileCheck's input and get the command that shows where the CHECK lines stop matching".to_string()
            } else {
                inspect
            };
            return Err(format!(
                "{}: RUN failed: {cmd}\n--- stdout ---\n{}\n--- stderr ---\n{}{inspect}",
                path.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        n += 1;
    }
    if n == 0 {
        return Err(format!("{}: no RUN lines", path.display()));
    }
    Ok(n)
}

#[test]
fn ir_tests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut runs = 0;
    for f in &files {
        match run_file(f) {
            Ok(n) => runs += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(files.len() >= 8, "expected the IR test files, found {}", files.len());
    assert!(failures.is_empty(), "{} of {} IR test files failed:\n{}", failures.len(), files.len(), failures.join("\n\n"));
    eprintln!("{} IR test files, {runs} RUN lines passed", files.len());
    if bless() {
        eprintln!("FileCheck inputs written to {}", bless_dir().display());
    }
}
