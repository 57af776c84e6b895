//! Construct bodies on hand-written control-flow graphs (the shapes clang
//! and flang emit around `single`, `critical`, dynamic loops, `sections`).
//! Statement tags: `use begin` / `use end` are the runtime calls that open
//! and close the construct (`use start`, when present, is where the forward
//! walk starts instead of the begins: a dynamic loop starts at its
//! `dispatch_next`, which is also its end); `use in` must be inside, `use
//! out` outside.
use dao_analysis::omp::between;
use dao_analysis::textcfg::parse;

fn check(src: &str) {
    let p = parse(src);
    let tagged = |name: &str| -> Vec<(usize, usize)> {
        let Some(v) = p.names.iter().position(|n| n == name) else { return vec![] };
        let mut out = vec![];
        for (b, blk) in p.body.blocks.iter().enumerate() {
            for (i, s) in blk.stmts.iter().enumerate() {
                if s.uses.contains(&v) {
                    out.push((b, i));
                }
            }
        }
        out
    };
    let (begins, ends, starts) = (tagged("begin"), tagged("end"), tagged("start"));
    let starts = if starts.is_empty() { begins.clone() } else { starts };
    let inside = between(&p.body, &starts, |pt| ends.contains(&pt), |pt| begins.contains(&pt));
    let (ins, outs) = (tagged("in"), tagged("out"));
    assert!(!ins.is_empty() || !outs.is_empty(), "test has no expectations");
    for pt in &ins {
        assert!(inside.contains(pt), "{pt:?} should be inside; inside = {inside:?}");
    }
    for pt in &outs {
        assert!(!inside.contains(pt), "{pt:?} should be outside; inside = {inside:?}");
    }
    for pt in begins.iter().chain(&ends).chain(&starts) {
        assert!(!inside.contains(pt), "the begin/end call {pt:?} itself is not inside");
    }
}

#[test]
fn clang_single_body_and_the_skip_path() {
    // if (__kmpc_single()) { body; __kmpc_end_single(); } after;
    check(
        "
bb0:
  use out
  use begin
  -> bb1 bb2
bb1:
  use in
  use in
  use end
  -> bb2
bb2:
  use out
",
    );
}

#[test]
fn construct_in_a_loop_with_a_marker_after_it() {
    // for (...) { single { body } marker; }: the marker reaches the begin
    // again through the back edge, but no end without passing the begin
    check(
        "
bb0:
  -> bb1
bb1:
  use begin
  -> bb2 bb3
bb2:
  use in
  use end
  -> bb3
bb3:
  use out          # the marker after the construct
  -> bb1 bb4
bb4:
  use out
",
    );
}

#[test]
fn flang_end_call_in_a_join_block() {
    // flang: the body branches, both paths meet in a block that calls end
    check(
        "
bb0:
  use begin
  -> bb1 bb2
bb1:
  use in
  -> bb3
bb2:
  use in
  -> bb3
bb3:
  use in
  use end
  use out
",
    );
}

#[test]
fn critical_with_an_early_exit_path() {
    // critical { if (x) { end_critical; return; } body; } end_critical
    check(
        "
bb0:
  use begin
  use in
  -> bb1 bb2
bb1:
  use end
  use out
bb2:
  use in
  use end
  -> bb3
bb3:
  use out
",
    );
}

#[test]
fn dynamic_loop_body_between_dispatch_next_calls() {
    // init; while (dispatch_next) { for (i in chunk) body; }: the walk
    // starts at dispatch_next and ends at it; dispatch_init stops the
    // backward walk
    check(
        "
bb0:
  use out
  use begin        # __kmpc_dispatch_init
  -> bb1
bb1:
  use start end    # __kmpc_dispatch_next
  -> bb2 bb4
bb2:
  use in
  -> bb3
bb3:
  use in
  -> bb2 bb1
bb4:
  use out
",
    );
}

#[test]
fn unreachable_and_separate_constructs() {
    // two singles one after the other: the code between them is outside
    check(
        "
bb0:
  use begin
  use in
  use end
  use out
  use begin
  use in
  use end
  use out
  -> bb1
bb1:
  use out
",
    );
}
