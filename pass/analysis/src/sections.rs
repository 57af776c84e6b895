//! Array sections: which bytes of an object a loop nest certainly writes,
//! and when that makes the object dead before the loop (issue #15).
//!
//! The front gets, from LLVM's ScalarEvolution, one [`Section`] per store
//! (or memset/memcpy destination) of a loop nest that every completed
//! iteration executes: `start + Σ k_d · stride_d + [0, size)` for
//! `k_d ∈ [0, count_d)`, in bytes from the object's first byte. Everything
//! here is pure: the union of such boxes as byte intervals ([`covered`]),
//! whether a loop's must-writes kill an object ([`loop_kills`]), and the
//! interprocedural summary of a function ([`entry_summary`]).
//!
//! The lattice is the one of must-writes: a set of byte intervals, smaller
//! is safer. Every step here may under-approximate (a box too irregular to
//! enumerate is dropped), never over-approximate: a byte counted as written
//! that is not would make a live object dead, a silently wrong restart.
//!
//! Soundness of the kill at a loop's entry: if, on every entry of loop L
//! that runs to its exit, the union of L's must-write sections covers all
//! of object o, and no statement of L may read o (directly, or through
//! unknown memory when o has escaped), then o is dead just before L's entry
//! edge: any read of o after the entry edge comes after L, by which time
//! every byte has been rewritten. The kill is placed on the entry edge
//! (the preheader), not at L's exit: a checkpoint taken *inside* L must keep
//! the bytes earlier iterations wrote, and liveness inside L never sees the
//! kill. Paths that leave L early are excluded by the front (one exiting
//! block, a constant trip count).
//!
//! A read of o inside L does not prevent the kill when it only sees bytes
//! that the same iteration of L wrote before it ([`read_covered_in_iteration`],
//! [`loop_kills_excusing`]): a time step that first copies `forcing[k]`
//! into `rhs[k]` and then updates `rhs[k]` in place. The read's value then
//! comes from after the entry edge whatever o held there. The front proves
//! "before it in the same iteration" by dominance (the write, or the exit
//! of the inner loop nest holding it, dominates the read, which lies outside
//! that nest) and "the same bytes" by comparing the boxes of both relative
//! to L's iteration (same step per iteration of L, ScalarEvolution).
use crate::fxhash::HashSet;

use crate::bitset::BitSet;
use crate::body::{Body, Stmt, VarId};
use crate::dataflow::solve;
use crate::graph::BlockId;
use crate::intervals::Intervals;
use crate::liveness::Liveness;

/// One store's byte box: `start + Σ k_d·stride_d + [0, size)`,
/// `k_d ∈ [0, count_d)`; `dims` innermost loop first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub start: i64,
    pub size: u64,
    pub dims: Vec<(i64, u64)>,
}

/// At most this many pieces are enumerated for a box that does not collapse
/// into one interval; a larger one is dropped (an under-approximation).
pub const MAX_PIECES: u64 = 1 << 16;

/// Normal form of a box: empty boxes gone (`None`), unit and zero-stride
/// dimensions dropped, negative strides flipped, dimensions by stride, and
/// every dimension whose stride does not exceed the contiguous run folded
/// into it (consecutive runs touch or overlap).
pub fn normalize(s: &Section) -> Option<Section> {
    if s.size == 0 || s.dims.iter().any(|&(_, c)| c == 0) {
        return None;
    }
    let mut start = s.start as i128;
    let mut dims: Vec<(i128, i128)> = Vec::new();
    for &(stride, count) in &s.dims {
        if count == 1 || stride == 0 {
            continue;
        }
        let (stride, count) = (stride as i128, count as i128);
        if stride < 0 {
            start += stride * (count - 1);
            dims.push((-stride, count));
        } else {
            dims.push((stride, count));
        }
    }
    dims.sort();
    let mut size = s.size as i128;
    while let Some(&(stride, count)) = dims.first() {
        if stride > size {
            break;
        }
        size += stride * (count - 1);
        dims.remove(0);
    }
    let fits = |x: i128| x >= i64::MIN as i128 && x <= i64::MAX as i128;
    if !fits(start) || !fits(start + size) || dims.iter().any(|&(st, c)| !fits(st * c)) {
        return None;
    }
    Some(Section { start: start as i64, size: size as u64, dims: dims.into_iter().map(|(a, b)| (a as i64, b as u64)).collect() })
}

/// The bytes the boxes certainly write, as intervals: boxes with the same
/// dimensions whose runs touch are merged (the fields of a struct, the
/// unrolled copies of an inner loop), then each box is one interval or, if
/// it has at most [`MAX_PIECES`] runs, that many; a larger gappy box is
/// left out.
pub fn covered(sections: &[Section]) -> Intervals {
    let mut boxes: Vec<Section> = sections.iter().filter_map(normalize).collect();
    // merge boxes of equal dimensions whose runs touch, to a fixpoint
    loop {
        boxes.sort_by(|a, b| a.dims.cmp(&b.dims).then(a.start.cmp(&b.start)));
        let mut merged: Vec<Section> = Vec::with_capacity(boxes.len());
        let mut changed = false;
        for b in boxes {
            if let Some(last) = merged.last_mut() {
                let end = last.start + last.size as i64;
                if last.dims == b.dims && !b.dims.is_empty() && b.start <= end {
                    let new_end = end.max(b.start + b.size as i64);
                    last.size = (new_end - last.start) as u64;
                    changed = true;
                    continue;
                }
            }
            merged.push(b);
        }
        boxes = merged.iter().filter_map(normalize).collect();
        if !changed {
            break;
        }
    }
    let mut out = Vec::new();
    for b in &boxes {
        let pieces: u64 = b.dims.iter().map(|d| d.1).try_fold(1u64, |a, c| a.checked_mul(c)).unwrap_or(u64::MAX);
        if pieces > MAX_PIECES {
            continue;
        }
        let mut offs = vec![b.start];
        for &(stride, count) in &b.dims {
            offs = offs.iter().flat_map(|&o| (0..count as i64).map(move |k| o + k * stride)).collect();
        }
        out.extend(offs.into_iter().map(|o| (o, o + b.size as i64)));
    }
    Intervals::from_unsorted(out)
}

/// Counts for the symbolic dimensions of a must-write box (issue #15,
/// runtime-checked conditions) under which it covers `need`, together with
/// the constant boxes `others`: `dims` are (stride, count), `None` for a
/// count known only at run time. The choice is the dense one: a symbolic
/// dimension spans up to the next larger stride of the box (a row of a row-
/// major array), the one of the largest stride up to the end of `need`.
/// A box only grows with its counts (`k_d < count_d`), so whenever every
/// symbolic count is at least its chosen value the box covers `need` too:
/// the condition the runtime checks. Returns (dimension, least count) per
/// symbolic dimension, or `None` when no dense choice covers (a gap, a
/// negative stride on a symbolic dimension). From the dense choice each
/// count is then lowered to the least that still covers (rows of a padded
/// array whose padding nothing reads).
pub fn symbolic_cover(start: i64, size: u64, dims: &[(i64, Option<u64>)], others: &[Section], need: &Intervals) -> Option<Vec<(usize, u64)>> {
    symbolic_cover_cells(&[(start, size)], dims, others, need)
}

/// [`symbolic_cover`] for several boxes that share their dimensions and
/// differ only in start and size (`cells`: the stores of one loop nest
/// into the parts of one element, e.g. the three 5x5 blocks of NPB BT's
/// `lhs[i][j][k][3][5][5]`). Their symbolic counts are the same run-time
/// values, so one choice of least counts holds for all of them.
pub fn symbolic_cover_cells(cells: &[(i64, u64)], dims: &[(i64, Option<u64>)], others: &[Section], need: &Intervals) -> Option<Vec<(usize, u64)>> {
    let need_end = need.0.last()?.1;
    let start = cells.iter().map(|c| c.0).min()?;
    let mut chosen = Vec::new();
    let mut inst = Vec::with_capacity(dims.len());
    for (d, &(stride, count)) in dims.iter().enumerate() {
        let k = match count {
            Some(c) => c,
            None => {
                if stride < 0 {
                    return None;
                }
                let k = if stride == 0 {
                    1
                } else {
                    let next = dims.iter().map(|&(s, _)| s.unsigned_abs()).filter(|&s| s > stride as u64).min();
                    let span = match next {
                        Some(n) => n as i64,
                        None => need_end.checked_sub(start)?,
                    };
                    (span.max(1) + stride - 1) / stride
                };
                if !(1..=1 << 40).contains(&k) {
                    return None;
                }
                chosen.push((d, k as u64));
                k as u64
            }
        };
        inst.push((stride, k));
    }
    let covers = |inst: &[(i64, u64)]| {
        let mut all = others.to_vec();
        all.extend(cells.iter().map(|&(start, size)| Section { start, size, dims: inst.to_vec() }));
        covered(&all).covers_all(need)
    };
    if !covers(&inst) {
        return None;
    }
    // then the least count of each symbolic dimension, the others fixed
    // (covering only grows with a count: a binary search), so that rows
    // whose padding nothing reads need not be written
    for (d, k) in chosen.iter_mut() {
        let (mut lo, mut hi) = (1u64, *k);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            inst[*d].1 = mid;
            if covers(&inst) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        inst[*d].1 = hi;
        *k = hi;
    }
    Some(chosen)
}

/// A dimension's count for [`dense_prefix`]: a constant, or `add` plus a
/// value V known only at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PCount {
    Const(u64),
    Sym(i64),
}

/// The bytes from 0 that a box certainly writes with no gap (issue #33: a
/// heap block of a size known only at run time is rewritten whole when
/// they reach its end), as `scale * V + base` bytes for the value V of its
/// one symbolic dimension, whose count `add + V` must then be at least 1
/// (scale 0 when every count is constant). The box must start at byte 0,
/// its strides be positive (a stride of 0 repeats the same bytes and is
/// skipped), each dimension in increasing stride start within the bytes
/// the smaller ones cover, and the symbolic dimension be the one of the
/// largest stride. None otherwise (a gap, a box off the start, an empty
/// dimension, more than one symbolic count).
pub fn dense_prefix(start: i64, size: u64, dims: &[(i64, PCount)]) -> Option<(u64, i64)> {
    if start != 0 || size == 0 {
        return None;
    }
    let mut ds: Vec<(i64, PCount)> = Vec::new();
    for &(st, c) in dims {
        match c {
            PCount::Const(0) => return None,
            PCount::Const(1) => continue,
            _ if st == 0 => continue,
            _ if st < 0 => return None,
            _ => ds.push((st, c)),
        }
    }
    ds.sort_by_key(|d| d.0);
    let mut run = size as i128;
    for (k, &(st, c)) in ds.iter().enumerate() {
        let st = st as i128;
        if st > run {
            return None;
        }
        match c {
            PCount::Const(n) => run += st * (n as i128 - 1),
            PCount::Sym(add) => {
                if k + 1 != ds.len() {
                    return None;
                }
                let base = st * (add as i128 - 1) + run;
                return Some((u64::try_from(st).ok()?, i64::try_from(base).ok()?));
            }
        }
    }
    Some((0, i64::try_from(run).ok()?))
}

/// The bytes the boxes may touch, as intervals (the may-read footprint of
/// an object): like [`covered`], except that a box too large to enumerate
/// counts as its whole hull, never as nothing.
pub fn may_cover(sections: &[Section]) -> Intervals {
    let mut out = Vec::new();
    let mut enumerable = Vec::new();
    for s in sections {
        let Some(b) = normalize(s) else { continue };
        let pieces: u64 = b.dims.iter().map(|d| d.1).try_fold(1u64, |a, c| a.checked_mul(c)).unwrap_or(u64::MAX);
        if pieces > MAX_PIECES {
            let extent: i64 = b.dims.iter().map(|&(st, c)| st * (c as i64 - 1)).sum::<i64>() + b.size as i64;
            out.push((b.start, b.start + extent));
        } else {
            enumerable.push(b);
        }
    }
    out.extend(covered(&enumerable).0);
    Intervals::from_unsorted(out)
}

/// The objects a loop kills at its entry edge: the `candidates` (variable,
/// escaped) whose bytes its sections cover, minus those a statement of the
/// loop's `blocks` may read: used directly, or, for an escaped object,
/// through unknown memory (`unknown`).
pub fn loop_kills(body: &Body, blocks: &[BlockId], candidates: &[(VarId, bool)], unknown: VarId) -> Vec<VarId> {
    loop_kills_excusing(body, blocks, candidates, unknown, &HashSet::default())
}

/// [`loop_kills`], not counting the uses in `excused`: (block, statement,
/// variable) of reads that only see bytes the same iteration of the loop
/// wrote before them ([`read_covered_in_iteration`]). Such a read cannot
/// see a value from before the loop's entry edge, so it does not keep the
/// object live there. Only a direct use of the variable is excused: the
/// same statement's read of unknown memory still counts.
pub fn loop_kills_excusing(body: &Body, blocks: &[BlockId], candidates: &[(VarId, bool)], unknown: VarId, excused: &HashSet<(BlockId, usize, VarId)>) -> Vec<VarId> {
    let mut used = BitSet::new_empty(body.num_vars);
    for &b in blocks {
        for (i, st) in body.blocks[b].stmts.iter().enumerate() {
            for &u in &st.uses {
                if !excused.contains(&(b, i, u)) {
                    used.insert(u);
                }
            }
        }
    }
    candidates.iter().filter(|&&(v, escaped)| !used.contains(v) && !(escaped && used.contains(unknown))).map(|&(v, _)| v).collect()
}

/// Whether a read cannot see a byte from before the current iteration of
/// a loop L: `read` is the box it may read in one iteration of L (its
/// offset at L's iteration 0, may-counts of the loops inside L), `writes`
/// the boxes that stores executed earlier in the same iteration certainly
/// wrote (same iteration-0 origin, must-counts; the front takes only
/// stores whose completion dominates the read, with the same step per
/// iteration of L as the read). True when every byte the read may touch
/// is among them. (A time step's `rhs[k][..] = forcing[k][..]` followed,
/// in the same iteration k, by `rhs[k][..] += ...`.)
pub fn read_covered_in_iteration(writes: &[Section], read: &Section) -> bool {
    let may = may_cover(std::slice::from_ref(read));
    !may.0.is_empty() && covered(writes).covers_all(&may)
}

/// Append the kill of `vars` to block `b` (after its terminator: `b` must
/// have one successor, the loop's header, which the front checks).
pub fn add_kill(body: &mut Body, b: BlockId, vars: Vec<VarId>) {
    add_kills(body, b, vars, Vec::new());
}

/// [`add_kill`] with partial kills: `pdefs` (variable, bytes certainly
/// overwritten) besides the whole kills `vars`, in one statement.
pub fn add_kills(body: &mut Body, b: BlockId, vars: Vec<VarId>, pdefs: Vec<(VarId, Intervals)>) {
    if !vars.is_empty() || !pdefs.is_empty() {
        body.blocks[b].stmts.push(Stmt {
            uses: vec![],
            defs: vars,
            pdefs,
            puses: vec![],
        });
    }
}

/// Why variable `v` is dead after statement `at` (block, index): the
/// statements that kill it first on the paths from there (`defs` or
/// `pdefs` naming it, in the order found), and whether some path reaches an exit of the
/// body without one (then nothing here reads it again, and nothing here
/// rewrites it either). For `-Rdao`: which must-write proved a dead
/// object dead. Assumes `v` is dead there (a read on the way is ignored).
pub fn first_kills(body: &Body, at: (BlockId, usize), v: VarId) -> (Vec<(BlockId, usize)>, bool) {
    let kills = |st: &Stmt| st.defs.contains(&v) || st.pdefs.iter().any(|(p, _)| *p == v);
    first_on_paths(body, at, kills, kills)
}

/// The statements that read variable `v` first on the paths from the
/// statement at `at` (not counting it): a statement that uses `v` ends a
/// path (its uses come before its kills), one that kills it whole ends it
/// without a read; and whether some path reaches the end of the body
/// without either (`v` then live at the exit). For `-Rdao`'s reasons an
/// object is kept.
pub fn first_uses(body: &Body, at: (BlockId, usize), v: VarId) -> (Vec<(BlockId, usize)>, bool) {
    first_on_paths(body, at, |st| st.uses.contains(&v), |st| st.uses.contains(&v) || st.defs.contains(&v))
}

/// On every path from the statement after `at`, the first statement where
/// `stop` holds, collected when `hit` holds too; and whether some path
/// reaches a block without successors first.
fn first_on_paths(body: &Body, at: (BlockId, usize), hit: impl Fn(&Stmt) -> bool, stop: impl Fn(&Stmt) -> bool) -> (Vec<(BlockId, usize)>, bool) {
    let mut found = Vec::new();
    let mut exit = false;
    let mut seen = vec![false; body.blocks.len()];
    // (block, first statement to look at)
    let mut work = vec![(at.0, at.1 + 1)];
    while let Some((b, from)) = work.pop() {
        let blk = &body.blocks[b];
        match blk.stmts.iter().enumerate().skip(from).find(|(_, st)| stop(st)) {
            Some((i, st)) => {
                if hit(st) && !found.contains(&(b, i)) {
                    found.push((b, i));
                }
            }
            None if blk.succs.is_empty() => exit = true,
            None => {
                for &s in &blk.succs {
                    if !std::mem::replace(&mut seen[s], true) {
                        work.push((s, 0));
                    }
                }
            }
        }
    }
    (found, exit)
}

/// What a call of a function does to the variables `of_interest` (its
/// globals, say), from its body: `exposed`, those it may read before
/// writing them whole (live at the entry when nothing is live at the
/// exits), and `killed`, those every path from the entry to an exit
/// writes whole before any read (not live at the entry even when all are
/// live at the exits). A path that never returns kills nothing (every
/// block without successors is an exit, `unreachable` included).
pub fn entry_summary(body: &Body, of_interest: &BitSet) -> (BitSet, BitSet) {
    let exposed = solve(&Liveness::NOTHING_AT_EXIT, body).entry[body.entry()].clone();
    let full = solve(&Liveness::at_exit(of_interest), body).entry[body.entry()].clone();
    let mut killed = of_interest.clone();
    for v in full.iter() {
        killed.remove(v);
    }
    let mut e = BitSet::new_empty(body.num_vars);
    for v in exposed.iter() {
        if of_interest.contains(v) {
            e.insert(v);
        }
    }
    (e, killed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dense_prefixes() {
        use super::{dense_prefix, PCount::*};
        // a[i] for i < n (doubles): 8 * n bytes
        assert_eq!(dense_prefix(0, 8, &[(8, Sym(0))]), Some((8, 0)));
        // for i in 0..n+1: 8 * (n + 1)
        assert_eq!(dense_prefix(0, 8, &[(8, Sym(1))]), Some((8, 8)));
        // rows of 64 doubles, n rows: the row loop innermost
        assert_eq!(dense_prefix(0, 8, &[(8, Const(64)), (512, Sym(0))]), Some((512, 0)));
        // the same with the dims given outermost first
        assert_eq!(dense_prefix(0, 8, &[(512, Sym(0)), (8, Const(64))]), Some((512, 0)));
        // every count constant
        assert_eq!(dense_prefix(0, 8, &[(8, Const(100))]), Some((0, 800)));
        assert_eq!(dense_prefix(0, 16, &[]), Some((0, 16)));
        // a box off the first byte, a gap, an empty dim, a negative stride
        assert_eq!(dense_prefix(8, 8, &[(8, Sym(0))]), None);
        assert_eq!(dense_prefix(0, 8, &[(16, Const(4))]), None);
        assert_eq!(dense_prefix(0, 8, &[(8, Const(0))]), None);
        assert_eq!(dense_prefix(0, 8, &[(-8, Const(4))]), None);
        // a row shorter than the row stride leaves a gap
        assert_eq!(dense_prefix(0, 8, &[(8, Const(63)), (512, Sym(0))]), None);
        // a symbolic count inside a constant one
        assert_eq!(dense_prefix(0, 8, &[(8, Sym(0)), (512, Const(4))]), None);
        // overlapping rows (stride below the run) still leave no gap
        assert_eq!(dense_prefix(0, 16, &[(8, Sym(0))]), Some((8, 8)));
        // zero strides repeat bytes
        assert_eq!(dense_prefix(0, 8, &[(0, Const(7)), (8, Sym(0))]), Some((8, 0)));
    }

    use super::*;

    fn sec(start: i64, size: u64, dims: &[(i64, u64)]) -> Section {
        Section { start, size, dims: dims.to_vec() }
    }

    fn sy(key: usize, add: i64) -> SymDim {
        SymDim::Sym { key, add, floor: 0 }
    }

    #[test]
    fn symbolic_read_inside_symbolic_write() {
        // double rho[25][25][25] written for i, j, k < n0, n1, n2 and read
        // at [i+1][j+1][k+1] for i, j, k < n - 2 (NPB BT's fluxes): inside
        // whatever n is, padding beyond n never read
        let w = [(8, sy(2, 0)), (200, sy(1, 0)), (5000, sy(0, 0))];
        let r = [(8, sy(2, -2)), (200, sy(1, -2)), (5000, sy(0, -2))];
        assert_eq!(sym_contained((0, 8, &w), (5208, 8, &r)), Some(vec![]));
        // the same read from a loop nest in another order
        let r2 = [(5000, sy(0, -2)), (8, sy(2, -2)), (200, sy(1, -2))];
        assert_eq!(sym_contained((0, 8, &w), (5208, 8, &r2)), Some(vec![]));
    }

    #[test]
    fn symbolic_read_one_past_the_write_is_outside() {
        // read [k+1] for k < n: index n, which the write (k < n) misses
        let w = [(8, sy(0, 0))];
        assert_eq!(sym_contained((0, 8, &w), (8, 8, &[(8, sy(0, 0))])), None);
        assert_eq!(sym_contained((0, 8, &w), (8, 8, &[(8, sy(0, -1))])), Some(vec![]));
        // a read bounded by another value
        assert_eq!(sym_contained((0, 8, &w), (0, 8, &[(8, sy(1, 0))])), None);
        // a read bounded by a value against a constant write
        assert_eq!(sym_contained((0, 8, &[(8, SymDim::Const(100))]), (0, 8, &[(8, sy(0, 0))])), None);
        // a stride the write does not have
        assert_eq!(sym_contained((0, 8, &w), (0, 8, &[(16, sy(0, -1))])), None);
        // before the write's start
        assert_eq!(sym_contained((8, 8, &w), (0, 8, &[(8, sy(0, -1))])), None);
        // wider than the element, moving along the row
        assert_eq!(sym_contained((0, 8, &w), (0, 16, &[(8, sy(0, -1))])), None);
    }

    #[test]
    fn a_read_over_several_cells_of_a_row() {
        // rows of n0 doubles (stride 8), n1 rows of 800 bytes; a 16-byte
        // load at row j, cells 1 and 2, for every row j < n1 - 2: inside
        // when n0 >= 3
        let w = [(8, sy(0, 0)), (800, sy(1, 0))];
        let r = [(800, sy(1, -2))];
        assert_eq!(sym_contained((0, 8, &w), (8, 16, &r)), Some(vec![(0, 3)]));
        // starting inside a cell: 12 bytes from byte 4 of cell 1, cells 1 and 2
        assert_eq!(sym_contained((0, 8, &w), (12, 12, &r)), Some(vec![(0, 3)]));
        // against a constant row of 2 cells: cell 2 lies outside
        let wc = [(8, SymDim::Const(2)), (800, sy(1, 0))];
        assert_eq!(sym_contained((0, 8, &wc), (8, 16, &r)), None);
        assert_eq!(sym_contained((0, 8, &wc), (0, 16, &r)), Some(vec![]));
        // no dimension whose cells touch: the gap between cells is not written
        let wg = [(16, sy(0, 0)), (800, sy(1, 0))];
        assert_eq!(sym_contained((0, 8, &wg), (0, 16, &r)), None);
    }

    #[test]
    fn conditions_for_constant_reads_and_floors() {
        let w = [(8, sy(0, 0)), (800, sy(1, 0))];
        // a constant read of 3 elements in row 2: n0 >= 3 and n1 >= 3
        assert_eq!(sym_contained((0, 8, &w), (1600, 8, &[(8, SymDim::Const(3))])), Some(vec![(0, 3), (1, 3)]));
        // a read whose count is max(4, n0 - 1): n0 >= 4
        let r = [(8, SymDim::Sym { key: 0, add: -1, floor: 4 })];
        assert_eq!(sym_contained((0, 8, &w), (0, 8, &r)), Some(vec![(0, 4), (1, 1)]));
        // a loop that never runs reads nothing
        assert_eq!(sym_contained((0, 8, &w), (1 << 20, 8, &[(8, SymDim::Const(0))])), Some(vec![]));
    }

    #[test]
    fn first_uses_stop_at_kills() {
        // 0: [use 1] -> 1: [def 1, then use 1 in 2] ; 0 -> 2: [use 1]
        let mut b = Body::new(3);
        let b0 = b.add_block();
        let b1 = b.add_block();
        let b2 = b.add_block();
        b.blocks[b0].stmts = vec![Stmt::default(), Stmt { uses: vec![1], ..Default::default() }];
        b.blocks[b0].succs = vec![b1, b2];
        b.blocks[b1].stmts = vec![Stmt { defs: vec![1], ..Default::default() }, Stmt { uses: vec![1], ..Default::default() }];
        b.blocks[b2].stmts = vec![Stmt { uses: vec![2], ..Default::default() }, Stmt { uses: vec![1], ..Default::default() }];
        assert_eq!(first_uses(&b, (b0, 0), 1), (vec![(b0, 1)], false));
        let (mut u, exit) = first_uses(&b, (b0, 1), 1);
        u.sort();
        assert_eq!((u, exit), (vec![(b2, 1)], false));
        assert_eq!(first_uses(&b, (b0, 1), 2), (vec![(b2, 0)], true));
    }

    #[test]
    fn contiguous_nest_collapses() {
        // double a[4][8]: for i for j a[i][j] = ...
        let s = sec(0, 8, &[(8, 8), (64, 4)]);
        assert_eq!(normalize(&s), Some(sec(0, 256, &[])));
        assert_eq!(covered(&[s]), Intervals(vec![(0, 256)]));
    }

    #[test]
    fn struct_fields_merge() {
        // complex c[100]: c[i].re = ..; c[i].im = ..
        let c = covered(&[sec(0, 8, &[(16, 100)]), sec(8, 8, &[(16, 100)])]);
        assert_eq!(c, Intervals(vec![(0, 1600)]));
    }

    #[test]
    fn interior_only_keeps_halo() {
        // double a[10][10]: for i in 1..9, j in 1..9: a[i][j]
        let c = covered(&[sec(8 * 11, 8, &[(8, 8), (80, 8)])]);
        assert!(!c.covers(0, 800));
        assert_eq!(c.bytes_within(0, 800), 8 * 64);
        assert!(c.covers(88, 152));
        assert!(!c.covers(0, 88));
    }

    #[test]
    fn two_halves_cover() {
        let c = covered(&[sec(0, 8, &[(8, 50)]), sec(400, 8, &[(8, 50)])]);
        assert!(c.covers(0, 800));
    }

    #[test]
    fn negative_stride_and_zero_stride() {
        // for i = 99 down to 0: a[i]; inside an outer loop that rewrites it
        let c = covered(&[sec(792, 8, &[(-8, 100), (0, 7)])]);
        assert_eq!(c, Intervals(vec![(0, 800)]));
    }

    #[test]
    fn gaps_stay_gaps() {
        // every other element
        let c = covered(&[sec(0, 8, &[(16, 10)])]);
        assert!(!c.covers(0, 160));
        assert_eq!(c.bytes_within(0, 160), 80);
    }

    #[test]
    fn empty_loop_writes_nothing() {
        assert!(covered(&[sec(0, 8, &[(8, 0)])]).0.is_empty());
    }

    #[test]
    fn huge_gappy_box_is_dropped() {
        let c = covered(&[sec(0, 8, &[(16, 1_000_000)])]);
        assert!(c.0.is_empty());
    }

    #[test]
    fn vector_stores_and_unrolled_copies() {
        // <2 x double> stores twice per iteration, step 32, 64 iterations
        let c = covered(&[sec(0, 16, &[(32, 64)]), sec(16, 16, &[(32, 64)])]);
        assert_eq!(c, Intervals(vec![(0, 2048)]));
    }

    #[test]
    fn overlapping_runs() {
        // a[i], a[i+1] for i in 0..9 (stride smaller than the run)
        let c = covered(&[sec(0, 16, &[(8, 9)])]);
        assert_eq!(c, Intervals(vec![(0, 80)]));
    }

    #[test]
    fn may_cover_keeps_huge_boxes_as_hulls() {
        let m = may_cover(&[sec(0, 8, &[(16, 1_000_000)]), sec(-8, 8, &[])]);
        assert_eq!(m, Intervals(vec![(-8, 16_000_000 - 8)]));
        // a row of 3 elements read in each of 4 rows of stride 4 elements
        let m = may_cover(&[sec(0, 8, &[(8, 3), (32, 4)])]);
        assert_eq!(m.0.len(), 4);
        assert!(covered(&[sec(0, 8, &[(8, 3), (32, 4)])]).covers_all(&m));
        assert!(!Intervals(vec![(0, 24)]).covers_all(&m));
    }

    #[test]
    fn read_after_write_in_the_same_iteration() {
        // for k: { for j, i: rhs[k][j][i] = f; for j, i in 1..7: rhs[k][j][i] += .. }
        // double rhs[..][8][8]: a plane is 512 bytes
        let plane = [sec(0, 8, &[(8, 8), (64, 8)])];
        assert!(read_covered_in_iteration(&plane, &sec(72, 8, &[(8, 6), (64, 6)])));
        // a read of the next plane (k + 1) is not this iteration's write
        assert!(!read_covered_in_iteration(&plane, &sec(512 + 72, 8, &[(8, 6), (64, 6)])));
        // a row written, the whole plane read
        assert!(!read_covered_in_iteration(&[sec(0, 8, &[(8, 8)])], &sec(0, 8, &[(8, 8), (64, 8)])));
        // nothing written
        assert!(!read_covered_in_iteration(&[], &sec(0, 8, &[])));
        // two halves of a row written by two stores, one element read
        assert!(read_covered_in_iteration(&[sec(0, 8, &[(8, 4)]), sec(32, 8, &[(8, 4)])], &sec(40, 8, &[])));
    }

    #[test]
    fn first_kills_on_every_path() {
        use crate::body::Stmt;
        // bb0 (site at stmt 0) -> bb1 (kill v) | bb2 -> bb3 (kill v, exit) ; bb1 -> exit
        let mut b = Body::new(2);
        for _ in 0..4 {
            b.add_block();
        }
        b.blocks[0].stmts = vec![Stmt::default(), Stmt::default()];
        b.blocks[0].succs = vec![1, 2];
        b.blocks[1].stmts = vec![Stmt {
            uses: vec![],
            defs: vec![1],
            ..Default::default()
        }];
        b.blocks[2].succs = vec![3];
        b.blocks[3].stmts = vec![
            Stmt::default(),
            Stmt {
                uses: vec![],
                defs: vec![1],
                ..Default::default()
            },
        ];
        let (k, exit) = first_kills(&b, (0, 0), 1);
        assert_eq!(k.len(), 2);
        assert!(k.contains(&(1, 0)) && k.contains(&(3, 1)));
        assert!(!exit);
        // without the kill in bb3 a path reaches the exit
        b.blocks[3].stmts.pop();
        assert_eq!(first_kills(&b, (0, 0), 1), (vec![(1, 0)], true));
        // a kill in the site's own block after it
        b.blocks[0].stmts[1].defs = vec![1];
        assert_eq!(first_kills(&b, (0, 0), 1), (vec![(0, 1)], false));
        // a kill before the site does not count
        assert_eq!(first_kills(&b, (0, 1), 1), (vec![(1, 0)], true));
    }
}

/// A dimension's count for [`sym_contained`]: a constant, or a count known
/// only at run time from bound `key`'s value v: for a write at least
/// `add + v`, for a read at most max(`floor`, `add + v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymDim {
    Const(u64),
    Sym { key: usize, add: i64, floor: i64 },
}

/// Whether a read's box lies inside a write's box whatever the bounds'
/// values, the same values for both (issue #33: `rho_i[i][j][k]` read for
/// `i < grid_points[0]`, written for the same range). Boxes: `size` bytes
/// at `start` plus any combination of (stride, count) steps. Each read
/// dimension must have a write dimension of the same stride; the offset
/// between the starts is split over the write's dimensions, outermost
/// first (offset o_d, then what is left must fit the element). Per write
/// dimension d the read's count plus o_d must not exceed the write's: for
/// two counts of the same bound `o_d + add_read <= add_write`. Returns
/// the conditions that remain, as (write dimension, least count): the
/// write's count must be at least that (a constant read count against a
/// symbolic write, a read's floor); `None` when the read is not inside.
pub fn sym_contained(write: (i64, u64, &[(i64, SymDim)]), read: (i64, u64, &[(i64, SymDim)])) -> Option<Vec<(usize, u64)>> {
    let (ws, wsize, wdims) = write;
    let (rs, rsize, rdims) = read;
    // the read's moving dimensions, matched to the write's by stride
    let mut rcount: Vec<Option<SymDim>> = vec![None; wdims.len()];
    for &(st, c) in rdims {
        if st == 0 || c == SymDim::Const(1) {
            continue;
        }
        if c == SymDim::Const(0) {
            // a loop that never runs reads nothing
            return Some(Vec::new());
        }
        let mut hits = wdims.iter().enumerate().filter(|(_, (s, _))| *s == st);
        let (d, _) = hits.next()?;
        if hits.next().is_some() || rcount[d].is_some() {
            return None;
        }
        rcount[d] = Some(c);
    }
    // the offset between the starts over the write's dimensions, largest
    // stride first
    let mut order: Vec<usize> = (0..wdims.len()).filter(|&d| wdims[d].0 > 0).collect();
    if order.len() + wdims.iter().filter(|(s, _)| *s == 0).count() != wdims.len() {
        return None; // a negative stride
    }
    order.sort_by_key(|&d| std::cmp::Reverse(wdims[d].0));
    let mut rem = rs.checked_sub(ws)?;
    let mut off = vec![0i64; wdims.len()];
    for &d in &order {
        let q = rem.div_euclid(wdims[d].0);
        if q < 0 {
            return None;
        }
        off[d] = q;
        rem -= q * wdims[d].0;
    }
    if rem < 0 {
        return None;
    }
    if rem as u64 + rsize > wsize {
        // a read over several cells of a dimension whose cells touch
        // (stride = the element: a 16-byte vector load of two doubles of
        // a row), along which the read does not move: n cells from o_d
        let mut touch = wdims.iter().enumerate().filter(|(_, &(s, _))| s > 0 && s as u64 == wsize);
        let (dc, _) = touch.next()?;
        if touch.next().is_some() || rcount[dc].is_some() {
            return None;
        }
        rcount[dc] = Some(SymDim::Const((rem as u64 + rsize).div_ceil(wsize)));
    }
    let mut conds = Vec::new();
    for (d, &(st, wc)) in wdims.iter().enumerate() {
        if st == 0 {
            continue;
        }
        let o = off[d];
        let rc = rcount[d].unwrap_or(SymDim::Const(1));
        match (rc, wc) {
            (SymDim::Const(c), SymDim::Const(w)) => {
                if o as u64 + c > w {
                    return None;
                }
            }
            (SymDim::Const(c), SymDim::Sym { .. }) => conds.push((d, o as u64 + c)),
            (SymDim::Sym { key: kr, add: ar, floor }, SymDim::Sym { key: kw, add: aw, .. }) if kr == kw => {
                if o.checked_add(ar)? > aw {
                    return None;
                }
                if floor > 0 {
                    conds.push((d, (o + floor) as u64));
                }
            }
            _ => return None,
        }
    }
    Some(conds)
}
