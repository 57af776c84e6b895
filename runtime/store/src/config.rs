//! Configuration of the storage engine and its environment contract.
//!
//! [`StoreConfig::from_lookup`] parses the `DAO_*` variables below, looked
//! up by the caller (the runtime's `config.rs`, which reads every
//! environment variable of the runtime); a malformed value is an error
//! naming the variable and its allowed values (never a silent default).
//!
//! | variable | values | default |
//! |---|---|---|
//! | `DAO_INCREMENTAL` | `full`, `incremental`, `differential`, `adaptive` | `adaptive` |
//! | `DAO_CHAIN_MAX` | deltas after a base before a new base (0: no limit) | 16 |
//! | `DAO_DELTA_MAX` | adaptive: a delta over this fraction of the full size becomes a new base | 0.5 |
//! | `DAO_BLOCK` | hash block size, power of two, 256..65536 (`4096`, `4K`, `4KiB`) | [`DEFAULT_BLOCK_SIZE`] |
//! | `DAO_HASH` | `xxh3`, `blake3`, `md5` | `xxh3` |
//! | `DAO_COMPRESS` | `none`, `lz4`, `zstd`, `zstd:LEVEL` (1..=19) | `lz4` |
//! | `DAO_FILTER` | `none`, `shuffle`, `xor` | `shuffle` |
//! | `DAO_COMPRESS_SKIP` | store a chunk raw when compressed/raw exceeds this (0..=1) | 0.9 |
//! | `DAO_BUFFER` | pipeline buffer (chunk) size, 4K..16M | [`DEFAULT_BUFFER_SIZE`] |
//! | `DAO_QUEUE` | depth of each pipeline queue (1..=1024) | 8 |
//! | `DAO_WORKERS` | compression threads (1..=256) | cores - 1, at least 1 |
//! | `DAO_ASYNC` | `off` (synchronous; `auto`, the runtime's single-file default, means `off` here), `wait`, `skip` (see `flush.rs`) | `off` |
//! | `DAO_KEEP_CHAINS` | complete chains (base + its deltas) kept by GC (>= 1) | 2 |
//! | `DAO_DIRECT_IO` | `off`, `background` (a background writer's file: a forked writer's, [`Engine::after_fork`](crate::Engine::after_fork), or the [`AsyncEngine`](crate::AsyncEngine) flush thread's), `on` (every file): write checkpoint files with `O_DIRECT` | `background` |
use crate::error::ConfigError;

/// Default hash block size (bytes). Chosen from the measurement in
/// docs/results.md ("Storage engine"): see docs/design.md.
pub const DEFAULT_BLOCK_SIZE: usize = 4096;
/// Default pipeline buffer (chunk) size (bytes); see docs/design.md.
pub const DEFAULT_BUFFER_SIZE: usize = 256 << 10;
pub const MIN_BLOCK_SIZE: usize = 256;
pub const MAX_BLOCK_SIZE: usize = 64 << 10;
pub const MIN_BUFFER_SIZE: usize = 4 << 10;
pub const MAX_BUFFER_SIZE: usize = 16 << 20;

/// Block hash function (FHash's h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashKind {
    /// xxh3-128: non-cryptographic, fastest.
    Xxh3,
    /// BLAKE3 truncated to 128 bits: cryptographic.
    Blake3,
    /// MD5 (the paper's setting).
    Md5,
}

/// Compression codec of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    None,
    Lz4,
    /// zstd at the given level (1..=19).
    Zstd(i32),
}

/// Reversible transform applied before the codec (Blosc-style).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    None,
    /// Byte shuffle with element size 8: byte k of every 8-byte word is
    /// grouped together (exponent bytes of doubles end up next to each other).
    Shuffle8,
    /// Each 8-byte word XOR the previous one (slowly varying data becomes
    /// mostly zero bytes).
    XorPrev8,
}

/// What a checkpoint stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every checkpoint is complete.
    Full,
    /// Changed blocks relative to the previous checkpoint.
    Incremental,
    /// Changed blocks relative to the base (last full) checkpoint.
    Differential,
    /// Incremental, with a new base when the chain gets long or a delta large.
    Adaptive,
}

/// What a new checkpoint does while the previous one is still flushing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncPolicy {
    /// Synchronous: the program waits for compress + write + fsync + commit.
    Off,
    /// Asynchronous; a new checkpoint first waits for the one in flight.
    Wait,
    /// Asynchronous; a new checkpoint is skipped while one is in flight.
    Skip,
}

/// Which checkpoint files are written with `O_DIRECT` (file.rs, `OutFile`:
/// whole aligned 4 MiB blocks, no page-cache copy; the tail and a file
/// system without O_DIRECT are written normally).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectIo {
    Off,
    /// Only a forked writer's (after `Engine::after_fork`): the kernel's
    /// copy into the page cache is the writer's largest CPU cost, taken
    /// from the program's cores (docs/design.md section 15).
    Background,
    On,
}

/// Settings of the pipelined compressing writer (PCCR).
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineConfig {
    pub codec: Codec,
    pub filter: Filter,
    /// Chunk size: the collection stage cuts the stream into buffers of this size.
    pub buffer_size: usize,
    /// Capacity of the compression queue and of the file queue.
    pub queue_depth: usize,
    /// Compression worker threads.
    pub workers: usize,
    /// A chunk whose compressed size exceeds `skip_ratio * raw` is stored raw.
    pub skip_ratio: f64,
    /// The writer stage aggregates chunks into writes of at least this size.
    pub write_size: usize,
    /// Write the file with O_DIRECT (set by the engine from
    /// [`StoreConfig::direct_io`]).
    pub direct_io: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            codec: Codec::Lz4,
            // Measured on the NPB checkpoints (docs/results.md): shuffle
            // makes lz4 as good as zstd -9 on floating-point data.
            filter: Filter::Shuffle8,
            buffer_size: DEFAULT_BUFFER_SIZE,
            queue_depth: 8,
            workers: default_workers(),
            skip_ratio: 0.9,
            write_size: 4 << 20,
            direct_io: false,
        }
    }
}

/// Compression threads by default: every core but one (the program's), at least one.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
}

/// Everything the engine needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreConfig {
    pub mode: Mode,
    /// Deltas after a base before the next checkpoint is a new base (0: no limit).
    pub max_chain: u32,
    /// Adaptive: a delta larger than this fraction of the full size is written
    /// as a new base instead.
    pub max_delta_ratio: f64,
    pub block_size: usize,
    pub hash: HashKind,
    /// Threads hashing blocks (P-FHash). 0: all cores.
    pub hash_threads: usize,
    pub pipeline: PipelineConfig,
    pub async_policy: AsyncPolicy,
    /// Complete chains that garbage collection keeps (at least 1).
    pub keep_chains: usize,
    /// Which files are written with O_DIRECT.
    pub direct_io: DirectIo,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            mode: Mode::Adaptive,
            max_chain: 16,
            max_delta_ratio: 0.5,
            block_size: DEFAULT_BLOCK_SIZE,
            hash: HashKind::Xxh3,
            hash_threads: 0,
            pipeline: PipelineConfig::default(),
            async_policy: AsyncPolicy::Off,
            keep_chains: 2,
            direct_io: DirectIo::Background,
        }
    }
}

fn bad(var: &'static str, value: &str, expected: &'static str) -> ConfigError {
    ConfigError { var, value: value.to_string(), expected }
}

/// Parses `4096`, `4K`, `4k`, `4KiB`, `1M`, `1MiB`.
pub fn parse_size(s: &str) -> Option<usize> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("KiB").or_else(|| t.strip_suffix(['K', 'k'])) {
        (n, 1usize << 10)
    } else if let Some(n) = t.strip_suffix("MiB").or_else(|| t.strip_suffix(['M', 'm'])) {
        (n, 1 << 20)
    } else {
        (t, 1)
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mult)
}

impl StoreConfig {
    /// The configuration from the `DAO_*` variables of the module docs,
    /// looked up by `get` (the runtime's config.rs passes the process
    /// environment; tests pass maps). Unset and empty variables keep the
    /// default.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<StoreConfig, ConfigError> {
        let get = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let mut c = StoreConfig::default();
        if let Some(v) = get("DAO_INCREMENTAL") {
            c.mode = match v.trim() {
                "full" | "off" | "0" => Mode::Full,
                "incremental" => Mode::Incremental,
                "differential" => Mode::Differential,
                "adaptive" | "on" | "1" => Mode::Adaptive,
                _ => return Err(bad("DAO_INCREMENTAL", &v, "full, incremental, differential or adaptive")),
            };
        }
        if let Some(v) = get("DAO_CHAIN_MAX") {
            c.max_chain = v.trim().parse().map_err(|_| bad("DAO_CHAIN_MAX", &v, "a count >= 0 (0: no limit)"))?;
        }
        if let Some(v) = get("DAO_DELTA_MAX") {
            c.max_delta_ratio = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|r| *r > 0.0 && *r <= 1.0)
                .ok_or_else(|| bad("DAO_DELTA_MAX", &v, "a fraction in (0, 1]"))?;
        }
        if let Some(v) = get("DAO_BLOCK") {
            c.block_size = parse_size(&v)
                .filter(|b| b.is_power_of_two() && (MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(b))
                .ok_or_else(|| bad("DAO_BLOCK", &v, "a power of two from 256 to 64K (e.g. 4096, 4K)"))?;
        }
        if let Some(v) = get("DAO_HASH") {
            c.hash = match v.trim() {
                "xxh3" => HashKind::Xxh3,
                "blake3" => HashKind::Blake3,
                "md5" => HashKind::Md5,
                _ => return Err(bad("DAO_HASH", &v, "xxh3, blake3 or md5")),
            };
        }
        if let Some(v) = get("DAO_COMPRESS") {
            c.pipeline.codec = parse_codec(v.trim()).ok_or_else(|| {
                bad("DAO_COMPRESS", &v, "none, lz4, zstd or zstd:LEVEL with LEVEL in 1..=19")
            })?;
        }
        if let Some(v) = get("DAO_FILTER") {
            c.pipeline.filter = match v.trim() {
                "none" => Filter::None,
                "shuffle" => Filter::Shuffle8,
                "xor" => Filter::XorPrev8,
                _ => return Err(bad("DAO_FILTER", &v, "none, shuffle or xor")),
            };
        }
        if let Some(v) = get("DAO_COMPRESS_SKIP") {
            c.pipeline.skip_ratio = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|r| (0.0..=1.0).contains(r))
                .ok_or_else(|| bad("DAO_COMPRESS_SKIP", &v, "a fraction in [0, 1]"))?;
        }
        if let Some(v) = get("DAO_BUFFER") {
            c.pipeline.buffer_size = parse_size(&v)
                .filter(|b| (MIN_BUFFER_SIZE..=MAX_BUFFER_SIZE).contains(b))
                .ok_or_else(|| bad("DAO_BUFFER", &v, "a size from 4K to 16M (e.g. 65536, 64K, 1M)"))?;
        }
        if let Some(v) = get("DAO_QUEUE") {
            c.pipeline.queue_depth = v
                .trim()
                .parse()
                .ok()
                .filter(|d| (1..=1024).contains(d))
                .ok_or_else(|| bad("DAO_QUEUE", &v, "a queue depth from 1 to 1024"))?;
        }
        if let Some(v) = get("DAO_WORKERS") {
            c.pipeline.workers = v
                .trim()
                .parse()
                .ok()
                .filter(|d| (1..=256).contains(d))
                .ok_or_else(|| bad("DAO_WORKERS", &v, "a thread count from 1 to 256"))?;
        }
        if let Some(v) = get("DAO_ASYNC") {
            c.async_policy = match v.trim() {
                // auto: the runtime's default for single files (background
                // unless checkpoints come back to back); the engine's
                // default is synchronous
                "off" | "0" | "no" | "auto" => AsyncPolicy::Off,
                "wait" | "1" | "on" | "yes" => AsyncPolicy::Wait,
                "skip" => AsyncPolicy::Skip,
                _ => return Err(bad("DAO_ASYNC", &v, "off, auto, wait or skip")),
            };
        }
        if let Some(v) = get("DAO_DIRECT_IO") {
            c.direct_io = match v.trim() {
                "off" | "0" | "no" => DirectIo::Off,
                "background" => DirectIo::Background,
                "on" | "1" | "yes" => DirectIo::On,
                _ => return Err(bad("DAO_DIRECT_IO", &v, "off, background or on")),
            };
        }
        if let Some(v) = get("DAO_KEEP_CHAINS") {
            c.keep_chains = v
                .trim()
                .parse()
                .ok()
                .filter(|d| *d >= 1)
                .ok_or_else(|| bad("DAO_KEEP_CHAINS", &v, "a count >= 1"))?;
        }
        Ok(c)
    }

    /// Checks a configuration built in code (from_lookup only builds valid ones).
    pub fn validate(&self) -> Result<(), String> {
        let p = &self.pipeline;
        if !(self.block_size.is_power_of_two() && (MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&self.block_size)) {
            return Err(format!("block size {} is not a power of two in 256..=65536", self.block_size));
        }
        if !(MIN_BUFFER_SIZE..=MAX_BUFFER_SIZE).contains(&p.buffer_size) {
            return Err(format!("buffer size {} is not in 4K..=16M", p.buffer_size));
        }
        if p.queue_depth == 0 || p.workers == 0 {
            return Err("queue depth and workers must be at least 1".into());
        }
        if let Codec::Zstd(l) = p.codec {
            if !(1..=19).contains(&l) {
                return Err(format!("zstd level {l} is not in 1..=19"));
            }
        }
        if !(0.0..=1.0).contains(&p.skip_ratio) {
            return Err("skip ratio must be in [0, 1]".into());
        }
        if !(self.max_delta_ratio > 0.0 && self.max_delta_ratio <= 1.0) {
            return Err("max delta ratio must be in (0, 1]".into());
        }
        if self.keep_chains == 0 {
            return Err("keep_chains must be at least 1".into());
        }
        Ok(())
    }
}

/// `none`, `lz4`, `zstd` (level 3), `zstd:N`.
pub fn parse_codec(s: &str) -> Option<Codec> {
    match s {
        "none" => Some(Codec::None),
        "lz4" => Some(Codec::Lz4),
        "zstd" => Some(Codec::Zstd(3)),
        _ => {
            let l: i32 = s.strip_prefix("zstd:")?.parse().ok()?;
            (1..=19).contains(&l).then_some(Codec::Zstd(l))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Result<StoreConfig, ConfigError> {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        StoreConfig::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn defaults_are_valid() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, StoreConfig::default());
        c.validate().unwrap();
    }

    #[test]
    fn every_variable_parses() {
        let c = cfg(&[
            ("DAO_INCREMENTAL", "differential"),
            ("DAO_CHAIN_MAX", "5"),
            ("DAO_DELTA_MAX", "0.25"),
            ("DAO_BLOCK", "1K"),
            ("DAO_HASH", "md5"),
            ("DAO_COMPRESS", "zstd:7"),
            ("DAO_FILTER", "shuffle"),
            ("DAO_COMPRESS_SKIP", "0.8"),
            ("DAO_BUFFER", "16KiB"),
            ("DAO_QUEUE", "3"),
            ("DAO_WORKERS", "2"),
            ("DAO_ASYNC", "skip"),
            ("DAO_KEEP_CHAINS", "3"),
        ])
        .unwrap();
        assert_eq!(c.mode, Mode::Differential);
        assert_eq!(c.max_chain, 5);
        assert_eq!(c.max_delta_ratio, 0.25);
        assert_eq!(c.block_size, 1024);
        assert_eq!(c.hash, HashKind::Md5);
        assert_eq!(c.pipeline.codec, Codec::Zstd(7));
        assert_eq!(c.pipeline.filter, Filter::Shuffle8);
        assert_eq!(c.pipeline.skip_ratio, 0.8);
        assert_eq!(c.pipeline.buffer_size, 16384);
        assert_eq!(c.pipeline.queue_depth, 3);
        assert_eq!(c.pipeline.workers, 2);
        assert_eq!(c.async_policy, AsyncPolicy::Skip);
        assert_eq!(c.keep_chains, 3);
        c.validate().unwrap();
    }

    #[test]
    fn errors_name_the_variable() {
        for (k, v) in [
            ("DAO_INCREMENTAL", "sometimes"),
            ("DAO_BLOCK", "3000"),
            ("DAO_BLOCK", "128"),
            ("DAO_BLOCK", "128K"),
            ("DAO_HASH", "sha1"),
            ("DAO_COMPRESS", "zstd:40"),
            ("DAO_COMPRESS", "gzip"),
            ("DAO_FILTER", "delta"),
            ("DAO_BUFFER", "1"),
            ("DAO_QUEUE", "0"),
            ("DAO_WORKERS", "x"),
            ("DAO_ASYNC", "maybe"),
            ("DAO_KEEP_CHAINS", "0"),
            ("DAO_DELTA_MAX", "2"),
            ("DAO_COMPRESS_SKIP", "-1"),
            ("DAO_CHAIN_MAX", "-3"),
        ] {
            let e = cfg(&[(k, v)]).unwrap_err();
            assert_eq!(e.var, k);
            assert!(e.to_string().starts_with(&format!("{k}=")), "{e}");
        }
    }
}
