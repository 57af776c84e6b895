//! The heap objects of a checkpoint (format 9) in a report: the blocks of
//! allocation calls the pass follows one by one (ABI 14), saved or left out
//! as dead, and why, in the pass's words. `process.rs` puts them in its
//! file report and prints them after the heap line; files before format 9
//! have none, and nothing is printed for them.

use serde::Serialize;

/// A heap object of the checkpoint: its block and whether the checkpoint
/// holds its bytes. Left out (`saved` false): dead in every saved frame of
/// its module, and `why` says what rewrites it first; saved: for blocks of
/// at least 64 KiB, `why` says why it is kept.
#[derive(Debug, Serialize)]
pub struct HeapObjectReport {
    pub module_hash: String,
    /// Its index among the module's heap objects.
    pub index: u32,
    pub name: String,
    pub loc: Option<String>,
    pub addr: String,
    /// The bytes the program asked for.
    pub size: u64,
    pub saved: bool,
    pub why: Option<String>,
}

/// The checkpoint's heap objects, in its order.
pub fn reports(c: &dao_format::Checkpoint<'_>) -> Vec<HeapObjectReport> {
    c.heap
        .objects
        .iter()
        .map(|o| HeapObjectReport {
            module_hash: format!("{:016x}", o.module_hash),
            index: o.index,
            name: o.name.to_string(),
            loc: o.loc.as_ref().map(|l| l.to_string()),
            addr: format!("{:#x}", o.addr),
            size: o.size,
            saved: o.saved,
            why: o.why.as_ref().map(|w| w.to_string()),
        })
        .collect()
}

/// The text lines of `objects` (none when empty): the saved ones, then
/// those left out as dead, the way the dead globals are shown; `size`
/// formats a byte count.
pub fn render(s: &mut String, objects: &[HeapObjectReport], size: fn(u64) -> String) {
    use std::fmt::Write;
    let line = |s: &mut String, kind: &str, o: &HeapObjectReport, what: String| {
        let loc = o.loc.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
        let _ = writeln!(s, "      {kind:<6} {:<24} {:>10} at {}{loc}: {what}", o.name, size(o.size), o.addr);
    };
    let (saved, dead): (Vec<&HeapObjectReport>, Vec<&HeapObjectReport>) = objects.iter().partition(|o| o.saved);
    if !saved.is_empty() {
        let _ = writeln!(s, "heap objects, saved ({}, {}):", saved.len(), size(saved.iter().map(|o| o.size).sum()));
        for o in saved {
            line(s, "heap", o, o.why.as_deref().map_or("saved".to_string(), |w| format!("saved, kept: {w}")));
        }
    }
    if !dead.is_empty() {
        let _ = writeln!(s, "heap objects left out (dead) ({}, {}):", dead.len(), size(dead.iter().map(|o| o.size).sum()));
        for o in dead {
            let why = o.why.as_deref().map(|w| format!("rewritten first by {w}")).unwrap_or_else(|| "no thread reads it before rewriting it".to_string());
            line(s, "dead", o, why);
        }
    }
}
