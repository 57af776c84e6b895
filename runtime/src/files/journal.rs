//! The journal of written files (`DAO_DIR/files.journal`): every path the
//! program opened for writing in this run, with its size at the first
//! open, so that a restart can cut back a file first written after its
//! checkpoint (which the checkpoint does not name).
use std::sync::Mutex;

/// Every path the program opened for writing in this run (and, after a
/// restart, those of the checkpoint), open or closed since.
pub(super) static WRITTEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// `DAO_DIR/files.journal` (set by the startup when checkpoints are on).
static JOURNAL: Mutex<Option<std::path::PathBuf>> = Mutex::new(None);

/// A path opened for writing: the first time, its size now (just after
/// the open, before the program writes to it: 0 when the open created or
/// truncated it) is appended to the journal, so that a restart can cut
/// back a file first written after its checkpoint, which the checkpoint
/// does not name.
pub(super) fn note_written(path: &str) {
    {
        let mut w = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
        if w.iter().any(|p| p == path) {
            return;
        }
        w.push(path.to_string());
    }
    let j = JOURNAL.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(j) = j {
        crate::libc_alloc::own(|| {
            let size = std::fs::metadata(path).map(|m| m.len() as i64).unwrap_or(-1);
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&j) {
                let _ = writeln!(f, "{size} {}", hex(path));
            }
        });
    }
}

/// Sets the journal (`DAO_DIR/files.journal`); a fresh run (`fresh`)
/// starts it empty.
pub fn set_journal(path: std::path::PathBuf, fresh: bool) {
    if fresh {
        let _ = std::fs::remove_file(&path);
    }
    *JOURNAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(path);
}

/// The journal's entries: path -> smallest size recorded at a first open.
pub(super) fn read_journal() -> Vec<(String, i64)> {
    let Some(j) = JOURNAL.lock().unwrap_or_else(|e| e.into_inner()).clone() else { return vec![] };
    let text = std::fs::read_to_string(j).unwrap_or_default();
    let mut out: Vec<(String, i64)> = Vec::new();
    for l in text.lines() {
        let Some((size, path)) = l.split_once(' ') else { continue };
        let (Ok(size), Some(path)) = (size.parse::<i64>(), unhex(path)) else { continue };
        match out.iter_mut().find(|(p, _)| *p == path) {
            Some(e) => e.1 = e.1.min(size),
            None => out.push((path, size)),
        }
    }
    out
}

pub(super) fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn unhex(s: &str) -> Option<String> {
    if s.len() % 2 != 0 {
        return None;
    }
    let b: Option<Vec<u8>> = (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect();
    String::from_utf8(b?).ok()
}
