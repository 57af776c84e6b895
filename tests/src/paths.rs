//! Where the repository, the release tools and the test output live.
//!
//! Before the first test of a process uses them, the tools are brought up
//! to date with `cargo build --release -p dao-driver -p dao-pass -p
//! dao-runtime` (once per process; cargo does nothing when they are fresh),
//! so a test never runs stale binaries after a source change.
//! `DAO_TEST_NO_BUILD=1` skips that build (then the binaries are used as
//! they are). A failed build or a missing tool makes every test FAIL (never
//! skip) with the command to run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub struct Tools {
    pub repo: PathBuf,
    /// `target/release/dao`
    pub dao: PathBuf,
    /// `tests/out`: build products and run outputs (git-ignored).
    pub out: PathBuf,
}

pub const BUILD_HINT: &str =
    "run `cargo build --release -p dao-driver -p dao-pass -p dao-runtime` first (scripts/test.sh does this)";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The tools, checked once. Panics (test failure) when one is missing.
pub fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    let t = TOOLS.get_or_init(|| {
        let repo = repo_root();
        if std::env::var_os("DAO_TEST_NO_BUILD").map_or(true, |v| v.is_empty() || v == "0") {
            rebuild(&repo)?;
        }
        let rel = repo.join("target/release");
        let mut missing = Vec::new();
        for f in ["dao", "libdao.so", "libdao_rt.a"] {
            if !rel.join(f).is_file() {
                missing.push(rel.join(f).display().to_string());
            }
        }
        if !missing.is_empty() {
            return Err(format!("missing {}: {BUILD_HINT}", missing.join(", ")));
        }
        let out = repo.join("tests/out");
        std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        Ok(Tools { dao: rel.join("dao"), repo, out })
    });
    match t {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

/// `cargo build --release -p dao-driver -p dao-pass -p dao-runtime` in the
/// repository. Run from inside `cargo test`: the outer cargo has released
/// its build-directory lock once the test binaries are built, so this does
/// not wait on it; when the tools are fresh it only checks fingerprints.
fn rebuild(repo: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(&cargo)
        .args(["build", "--release", "-p", "dao-driver", "-p", "dao-pass", "-p", "dao-runtime"])
        .current_dir(repo)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e} ({BUILD_HINT})", Path::new(&cargo).display()))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo build --release -p dao-driver -p dao-pass -p dao-runtime` failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// A fresh (emptied) directory under `tests/out`.
pub fn fresh_dir(rel: &str) -> PathBuf {
    let d = tools().out.join(rel);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("cannot create {}: {e}", d.display()));
    d
}

/// Checkpoint `seq` in the checkpoint directory `dir`, of whichever format
/// it was written in: `store.NNNNNN.dst` (the storage engine, the default)
/// or `ckpt.NNNNNN.dao` (DAO_STORE=file). `dao inspect` reads either.
pub fn checkpoint_file(dir: &Path, seq: u64) -> PathBuf {
    let store = dir.join(format!("store.{seq:06}.dst"));
    if store.exists() {
        store
    } else {
        dir.join(format!("ckpt.{seq:06}.dao"))
    }
}
