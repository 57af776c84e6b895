//! Every environment variable the driver reads, in one place (the runtime
//! reads its own in runtime/src/config.rs). driver/README.md lists them;
//! `tests/structure.rs` (workspace tests crate) fails when another driver
//! file reads the environment.
//!
//! | variable | read for |
//! |---|---|
//! | `DAO_HOME` | where the plugin, runtime and headers are (else found from the `dao` executable) |
//! | `DAO_CACHE_DIR`, `XDG_CACHE_HOME`, `HOME` | the compile cache's directory, first set wins |
//! | `DAO_VERBOSE` | `dao cc`/`fc`/`mpicc`/...: print the resources and the compiler command |
//! | `DAO_WHOLE_PROGRAM` | `dao cc`/`fc`/...: whole-program mode (`1`; as `--dao-whole-program`) |
//! | `DAO_KEEP_WHOLE_PROGRAM_FILES` | whole-program links: keep the merged bitcode and object (`1`) |
//! | `DAO_DIR` | `dao run`: the checkpoint directory when `--dir` is not given |
//! | `DAO_PARTNER_DIR`, `DAO_FLUSH_DIR` | `dao inspect`: an MPI job's partner and flushed levels when the options are not given |
//! | `DAO_*` (all) | `dao bench`: removed from the measured runs' environment |
use std::ffi::OsString;
use std::path::PathBuf;

/// A variable's value, None when unset or empty.
fn set(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// DAO_WHOLE_PROGRAM=1: whole-program mode for every compile and link
/// (`whole.rs`), as `--dao-whole-program` on each command.
pub fn whole_program() -> bool {
    set("DAO_WHOLE_PROGRAM").is_some_and(|v| v != "0")
}

/// DAO_KEEP_WHOLE_PROGRAM_FILES=1: leave a whole-program link's merged
/// bitcode and object in the temporary directory (for debugging).
pub fn keep_whole_program_files() -> bool {
    set("DAO_KEEP_WHOLE_PROGRAM_FILES").is_some_and(|v| v != "0")
}

/// DAO_HOME, if set and not empty.
pub fn dao_home() -> Option<PathBuf> {
    set("DAO_HOME").map(PathBuf::from)
}

/// DAO_HOME is in the environment at all (even empty).
pub fn dao_home_given() -> bool {
    std::env::var_os("DAO_HOME").is_some()
}

/// The compile cache's directory from DAO_CACHE_DIR, else
/// XDG_CACHE_HOME/dao, else HOME/.cache/dao.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = set("DAO_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = set("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("dao"));
    }
    set("HOME").map(|d| PathBuf::from(d).join(".cache").join("dao"))
}

/// DAO_VERBOSE=1 (also read by the runtime).
pub fn verbose() -> bool {
    std::env::var_os("DAO_VERBOSE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// DAO_DIR as the program will see it (set, even empty).
pub fn dao_dir() -> Option<PathBuf> {
    std::env::var_os("DAO_DIR").map(PathBuf::from)
}

/// DAO_PARTNER_DIR, if set and not empty.
pub fn partner_dir() -> Option<PathBuf> {
    set("DAO_PARTNER_DIR").map(PathBuf::from)
}

/// DAO_FLUSH_DIR, if set and not empty.
pub fn flush_dir() -> Option<PathBuf> {
    set("DAO_FLUSH_DIR").map(PathBuf::from)
}

/// The names of the DAO_* variables in the environment.
pub fn dao_names() -> Vec<OsString> {
    std::env::vars_os().map(|(k, _)| k).filter(|k| k.to_string_lossy().starts_with("DAO_")).collect()
}
