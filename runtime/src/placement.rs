//! `DAO_PLACEMENT=path`: checkpoint exactly at the candidate instances a
//! placement file names (written by `dao place` from a profile of this
//! executable; the format is `dao_placement::file`).
//!
//! The file is read once at dao_main, before the policy is installed. It
//! must name this executable (xxh3 hash and size, as in checkpoints): a
//! placement computed for another binary numbers other candidates, so it
//! is a fatal error, not a warning. policy.rs arms `dao_poll` with the
//! exact distance to the next chosen instance ([`next_after`]), so between
//! chosen instances the markers cost what they cost with DAO_EVERY. The
//! candidate count is saved in every checkpoint, so a restarted run keeps
//! following the same numbering.
use std::sync::OnceLock;

use dao_placement::file::PlacementFile;

use crate::config::Config;
use crate::diag::fatal;

static CHOSEN: OnceLock<Vec<u64>> = OnceLock::new();

/// Reads and checks the placement file named by DAO_PLACEMENT, if any.
pub fn setup(cfg: &Config) {
    let Some(path) = &cfg.placement else { return };
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fatal(format_args!("DAO_PLACEMENT={shown}: cannot read it: {e}")));
    let file = PlacementFile::parse(&text).unwrap_or_else(|e| fatal(format_args!("DAO_PLACEMENT={shown}: {e}")));
    let ident = crate::identity::current()
        .unwrap_or_else(|e| fatal(format_args!("cannot read /proc/self/exe to identify the executable: {e}")));
    let hash = u64::from_str_radix(&file.executable.hash, 16)
        .unwrap_or_else(|_| fatal(format_args!("DAO_PLACEMENT={shown}: executable hash {:?} is not hexadecimal", file.executable.hash)));
    if hash != ident.hash || file.executable.size != ident.size {
        fatal(format_args!(
            "DAO_PLACEMENT={shown} was computed for another executable (hash {hash:016x}, {} bytes; this one is {:016x}, {} bytes): its candidate numbers do not apply; profile this executable (DAO_PROFILE) and run `dao place` again",
            file.executable.size, ident.hash, ident.size
        ));
    }
    let _ = CHOSEN.set(file.instances);
}

/// The placement's candidate numbers (None without DAO_PLACEMENT).
pub fn chosen() -> Option<&'static [u64]> {
    CHOSEN.get().map(Vec::as_slice)
}

/// The first chosen candidate number greater than `n`.
pub fn next_after(n: u64) -> Option<u64> {
    let c = CHOSEN.get()?;
    c.get(c.partition_point(|&k| k <= n)).copied()
}

/// Does candidate instance `n` checkpoint?
pub fn is_chosen(n: u64) -> bool {
    CHOSEN.get().is_some_and(|c| c.binary_search(&n).is_ok())
}
