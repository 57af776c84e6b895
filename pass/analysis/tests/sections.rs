//! Section kills on hand-written bodies: a loop's must-write kill placed on
//! its entry edge (by `loop_kills` + `add_kill`, as the front does), then
//! liveness; each `live:` line states the exact live set at that point.
//! And function entry summaries (exposed reads, kills) for callers.
use dao_analysis::liveness::LiveSets;
use dao_analysis::sections::{add_kill, entry_summary, loop_kills, loop_kills_excusing};
use dao_analysis::textcfg::{parse, Parsed};
use dao_analysis::BitSet;

fn check(p: &Parsed) {
    let live = LiveSets::compute(&p.body);
    assert!(!p.checks.is_empty(), "test has no `live:` expectations");
    for (b, i, expected, line) in &p.checks {
        let got = p.set_names(&live.before(&p.body, *b, *i));
        let mut exp = expected.clone();
        exp.sort();
        assert_eq!(got, exp, "live set at line {line}");
    }
}

/// `src` with the kill of `cands` (name, escaped) by the loop of `blocks`
/// appended to block `pre` (its preheader), if the loop does not read them.
fn with_loop_kill(src: &str, pre: usize, blocks: &[usize], cands: &[(&str, bool)]) -> (Parsed, Vec<String>) {
    let mut p = parse(src);
    let unknown = p.var("unknown");
    let c: Vec<(usize, bool)> = cands.iter().map(|(n, e)| (p.var(n), *e)).collect();
    let k = loop_kills(&p.body, blocks, &c, unknown);
    let names = k.iter().map(|&v| p.names[v].clone()).collect();
    add_kill(&mut p.body, pre, k);
    (p, names)
}

// A time-step loop (bb1..bb5) whose body overwrites `work` in an inner
// loop (bb3, preheader bb2) before reading it (bb4); `state` carries. The
// marker at the top of the step (bb1) must not keep `work`; a marker inside
// the inner loop (bb3) must (earlier iterations wrote part of it, and bb4
// reads it after the loop).
const STEP: &str = "
bb0:
  def state unknown
  -> bb1
bb1:
  live: state
  -> bb2 bb6
bb2:
  -> bb3
bb3:
  live: state work
  use state
  -> bb3 bb4
bb4:
  use work state
  def state
  -> bb5
bb5:
  -> bb1
bb6:
  use state
";

#[test]
fn inner_loop_overwrite_kills_at_entry_not_inside() {
    let (p, killed) = with_loop_kill(STEP, 2, &[3], &[("work", false)]);
    assert_eq!(killed, vec!["work"]);
    check(&p);
}

#[test]
fn read_inside_the_loop_keeps_it() {
    // a[i] = a[i-1] + 1: the loop reads what it writes
    let src = "
bb0:
  def unknown
  live: a
  -> bb1
bb1:
  use a
  -> bb1 bb2
bb2:
  use a
";
    let (p, killed) = with_loop_kill(src, 0, &[1], &[("a", false)]);
    assert!(killed.is_empty());
    check(&p);
}

#[test]
fn unknown_read_in_loop_keeps_escaped_object_only() {
    let src = "
bb0:
  live: e unknown
  -> bb1
bb1:
  use unknown
  -> bb1 bb2
bb2:
  use e p
";
    let (p, killed) = with_loop_kill(src, 0, &[1], &[("e", true), ("p", false)]);
    assert_eq!(killed, vec!["p"]);
    check(&p);
}

#[test]
fn cover_on_one_branch_only() {
    // if (c) { loop writes a } ; read a: live before the branch
    let src = "
bb0:
  def unknown
  live: a c
  use c
  -> bb1 bb3
bb1:
  live:
  -> bb2
bb2:
  -> bb2 bb3
bb3:
  use a
";
    let (p, killed) = with_loop_kill(src, 1, &[2], &[("a", false)]);
    assert_eq!(killed, vec!["a"]);
    check(&p);
}

#[test]
fn entry_summary_exposed_and_killed() {
    // writes g whole then reads it; reads h; writes k on one branch only;
    // writes m whole on both branches
    let src = "
bb0:
  def g
  use g h
  -> bb1 bb2
bb1:
  def k m
  -> bb3
bb2:
  def m
  -> bb3
bb3:
";
    let p = parse(src);
    let mut of = BitSet::new_empty(p.body.num_vars);
    for n in ["g", "h", "k", "m"] {
        of.insert(p.var(n));
    }
    let (e, k) = entry_summary(&p.body, &of);
    assert_eq!(p.set_names(&e), vec!["h"]);
    assert_eq!(p.set_names(&k), vec!["g", "m"]);
}

#[test]
fn entry_summary_read_before_write_is_not_killed() {
    let src = "
bb0:
  use g
  def g
";
    let p = parse(src);
    let mut of = BitSet::new_empty(p.body.num_vars);
    of.insert(p.var("g"));
    let (e, k) = entry_summary(&p.body, &of);
    assert_eq!(p.set_names(&e), vec!["g"]);
    assert!(k.is_empty());
}

// for k { row k of a rewritten (bb1); a[k][..] read back (bb2, statement
// 0: the front found this read covered by the same iteration's write) }.
const ROW_THEN_READ: &str = "
bb0:
  live: b
  def unknown
  -> bb1
bb1:
  -> bb1 bb2
bb2:
  use a
  use b
  -> bb1 bb3
bb3:
  use a
";

#[test]
fn read_covered_in_its_iteration_does_not_keep_it() {
    let mut p = parse(ROW_THEN_READ);
    let (a, unknown) = (p.var("a"), p.var("unknown"));
    let excused = [(2, 0, a)].into_iter().collect();
    let k = loop_kills_excusing(&p.body, &[1, 2], &[(a, false)], unknown, &excused);
    assert_eq!(k, vec![a]);
    add_kill(&mut p.body, 0, k);
    check(&p);
}

#[test]
fn only_the_excused_statement_is_excused() {
    let p = parse(ROW_THEN_READ);
    let (a, b, unknown) = (p.var("a"), p.var("b"), p.var("unknown"));
    // b's read (statement 1) is not excused; nor is a read of a elsewhere
    let excused = [(2, 0, a)].into_iter().collect();
    assert_eq!(loop_kills_excusing(&p.body, &[1, 2], &[(b, false)], unknown, &excused), Vec::<usize>::new());
    let excused_b_wrong_stmt = [(2, 0, b)].into_iter().collect();
    assert_eq!(loop_kills_excusing(&p.body, &[1, 2], &[(b, false)], unknown, &excused_b_wrong_stmt), Vec::<usize>::new());
    // without the excuse, a stays
    assert!(loop_kills(&p.body, &[1, 2], &[(a, false)], unknown).is_empty());
    // an escaped object read through unknown memory in the loop is not excused by its own entry
    let src = ROW_THEN_READ.replace("  use b\n", "  use unknown\n");
    let p = parse(&src);
    let (a, unknown) = (p.var("a"), p.var("unknown"));
    let excused = [(2, 0, a)].into_iter().collect();
    assert!(loop_kills_excusing(&p.body, &[1, 2], &[(a, true)], unknown, &excused).is_empty());
    assert_eq!(loop_kills_excusing(&p.body, &[1, 2], &[(a, false)], unknown, &excused), vec![a]);
}

// ---- runtime-checked conditions: the least counts of symbolic dimensions

use dao_analysis::intervals::Intervals;
use dao_analysis::sections::{symbolic_cover, symbolic_cover_cells, Section};

#[test]
fn symbolic_cover_one_dimension_needs_every_element() {
    // for (i = 0; i < n; i++) a[i] = ...;  a: 100 doubles
    let need = Intervals(vec![(0, 800)]);
    assert_eq!(symbolic_cover(0, 8, &[(8, None)], &[], &need), Some(vec![(0, 100)]));
    // starting at a[1]: a[0] is never written, whatever n is
    assert_eq!(symbolic_cover(8, 8, &[(8, None)], &[], &need), None);
}

#[test]
fn symbolic_cover_rows_and_columns() {
    // for (j < ny) for (i < nx) a[j][i], a[64][512] of int64: both symbolic
    let need = Intervals(vec![(0, 64 * 512 * 8)]);
    assert_eq!(symbolic_cover(0, 8, &[(8, None), (4096, None)], &[], &need), Some(vec![(0, 512), (1, 64)]));
    // constant rows, symbolic columns
    assert_eq!(symbolic_cover(0, 8, &[(8, None), (4096, Some(64))], &[], &need), Some(vec![(0, 512)]));
    // constant rows that stop short: no count of the columns helps
    assert_eq!(symbolic_cover(0, 8, &[(8, None), (4096, Some(63))], &[], &need), None);
}

#[test]
fn symbolic_cover_padded_rows() {
    // a[24][25] written over j < n, i < m: a row is 25 long, so when the
    // padding may be read covering needs m >= 25; a program with m = 24
    // never meets it and keeps the array
    let need = Intervals(vec![(0, 24 * 25 * 8)]);
    assert_eq!(symbolic_cover(0, 8, &[(8, None), (200, None)], &[], &need), Some(vec![(0, 25), (1, 24)]));
    // only the bytes that may be read (not the padding column) are needed:
    // rows of 24 then suffice
    let need = Intervals((0..24).map(|j| (j * 200, j * 200 + 192)).collect());
    assert_eq!(symbolic_cover(0, 8, &[(8, None), (200, None)], &[], &need), Some(vec![(0, 24), (1, 24)]));
}

#[test]
fn symbolic_cover_with_constant_boxes_and_rejections() {
    // the first element by a constant store, the rest by a loop from a[1]
    let need = Intervals(vec![(0, 800)]);
    let first = Section { start: 0, size: 8, dims: vec![] };
    assert_eq!(symbolic_cover(8, 8, &[(8, None)], &[first], &need), Some(vec![(0, 99)]));
    // a negative stride on a symbolic dimension: no choice
    assert_eq!(symbolic_cover(792, 8, &[(-8, None)], &[], &need), None);
    // nothing needed: nothing to cover
    assert_eq!(symbolic_cover(0, 8, &[(8, None)], &[], &Intervals(vec![])), None);
}

#[test]
fn symbolic_cover_cells_of_one_element() {
    // lhs[k][3][2] of doubles written as three blocks per k < n:
    // lhs[k][0][*], lhs[k][1][*], lhs[k][2][*] (16 bytes each, k stride 48):
    // no block alone covers, the three together do when n >= 10
    let need = Intervals(vec![(0, 10 * 48)]);
    let dims = [(48, None)];
    assert_eq!(symbolic_cover(0, 16, &dims, &[], &need), None);
    assert_eq!(symbolic_cover_cells(&[(0, 16), (16, 16), (32, 16)], &dims, &[], &need), Some(vec![(0, 10)]));
    // two of the three blocks: a gap in every element
    assert_eq!(symbolic_cover_cells(&[(0, 16), (32, 16)], &dims, &[], &need), None);
}
