//! dao-placement: where to checkpoint, from a profile of the candidate
//! instances a run reached (`DAO_PROFILE`, written by the runtime).
//!
//! The DAO paper's 0-1 model (Fu, Ding, Song, Yang: "DAO: application-level
//! checkpointing of OpenMP programs by extended data-flow analysis", Chinese
//! Journal of Computers, 2010): candidate instance i at
//! time t_i with saved size s_i; choose a subset of minimum total size such
//! that consecutive chosen instances, with virtual points at the program's
//! start (0) and end (T), are at most T_itvl = -ln(R) * MTBF apart.
//!
//! - [`window`]: the exact optimum by dynamic programming with a sliding
//!   window minimum, O(n) after sorting (the paper used an exponential
//!   enumeration);
//! - [`enumerate`]: the paper's filtered implicit enumeration and a plain
//!   brute force, both exact and exponential, for cross-checking;
//! - [`expected`]: beyond the paper, the placement minimising the expected
//!   run time under exponential failures, with Young's and Daly's
//!   intervals as the reference;
//! - [`gpu`]: the CPU-GPU models of Jia, Yang, Ma ("checkpoint placement
//!   for CPU-GPU programs", Journal of Software, 2013; synchronous and
//!   asynchronous placement, the offset window dt);
//! - [`profile`] and [`file`]: the JSON profile the runtime writes and the
//!   placement file it follows;
//! - [`synth`]: synthetic profiles (tests, examples, timing).
//!
//! Pure Rust, no I/O beyond (de)serialising strings; the `dao place`
//! command (driver/src/place.rs) reads and writes the files.
#![forbid(unsafe_code)]

pub mod enumerate;
pub mod error;
pub mod expected;
pub mod file;
pub mod gpu;
pub mod interval;
pub mod profile;
pub mod synth;
pub mod window;

pub use error::{Infeasible, PlacementError};
pub use window::{min_weight, Choice, Problem};
