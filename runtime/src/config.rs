//! The environment contract (read once, at dao_main; see runtime/README.md).
//!
//! A malformed value is a fatal error naming the variable: silently falling
//! back to a default would hide a misconfigured job.
use std::path::PathBuf;

use crate::diag::fatal;

/// When candidates turn into checkpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Policy {
    /// Every n-th candidate reached (DAO_EVERY).
    Every(u64),
    /// At the first candidate at least this many seconds after the previous
    /// checkpoint (or the start of the process).
    Interval(f64),
    /// Exactly at the candidate numbers of a placement file (DAO_PLACEMENT;
    /// the list is in placement.rs).
    Placement,
    /// A profiling run (DAO_PROFILE): every candidate is measured, none
    /// checkpoints (profile.rs).
    Profile,
}

/// Default interval when no policy variable is set: 60 seconds.
pub const DEFAULT_INTERVAL_S: f64 = 60.0;
pub const DEFAULT_RELIABILITY: f64 = 0.99;

#[derive(Clone, Debug)]
pub struct Config {
    pub dir: Option<PathBuf>,
    pub policy: Policy,
    pub restart_auto: bool,
    pub crash_after: Option<u64>,
    pub crash_in: Option<u64>,
    pub save_all: bool,
    pub heap_all: bool,
    /// DAO_WRITERS=team (default) | master: inside a parallel region, the
    /// workers stopped at a candidate write part of the checkpoint
    /// (distributed saving) or the master writes all of it.
    pub team_writes: bool,
    /// DAO_PROTOCOL=nonblocking | blocking: the protocol of checkpoints
    /// inside parallel regions; None: non-blocking when every module has
    /// guards (startup decides).
    pub nonblocking: Option<bool>,
    pub keep: usize,
    pub stats: Option<PathBuf>,
    pub verbose: bool,
    pub stack_size: Option<u64>,
    /// DAO_PROFILE: where a profiling run writes its profile.
    pub profile: Option<PathBuf>,
    /// DAO_PLACEMENT: the placement file to follow.
    pub placement: Option<PathBuf>,
    /// DAO_STORE=engine: checkpoints are written by the storage engine
    /// (dao-store: incremental/differential chains, compression, async
    /// flush; storage.rs) with this configuration (its DAO_* variables).
    /// None (DAO_STORE=file, the default): one dao-format file each.
    pub store: Option<dao_store::StoreConfig>,
}

/// The storage engine's variables (dao_store::config); they mean nothing
/// without DAO_STORE=engine.
const STORE_VARS: [&str; 13] = [
    "DAO_INCREMENTAL",
    "DAO_CHAIN_MAX",
    "DAO_DELTA_MAX",
    "DAO_BLOCK",
    "DAO_HASH",
    "DAO_COMPRESS",
    "DAO_FILTER",
    "DAO_COMPRESS_SKIP",
    "DAO_BUFFER",
    "DAO_QUEUE",
    "DAO_WORKERS",
    "DAO_ASYNC",
    "DAO_KEEP_CHAINS",
];

/// DAO_STORE: `file` (default) or `engine`; the engine's configuration is
/// read and validated only with `engine`.
fn store() -> Option<dao_store::StoreConfig> {
    let engine = var("DAO_STORE").map(|v| match v.trim() {
        "engine" => true,
        "file" => false,
        _ => fatal(format_args!("DAO_STORE={v:?}: expected file (one checkpoint file each, the default) or engine (the storage engine: incremental chains, compression, async flush)")),
    });
    if engine != Some(true) {
        let set: Vec<&str> = STORE_VARS.iter().copied().filter(|k| var(k).is_some()).collect();
        if !set.is_empty() && var("DAO_DIR").is_some() {
            crate::diag::warn(format_args!("{} set without DAO_STORE=engine: ignored (checkpoints are single files)", set.join(", ")));
        }
        return None;
    }
    match dao_store::StoreConfig::from_env() {
        Ok(c) => Some(c),
        Err(e) => fatal(e),
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parse<T: std::str::FromStr>(name: &str, what: &str) -> Option<T> {
    var(name).map(|v| {
        v.trim().parse().unwrap_or_else(|_| fatal(format_args!("{name}={v:?} is not {what}")))
    })
}

fn positive(name: &str) -> Option<f64> {
    parse::<f64>(name, "a number").inspect(|&x| {
        if !(x > 0.0 && x.is_finite()) {
            fatal(format_args!("{name} must be a positive number of seconds"));
        }
    })
}

fn choice(name: &str, a: &str, b: &str) -> Option<bool> {
    var(name).map(|v| match v.trim() {
        x if x == a => true,
        x if x == b => false,
        _ => fatal(format_args!("{name}={v:?}: expected {a} or {b}")),
    })
}

/// Parses a size such as `1048576`, `64M`, `1G`.
fn size(name: &str) -> Option<u64> {
    var(name).map(|v| {
        let t = v.trim();
        let (num, mul) = match t.as_bytes().last() {
            Some(b'k' | b'K') => (&t[..t.len() - 1], 1u64 << 10),
            Some(b'm' | b'M') => (&t[..t.len() - 1], 1 << 20),
            Some(b'g' | b'G') => (&t[..t.len() - 1], 1 << 30),
            _ => (t, 1),
        };
        num.parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(mul))
            .unwrap_or_else(|| fatal(format_args!("{name}={v:?} is not a size (e.g. 256M, 1G)")))
    })
}

impl Config {
    pub fn from_env() -> Config {
        let every = parse::<u64>("DAO_EVERY", "a positive integer");
        if every == Some(0) {
            fatal("DAO_EVERY must be at least 1");
        }
        let interval = positive("DAO_INTERVAL");
        let mtbf = positive("DAO_MTBF");
        let rel = parse::<f64>("DAO_RELIABILITY", "a number").unwrap_or(DEFAULT_RELIABILITY);
        if !(rel > 0.0 && rel < 1.0) {
            fatal("DAO_RELIABILITY must be strictly between 0 and 1");
        }
        // Precedence: DAO_PROFILE, then DAO_PLACEMENT, then the rest.
        let profile = var("DAO_PROFILE").map(PathBuf::from);
        let placement = var("DAO_PLACEMENT").map(PathBuf::from);
        if profile.is_some() && var("DAO_DIR").is_some() {
            fatal("DAO_PROFILE and DAO_DIR are both set: a profiling run measures every candidate and writes no checkpoints; unset DAO_DIR for the profiling run");
        }
        if profile.is_some() && placement.is_some() {
            fatal("DAO_PROFILE and DAO_PLACEMENT are both set: profile first (without DAO_PLACEMENT), then run with the placement");
        }
        if placement.is_some() {
            for v in ["DAO_EVERY", "DAO_INTERVAL", "DAO_MTBF"] {
                if var(v).is_some() {
                    crate::diag::warn(format_args!("{v} is ignored: DAO_PLACEMENT says where to checkpoint"));
                }
            }
        }
        let policy = match (every, interval, mtbf) {
            _ if profile.is_some() => Policy::Profile,
            _ if placement.is_some() => Policy::Placement,
            (Some(n), _, _) => Policy::Every(n),
            (None, Some(s), _) => Policy::Interval(s),
            (None, None, Some(m)) => Policy::Interval(-rel.ln() * m),
            (None, None, None) => Policy::Interval(DEFAULT_INTERVAL_S),
        };
        let keep = parse::<usize>("DAO_KEEP", "a positive integer").unwrap_or(dao_format::DEFAULT_KEEP);
        if keep == 0 {
            fatal("DAO_KEEP must be at least 1");
        }
        Config {
            dir: var("DAO_DIR").map(PathBuf::from),
            policy,
            restart_auto: choice("DAO_RESTART", "auto", "never").unwrap_or(true),
            crash_after: parse("DAO_CRASH_AFTER", "a checkpoint count"),
            crash_in: parse("DAO_CRASH_IN", "a checkpoint count"),
            save_all: choice("DAO_SAVE", "all", "live").unwrap_or(false),
            heap_all: choice("DAO_HEAP", "all", "reachable").unwrap_or(false),
            team_writes: choice("DAO_WRITERS", "team", "master").unwrap_or(true),
            nonblocking: choice("DAO_PROTOCOL", "nonblocking", "blocking"),
            keep,
            stats: var("DAO_STATS").map(PathBuf::from),
            verbose: var("DAO_VERBOSE").is_some_and(|v| v != "0"),
            stack_size: size("DAO_STACK_SIZE"),
            profile,
            placement,
            store: store(),
        }
    }
}
