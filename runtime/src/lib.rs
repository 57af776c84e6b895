//! dao runtime (`libdao_rt.a`): linked into programs instrumented by the dao
//! pass. It implements the C ABI of `include/dao_abi.h` (entry.rs): the
//! fixed-address heap (heap.rs) and stack (stack.rs), the per-thread frame
//! chain and its lazy restoration (chain.rs), checkpoint collection and
//! writing (collect.rs, checkpoint.rs) and the restart at startup
//! (startup.rs). The model and the environment contract are in README.md.
//!
//! `unsafe` is confined to entry.rs (the C boundary), desc.rs (descriptor and
//! program-memory access), heap.rs, stack.rs, and small libc calls in
//! stdio.rs, identity.rs, policy.rs, checkpoint.rs and modules.rs.

pub mod abi;
pub mod chain;
pub mod checkpoint;
pub mod collect;
pub mod config;
pub mod desc;
pub mod diag;
pub mod entry;
pub mod heap;
pub mod identity;
pub mod modules;
pub mod omp;
pub mod placement;
pub mod policy;
pub mod profile;
pub mod protocol;
pub mod session;
pub mod stack;
pub mod startup;
pub mod stats;
pub mod stdio;
pub mod storage;
pub mod wrap;
