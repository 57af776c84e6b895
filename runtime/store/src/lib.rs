//! dao-store: the storage engine behind dao checkpoints.
//!
//! - [`hash`]: block hashing (FHash) in parallel over bounded work units
//!   (P-FHash), pluggable hash (xxh3, BLAKE3, MD5); a [`Signature`] per
//!   checkpoint kept in memory.
//! - [`delta`]: which blocks changed against a reference signature.
//! - [`payload`]: the logical content of a file (region table, whole regions
//!   or changed runs, opaque metadata) and its application to a state.
//! - [`codec`] and [`pipeline`]: the pipelined compressing writer (PCCR):
//!   collection -> compression workers -> aggregated in-order writes, joined
//!   by bounded queues; filters (byte shuffle, XOR with the previous word),
//!   codecs (zstd, lz4, none), adaptive skip; every chunk checksummed.
//! - [`file`]: one store file (header, chunks, commit record written last),
//!   atomic creation, validating parallel reader.
//! - [`dir`]: the store directory: restore from base + chain with fallback to
//!   the newest state that can be rebuilt completely; chain GC.
//! - [`engine`]: one call per checkpoint (full / incremental / differential /
//!   adaptive); [`flush`]: the same on a background thread after a copy.
//! - [`config`]: [`StoreConfig`] and its `DAO_*` environment contract.
//!
//! Who calls it: the dao runtime (`libdao_rt.a`) at checkpoint and restart
//! time. It knows nothing of frames or heaps: it stores regions keyed by
//! address plus one opaque metadata blob per checkpoint.
#![deny(unsafe_code)] // two exceptions, both in file.rs: the memory map (file::map) and the writeback kick (file::start_writeback)

pub mod codec;
pub mod config;
pub mod delta;
pub mod dir;
pub mod engine;
pub mod error;
#[doc(hidden)]
pub mod fault;
pub mod file;
pub mod flush;
pub mod hash;
pub mod payload;
pub mod pipeline;
pub mod region;

pub use config::{AsyncPolicy, Codec, DirectIo, Filter, HashKind, Mode, PipelineConfig, StoreConfig};
pub use dir::{Fallback, Restored, StoreDir};
pub use engine::{Committed, Engine};
pub use error::{ConfigError, StoreError};
pub use file::Kind;
pub use flush::{AsyncEngine, FlushState, Staged};
pub use hash::Signature;
pub use payload::State;
pub use pipeline::{PipelineStats, PipelineWriter};
pub use region::{OwnedRegion, Region};

/// A function every thread the engine starts (hash pool, pipeline, async
/// flush) calls first: the dao runtime marks them as its own, so that
/// what they allocate through the C allocator stays out of the program's
/// heap.
static THREAD_START: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets the function of [`THREAD_START`] (once, before the first engine).
pub fn set_thread_start(f: fn()) {
    let _ = THREAD_START.set(f);
}

/// Called first thing by every thread the engine starts.
pub(crate) fn thread_started() {
    if let Some(f) = THREAD_START.get() {
        f();
    }
}
