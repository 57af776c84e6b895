//! Where the repository, the release tools and the test output live.
//!
//! Missing tools make every test FAIL (never skip) with the command to run.

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

/// A fresh (emptied) directory under `tests/out`.
pub fn fresh_dir(rel: &str) -> PathBuf {
    let d = tools().out.join(rel);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("cannot create {}: {e}", d.display()));
    d
}
