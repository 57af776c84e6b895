//! dao-format: the dao checkpoint file format.
//!
//! A checkpoint file is a fixed header, five checksummed sections (RUNTIME,
//! CHAIN, THREADS, GLOBALS, HEAP) and a trailer. [`model`] holds the plain data
//! ([`Checkpoint`]), [`write`] the streaming encoder, [`read`] the validating
//! decoder, [`dir`] the checkpoint directory (atomic commit, retention,
//! fallback selection, the `finished` marker) and [`error`] the typed errors.
//! The exact byte layout is documented in [`wire`] and in runtime/README.md.
//!
//! The runtime writes checkpoints with [`Writer`] straight from program
//! memory (byte fields are `Cow::Borrowed`); the driver (`dao inspect`) and the
//! runtime read them with [`decode`] / [`read_file`].
#![deny(unsafe_code)] // one exception: the memory map in dir::Blob::open

pub mod dir;
pub mod error;
pub mod model;
pub mod read;
pub mod sidecar;
pub mod wire;
pub mod write;

pub use dir::{Blob, CheckpointDir, Latest, Prepared, Skipped, Started, StreamStart, DEFAULT_KEEP};
pub use error::{DirError, FormatError};
pub use model::{
    Checkpoint, DeadGlobal, DeviceRegion, Frame, Global, Header, Heap, HeapBlock, HeapObject, OmpState, RuntimeState, Slot, StackObject, TlsValue, TpCopy,
    Worker, FLAG_HEAP_ALL, FLAG_SAVE_ALL, FLAG_SKELETON, META_KEY, WORKER_AT_BARRIER, WORKER_AT_CANDIDATE, WORKER_EXITED, WORKER_IDLE,
};
pub use read::{decode, decode_skeleton, read_file, read_header};
pub use sidecar::{mpi_log_body, MPI_LOG_MAGIC};
pub use wire::{FORMAT_VERSION, MAGIC, OLDEST_READ_VERSION};
pub use write::{encode_skeleton, key_of, payload_ranges, skeleton_regions, skeleton_regions_bound, Layout, Parts, Writer};
