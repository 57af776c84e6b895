//! The driver's typed errors. Library code returns these; only `main.rs`
//! turns them into a message and an exit code. Every message names what
//! happened, to which file, and what to do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error(
        "cannot find {what} (looked in: {looked}); run `cargo build --release` in the dao \
         repository, or set DAO_HOME to an install prefix with lib/libdao.so, lib/libdao_rt.a \
         and include/dao.h"
    )]
    ResourceMissing { what: String, looked: String },

    #[error("DAO_HOME={home} does not contain {missing}; set DAO_HOME to a dao install prefix (with lib/ and include/) or unset it")]
    DaoHomeIncomplete { home: PathBuf, missing: PathBuf },

    #[error("cannot locate the dao executable itself ({source}); set DAO_HOME to the dao install prefix")]
    SelfExe { source: std::io::Error },

    #[error("cannot run `{program}`: {source}; is it installed? (run scripts/setup.sh)")]
    Spawn { program: String, source: std::io::Error },

    #[error("building {what} from {source_file} failed (`{command}` exited with {status}); the compiler's output is above")]
    CacheBuild { what: &'static str, source_file: PathBuf, command: String, status: String },

    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },

    #[error("dao {tool} asks Open MPI's `{wrapper} {query}` for MPI's flags, which failed: {why}; install Open MPI (Debian: openmpi-bin libopenmpi-dev; scripts/setup.sh does)")]
    MpiWrapper { tool: &'static str, wrapper: &'static str, query: &'static str, why: String },

    #[error("`-shared` is not supported by `dao {tool}`: instrumented code must live in a non-PIE executable (address-preserving restart); link the objects into the program, or use --dao-no-pass")]
    SharedUnsupported { tool: &'static str },

    #[error("whole-program mode: {step} failed (`{command}` exited with {status}); its output is above")]
    WholeProgram { step: &'static str, command: String, status: String },

    #[error("whole-program mode: the archive {archive} holds LLVM bitcode ({member}: built with --dao-whole-program or DAO_WHOLE_PROGRAM=1), which this link does not open; link those objects themselves instead of the archive, or build the archive's objects without whole-program mode")]
    WholeProgramArchive { archive: PathBuf, member: String },

    #[error("{0}")]
    Bench(#[from] crate::bench::BenchError),

    #[error("{0}")]
    Inspect(#[from] crate::inspect::InspectError),

    #[error("{0}")]
    Place(#[from] crate::place::PlaceError),
}

impl DriverError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        DriverError::Io { path: path.into(), source }
    }
}
