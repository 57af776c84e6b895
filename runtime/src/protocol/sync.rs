//! The atomics of the round code: `std::sync::atomic` in the runtime,
//! `loom::sync::atomic` when `runtime/protocol-model` compiles this
//! directory's `handshake.rs` and `sync.rs` under `cfg(loom)` (its build script
//! sets the cfg for that crate only), as crossbeam does. Nothing else may
//! go here: the model includes this file as it is.
#[cfg(not(loom))]
pub use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering};

#[cfg(loom)]
pub use loom::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering};
