//! The state of this run of the program: configuration, checkpoint
//! directory, executable identity, run id and counters. Set up by dao_main
//! (startup.rs), used by checkpoint.rs and the exit hook.
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use dao_format::CheckpointDir;

use crate::config::Config;
use crate::identity::Identity;

pub struct Session {
    pub cfg: Config,
    /// None when DAO_DIR is unset or unusable.
    pub dir: Option<CheckpointDir>,
    pub ident: Identity,
    pub run_id: u64,
    /// Sequence number of the next checkpoint.
    pub next_seq: u64,
    /// Checkpoints written by the run so far (carried across restarts).
    pub checkpoints: u64,
    /// Checkpoints attempted / committed by this process (DAO_CRASH_*).
    pub attempts: u64,
    pub commits: u64,
    /// DAO_STORE=engine: the storage engine (a `storage::Storage`, which
    /// storage.rs gets back with `storage::engine`; held here as `Any` so
    /// that this module does not depend on the storage layer above it);
    /// None: single files.
    pub storage: Option<Box<dyn std::any::Any + Send>>,
}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);
static VERBOSE: AtomicBool = AtomicBool::new(false);

pub fn install(s: Session) {
    VERBOSE.store(s.cfg.verbose, Ordering::Relaxed);
    *SESSION.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
}

/// Runs `f` on the session (None before dao_main).
pub fn with<R>(f: impl FnOnce(&mut Session) -> R) -> Option<R> {
    SESSION.lock().unwrap_or_else(|e| e.into_inner()).as_mut().map(f)
}

pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// A random 64-bit run id (std's per-process random hash keys, mixed with
/// the time and pid).
pub fn fresh_run_id() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(crate::policy::now_ns());
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

pub fn unix_time() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
