//! Typed errors of the format crate. Every message names the file (when
//! known), says what is wrong and what to do about it.
use std::path::PathBuf;

/// Why a checkpoint file (or byte buffer) was rejected.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{file}: not a dao checkpoint (bad magic); remove it from the checkpoint directory")]
    NotACheckpoint { file: String },
    #[error("{file}: checkpoint format version {found} is not supported (this runtime reads version {supported}); restart with the dao version that wrote it or remove it")]
    UnsupportedVersion { file: String, found: u32, supported: u32 },
    #[error("{file}: truncated: expected at least {expected} bytes, found {got} (the write was probably interrupted); an older checkpoint is used if one exists")]
    Truncated { file: String, expected: u64, got: u64 },
    #[error("{file}: corrupt ({what} of section {section}); an older checkpoint is used if one exists")]
    Corrupt { file: String, section: &'static str, what: String },
    #[error("{file}: cannot read: {source}")]
    Io { file: String, #[source] source: std::io::Error },
    #[error("{file}: a checkpoint skeleton (the metadata of a checkpoint kept by the storage engine, without memory contents); it is read through its store file (store.NNNNNN.dst)")]
    Skeleton { file: String },
}

impl FormatError {
    /// Replaces the file name in the error (decode() does not know it).
    pub fn with_file(mut self, name: &str) -> Self {
        match &mut self {
            FormatError::NotACheckpoint { file }
            | FormatError::UnsupportedVersion { file, .. }
            | FormatError::Truncated { file, .. }
            | FormatError::Corrupt { file, .. }
            | FormatError::Io { file, .. }
            | FormatError::Skeleton { file } => *file = name.to_string(),
        }
        self
    }

    /// The reason without the file name, e.g. "corrupt (checksum of section HEAP)".
    pub fn reason(&self) -> String {
        match self {
            FormatError::NotACheckpoint { .. } => "not a dao checkpoint (bad magic)".into(),
            FormatError::UnsupportedVersion { found, supported, .. } => {
                format!("unsupported format version {found} (supported: {supported})")
            }
            FormatError::Truncated { expected, got, .. } => {
                format!("truncated ({got} of at least {expected} bytes)")
            }
            FormatError::Corrupt { section, what, .. } => format!("corrupt ({what} of section {section})"),
            FormatError::Io { source, .. } => format!("unreadable ({source})"),
            FormatError::Skeleton { .. } => "a skeleton without memory contents (read through the store)".into(),
        }
    }
}

/// Errors of checkpoint-directory operations.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("checkpoint directory {dir}: cannot create or open it: {source}; set DAO_DIR to a writable directory")]
    Open { dir: PathBuf, #[source] source: std::io::Error },
    #[error("checkpoint directory {dir}: writing {file} failed: {source}; the previous checkpoint stays current")]
    Write { dir: PathBuf, file: String, #[source] source: std::io::Error },
    #[error("checkpoint directory {dir}: cannot list it: {source}")]
    List { dir: PathBuf, #[source] source: std::io::Error },
}

impl DirError {
    /// The underlying I/O error.
    pub fn io(&self) -> &std::io::Error {
        match self {
            DirError::Open { source, .. } | DirError::Write { source, .. } | DirError::List { source, .. } => source,
        }
    }
}
