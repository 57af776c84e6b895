//! dao-tests: support for the whole-program tests in `tests/tests/`.
//!
//! The tests build the programs of `test-programs/` with the release `dao`
//! (`target/release/dao`, with `libdao.so` and `libdao_rt.a` next to it),
//! run them clean, instrumented, killed and restarted, and compare outputs.
//! The reference is always the clean build's output (`dao cc --dao-no-pass`),
//! never a stored file.
//!
//! Invariant under test: after a restart, every live variable of every frame
//! on the chain, every global and every heap block the program can still
//! read is restored byte for byte, so the program's output (stdout appended
//! to one file across the killed run and the restart) equals the clean run's.
//!
//! Modules: [`paths`] finds the tools, [`build`] compiles, [`process`] runs
//! with timeouts and append-mode stdout, [`scenario`] is the crash/restart
//! procedure driven by a [`scenario::Case`] table (or, for programs built
//! otherwise such as the NPB ports, a [`scenario::Plan`]), [`rng`] the
//! seeded RNG, [`sizes`] the bytes a program's checkpoints save.

pub mod build;
pub mod paths;
pub mod process;
pub mod rng;
pub mod scenario;
pub mod sizes;

pub use build::{Lang, Opt, Variant};
pub use scenario::{check, check_plan, Case, Plan};
