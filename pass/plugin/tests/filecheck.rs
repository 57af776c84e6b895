//! IR tests of the pass, lit-style: every file under tests/ir carries its
//! own `RUN:` lines and FileCheck `CHECK:` lines. Substitutions:
//! `%s` the file, `%clang` (clang-19 -S -emit-llvm -o -), `%flang`
//! (flang-new-19 -S -emit-llvm -o -), `%opt` (opt-19 with libdao.so and
//! -passes=dao; the verifier runs after the pass), `%FileCheck`, `%not`.
//! Each RUN line runs under `bash -o pipefail` and must exit 0.
use std::path::{Path, PathBuf};
use std::process::Command;

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
    for line in src.lines() {
        let Some(cmd) = line.split_once("RUN:").map(|(_, c)| c.trim()) else { continue };
        let cmd = cmd
            .replace("%clang", &format!("clang-19 -S -emit-llvm -fno-discard-value-names -I{} -o -", include.display()))
            .replace("%flang", "flang-new-19 -S -emit-llvm -o -")
            .replace("%opt", &format!("opt-19 -load-pass-plugin={} -passes=dao -S", plugin.display()))
            .replace("%FileCheck", "FileCheck-19")
            .replace("%not", "not-19")
            .replace("%s", &path.display().to_string());
        let tmp = std::env::temp_dir().join(format!("dao-ir-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &cmd])
            .current_dir(&tmp)
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{}: RUN failed: {cmd}\n--- stdout ---\n{}\n--- stderr ---\n{}",
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
}
