//! DAO_STATS: one JSON object per line for every checkpoint and restart.
use std::io::Write;

/// Bytes saved per category, and the heap bytes left out as dead.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bytes {
    pub slots: u64,
    pub stack: u64,
    pub globals: u64,
    pub heap: u64,
    /// The blocks of heap objects left out (dead in every walked frame of
    /// their module; collect.rs): not saved, so not in `heap` nor in
    /// [`Bytes::total`].
    pub heap_dead: u64,
}

impl Bytes {
    pub fn json(&self) -> String {
        format!(
            "{{\"slots\":{},\"stack\":{},\"globals\":{},\"heap\":{},\"heap_dead\":{}}}",
            self.slots, self.stack, self.globals, self.heap, self.heap_dead
        )
    }
    /// The bytes saved (`heap_dead` is not).
    pub fn total(&self) -> u64 {
        self.slots + self.stack + self.globals + self.heap
    }
}

/// Appends `line` (a JSON object) to the stats file, if one is configured.
pub fn append(path: Option<&std::path::Path>, line: &str) {
    let Some(path) = path else { return };
    let r = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
    if let Err(e) = r {
        crate::diag::warn_once("stats", format_args!("cannot append to DAO_STATS file {}: {e}", path.display()));
    }
}

/// A string as a JSON string literal.
pub fn quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The process's resident memory (what a system-level checkpointer such as
/// CRIU or DMTCP would have to write at least), from /proc/self/statm.
pub fn resident_bytes() -> u64 {
    let page = 4096u64;
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|r| r.parse::<u64>().ok()))
        .map_or(0, |pages| pages * page)
}
