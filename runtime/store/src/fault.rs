//! Fault injection for tests: make one stage of a checkpoint write fail,
//! panic, or kill the whole process at a chosen point.
//!
//! Not for production use; the runtime never sets it. Kept in the public API
//! (hidden from the docs) so that integration tests of the runtime can drive
//! the same kill points as this crate's tests.

/// Where a fault fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The collection stage, when it hands chunk `at_chunk` to the compressors.
    Collect,
    /// A compression worker, on chunk `at_chunk`.
    Compress,
    /// The writer stage, before writing the aggregate holding chunk `at_chunk`.
    Write,
    /// Before the temp file is fsynced (after the commit record is written).
    Sync,
    /// After the fsync, before the rename that makes the file visible.
    Rename,
}

/// What happens there.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    /// The stage returns an I/O error.
    Error,
    /// The stage's thread panics.
    Panic,
    /// The process dies at once (`abort`: no destructors, no cleanup), like a kill -9.
    Abort,
    /// The stage sleeps this many milliseconds, then continues (a slow disk).
    Sleep(u64),
    /// The stage calls this function, then continues if it returns. The
    /// runtime's DAO_CRASH_IN passes one that SIGKILLs the process (a kill
    /// from outside, which `Abort`'s SIGABRT is not).
    Hook(fn()),
}

/// `at_chunk` value meaning "the middle chunk of this file": the engine
/// replaces it with the index of the middle chunk of the payload it is about
/// to write (known before writing: [`crate::payload::encoded_len`]), so a
/// fault there always fires, half-way through the file.
pub const MIDDLE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub struct Fault {
    pub stage: Stage,
    /// For the pipeline stages: the chunk index it fires at.
    pub at_chunk: u32,
    pub action: Action,
}

impl Fault {
    /// Fires when `stage`/`chunk` match: returns the error to propagate (for
    /// `Action::Error`), panics, or aborts.
    pub(crate) fn check(f: Option<&Fault>, stage: Stage, chunk: u32) -> std::io::Result<()> {
        let Some(f) = f else { return Ok(()) };
        if f.stage != stage || (matches!(stage, Stage::Collect | Stage::Compress | Stage::Write) && f.at_chunk != chunk) {
            return Ok(());
        }
        match f.action {
            Action::Error => Err(std::io::Error::other(format!("injected fault in {stage:?} at chunk {chunk}"))),
            Action::Panic => panic!("injected panic in {stage:?} at chunk {chunk}"),
            Action::Abort => std::process::abort(),
            Action::Sleep(ms) => {
                std::thread::sleep(std::time::Duration::from_millis(ms));
                Ok(())
            }
            Action::Hook(f) => {
                f();
                Ok(())
            }
        }
    }
}
