//! Typed errors of the storage engine.
//!
//! Every message says what happened and to which file; the caller (the
//! runtime, a CLI) decides how to report it.
use std::io;
use std::path::PathBuf;

/// A malformed environment variable (see [`crate::config::StoreConfig::from_lookup`]).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("{var}={value:?} is not valid: expected {expected}")]
pub struct ConfigError {
    pub var: &'static str,
    pub value: String,
    pub expected: &'static str,
}

/// Why a stored file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{file}: {source}")]
    Io { file: PathBuf, source: io::Error },

    #[error("{file}: not a dao store file (bad magic)")]
    NotAStoreFile { file: PathBuf },

    #[error("{file}: unsupported store format version {found} (this build reads {supported})")]
    UnsupportedVersion { file: PathBuf, found: u32, supported: u32 },

    #[error("{file}: corrupt {what}")]
    Corrupt { file: PathBuf, what: String },

    #[error("{file}: no commit record: the file is truncated or was never finished")]
    Uncommitted { file: PathBuf },

    #[error("{file}: the chain is broken: {what}")]
    BrokenLink { file: PathBuf, what: String },

    #[error("no restorable checkpoint in {dir}")]
    NothingToRestore { dir: PathBuf },

    #[error("invalid input: {0}")]
    InvalidInput(String),

    #[error("pipeline {stage} stage failed: {what}")]
    Pipeline { stage: &'static str, what: String },

    #[error("the background flush thread is gone: {0}")]
    FlushThread(String),
}

impl StoreError {
    pub(crate) fn io(file: impl Into<PathBuf>, source: io::Error) -> Self {
        StoreError::Io { file: file.into(), source }
    }
    pub(crate) fn corrupt(file: impl Into<PathBuf>, what: impl Into<String>) -> Self {
        StoreError::Corrupt { file: file.into(), what: what.into() }
    }
    /// Replaces the placeholder file name of an error built from memory.
    pub(crate) fn with_file(self, f: &std::path::Path) -> Self {
        let f = f.to_path_buf();
        match self {
            StoreError::Io { source, .. } => StoreError::Io { file: f, source },
            StoreError::NotAStoreFile { .. } => StoreError::NotAStoreFile { file: f },
            StoreError::UnsupportedVersion { found, supported, .. } => {
                StoreError::UnsupportedVersion { file: f, found, supported }
            }
            StoreError::Corrupt { what, .. } => StoreError::Corrupt { file: f, what },
            StoreError::Uncommitted { .. } => StoreError::Uncommitted { file: f },
            StoreError::BrokenLink { what, .. } => StoreError::BrokenLink { file: f, what },
            other => other,
        }
    }
}
