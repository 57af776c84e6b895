//! Liveness on hand-written bodies; each `live:` line states the exact live
//! set at that point. One failing expectation names its line.
use dao_analysis::liveness::LiveSets;
use dao_analysis::textcfg::parse;

fn check(src: &str) {
    let p = parse(src);
    let live = LiveSets::compute(&p.body);
    assert!(!p.checks.is_empty(), "test has no `live:` expectations");
    for (b, i, expected, line) in &p.checks {
        let got = p.set_names(&live.before(&p.body, *b, *i));
        let mut exp = expected.clone();
        exp.sort();
        assert_eq!(got, exp, "live set at line {line}");
    }
}

#[test]
fn straight_line_kill_and_use() {
    check(
        "
bb0:
  live: b c
  a = b
  live: a c
  use a c
  live:
  def a
  live: a
  use a
",
    );
}

#[test]
fn loop_carries_accumulators() {
    // for (i = 0; i < n; i++) { s += x[i]; checkpoint(); } print(s)
    check(
        "
bb0:
  live: n x
  i = 
  s = 
  -> bb1
bb1:
  live: i n s x
  use i n
  -> bb2 bb3
bb2:
  s = s x i
  live: i n s x      # the marker's live set: everything the loop carries
  i = i
  -> bb1
bb3:
  live: s
  use s
",
    );
}

#[test]
fn early_exit_keeps_only_what_the_exit_reads() {
    // while (1) { if (err) return code; ... uses a ... }
    check(
        "
bb0:
  -> bb1
bb1:
  live: a code err
  use err
  -> bb2 bb3
bb2:
  live: code
  use code
bb3:
  live: a code err
  tmp = a
  live: a code err tmp
  use tmp
  -> bb1
",
    );
}

#[test]
fn global_read_in_callee_is_a_use_at_the_call() {
    // g is written before the marker and read by a callee after it; h is
    // overwritten in full before any read, so it is dead at the marker.
    check(
        "
bb0:
  def g h
  live: g
  def h          # a full overwrite of h after the marker
  use g h        # call report(): summary reads g and h
",
    );
}

#[test]
fn address_taken_local_is_live_through_unknown_reads() {
    // int buf[4]; p = buf; (escaped) ... marker ... print(*unknown)
    // The front turns a load through an unknown pointer into a use of every
    // escaped object, here `buf` and the pseudo-variable `mem`.
    check(
        "
bb0:
  p = buf
  live: buf mem p
  q = p
  use buf mem q
",
    );
}

#[test]
fn phi_uses_live_on_incoming_edges() {
    // bb3: r = phi [a, bb1], [b, bb2]
    check(
        "
bb0:
  live: a b c
  use c
  -> bb1 bb2
bb1:
  live: a
  use a          # phi operand on edge bb1->bb3
  -> bb3
bb2:
  live: b
  use b
  -> bb3
bb3:
  def r
  use r
",
    );
}

#[test]
fn nested_loops_and_two_markers() {
    check(
        "
bb0:
  def i j n m acc
  -> bb1
bb1:                 # outer loop header
  live: acc i m n
  use i n
  -> bb2 bb5
bb2:
  def j
  -> bb3
bb3:                 # inner loop
  live: acc i j m n
  use j m
  -> bb4 bb6
bb4:
  acc = acc i j
  live: acc i j m n  # marker 1 in the inner loop
  j = j
  -> bb3
bb6:
  i = i
  live: acc i m n    # marker 2 in the outer loop, j dead
  -> bb1
bb5:
  use acc
",
    );
}

#[test]
fn unreachable_blocks_do_not_disturb() {
    check(
        "
bb0:
  live: x
  use x
bb1:
  use y
  -> bb0
",
    );
}
