//! The read boxes of a module's globals (ABI 12, `dao_abi::DAO_BOX_READ`):
//! every read of an internal global whose address reaches only the reads
//! the pass saw lies in one of them, so the bytes outside all of them,
//! evaluated with the bounds' values at a checkpoint, are never read again
//! (the bounds are frozen: `cond.rs`). `emit.rs` puts them in the module
//! descriptor next to the write boxes (`cond::WBox`).
use crate::cond::{merge, Cond, SymRef, WBox};
use crate::ir::SymCount;

/// The read boxes of the module's globals (`dao_abi::DAO_BOX_READ`): for
/// each global of at least 4 KiB defined here whose every read the pass
/// saw (`ModuleFacts::readable_parts`) and whose readable bytes may leave
/// some out (reads with counts from frozen globals, or constant ones that
/// do not cover it), one box per constant readable run and one per read
/// box with run-time counts (a may-count: at most max(floor, add + the
/// value)), each under the conditions that its values are at least their
/// `low` and small enough not to wrap. The runtime leaves out the bytes
/// outside all of them: no code will ever read those.
pub fn read_boxes(facts: &crate::facts::ModuleFacts) -> Vec<(WBox, Vec<Cond>)> {
    let mut out = Vec::new();
    for g in 0..facts.globals.len() {
        let size = facts.global_size[g];
        if facts.global_declared[g] || size < 4096 {
            continue;
        }
        let Some((c, s)) = facts.readable_parts(g) else { continue };
        if s.is_empty() && c.covers(0, size as i64) {
            continue;
        }
        // the constant runs, gaps of less than 128 bytes closed (the
        // runtime saves those anyway, `collect.rs` MIN_GAP), their hull past
        // 64 runs (a superset of what may be read is still sound)
        let mut runs: Vec<(i64, i64)> = Vec::new();
        for &(lo, hi) in &c.0 {
            match runs.last_mut() {
                Some(l) if lo < l.1 + 128 => l.1 = l.1.max(hi),
                _ => runs.push((lo, hi)),
            }
        }
        if runs.len() > 64 {
            runs = vec![(runs[0].0, runs[runs.len() - 1].1)];
        }
        let mut boxes: Vec<(WBox, Vec<Cond>)> = runs.iter().map(|&(lo, hi)| (WBox { object: g, start: lo, size: (hi - lo) as u64, dims: Vec::new() }, Vec::new())).collect();
        if s.len() > 1024 {
            continue;
        }
        let mut ok = true;
        for rb in s {
            let mut dims = Vec::new();
            let mut conds = Vec::new();
            for (&(st, n), y) in rb.dims.iter().zip(&rb.sym) {
                match y {
                    Some((sc, floor)) => {
                        let Some(&cg) = facts.global_ix.get(&sc.global) else {
                            ok = false;
                            break;
                        };
                        let Some(cd) = Cond::at_least(cg, &SymCount { add: 0, ..*sc }, 0) else {
                            ok = false;
                            break;
                        };
                        conds.push(cd);
                        dims.push((st, (*floor).max(0) as u64, Some(SymRef { global: cg, off: sc.off, bytes: sc.bytes, signed: sc.signed, add: sc.add })));
                    }
                    None => dims.push((st, n, None)),
                }
            }
            if !ok {
                break;
            }
            let b = (WBox { object: g, start: rb.start, size: rb.size, dims }, merge(conds));
            if !boxes.contains(&b) {
                boxes.push(b);
            }
        }
        if ok {
            out.extend(merge_cells(boxes));
        }
    }
    out
}

/// Boxes with the same steps and conditions whose cells overlap or touch
/// (the fields of one cell, read one by one) as one box of their union
/// cell: the same bytes, fewer runs for the runtime to evaluate.
fn merge_cells(boxes: Vec<(WBox, Vec<Cond>)>) -> Vec<(WBox, Vec<Cond>)> {
    let mut groups: Vec<(WBox, Vec<Cond>, Vec<(i64, i64)>)> = Vec::new();
    for (b, c) in boxes {
        let cell = (b.start, b.start + b.size as i64);
        match groups.iter_mut().find(|(x, xc, _)| x.object == b.object && x.dims == b.dims && *xc == c) {
            Some((_, _, cells)) => cells.push(cell),
            None => groups.push((b, c, vec![cell])),
        }
    }
    let mut out = Vec::new();
    for (b, c, mut cells) in groups {
        cells.sort_unstable();
        let mut runs: Vec<(i64, i64)> = Vec::new();
        for (lo, hi) in cells {
            match runs.last_mut() {
                Some(l) if lo <= l.1 => l.1 = l.1.max(hi),
                _ => runs.push((lo, hi)),
            }
        }
        for (lo, hi) in runs {
            out.push((WBox { start: lo, size: (hi - lo) as u64, ..b.clone() }, c.clone()));
        }
    }
    out
}
