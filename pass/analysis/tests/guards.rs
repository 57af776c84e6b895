//! Shared-write guards on hand-written control-flow graphs, each with the
//! exact plan expected, and a property test over random graphs: on every
//! path from the entry, every write comes after a guard with no check-in in
//! between.
use dao_analysis::guards::{place_guards, Cfg, Ev, GuardPlan, Place};
use Ev::{Kill as K, Write as W, WriteKill as X};
use Place::{After, Before, EndOf};

/// A graph from `(events, successors)` per block; block 0 is the entry.
fn cfg(blocks: &[(&[Ev], &[usize])]) -> Cfg {
    Cfg {
        events: blocks.iter().map(|(e, _)| e.to_vec()).collect(),
        succs: blocks.iter().map(|(_, s)| s.to_vec()).collect(),
    }
}

fn b(block: usize, event: usize) -> Place {
    Before { block, event }
}

/// Place the guards, check them on random paths too, and compare with the
/// expected plan (every field given by the test: `eager_loops` is the
/// number of innermost natural loops, not headed by the entry, that both
/// check in and write).
fn expect(g: &Cfg, guards: &[Place], writes: usize, loop_covered: usize, hoisted_loops: usize, eager_loops: usize) {
    let plan = place_guards(g);
    check_paths(g, &plan, &mut Rng(0x9e37_79b9_7f4a_7c15), 50, 40);
    assert_eq!(plan, GuardPlan { guards: guards.to_vec(), writes, loop_covered, hoisted_loops, eager_loops });
}

#[test]
fn straight_line_one_guard_before_the_first_write() {
    let g = cfg(&[(&[W], &[1]), (&[W, W], &[])]);
    expect(&g, &[b(0, 0)], 3, 0, 0, 0);
}

#[test]
fn kill_between_writes_two_guards() {
    let g = cfg(&[(&[W, K, W], &[])]);
    expect(&g, &[b(0, 0), b(0, 2)], 2, 0, 0, 0);
}

#[test]
fn write_kill_then_write_two_guards() {
    let g = cfg(&[(&[X, W], &[])]);
    expect(&g, &[b(0, 0), b(0, 1)], 2, 0, 0, 0);
}

#[test]
fn empty_and_write_free_graphs() {
    expect(&Cfg::default(), &[], 0, 0, 0, 0);
    expect(&cfg(&[(&[K], &[1]), (&[], &[1])]), &[], 0, 0, 0, 0);
}

#[test]
fn diamond_guard_in_each_arm() {
    // the join is covered by both arms' guards
    let g = cfg(&[(&[], &[1, 2]), (&[W], &[3]), (&[W], &[3]), (&[W], &[])]);
    expect(&g, &[b(1, 0), b(2, 0)], 3, 0, 0, 0);
}

#[test]
fn diamond_after_a_write_one_guard() {
    let g = cfg(&[(&[W], &[1, 2]), (&[W], &[3]), (&[W], &[3]), (&[], &[])]);
    expect(&g, &[b(0, 0)], 3, 0, 0, 0);
}

#[test]
fn diamond_with_a_kill_in_one_arm() {
    let g = cfg(&[(&[W], &[1, 2]), (&[K], &[3]), (&[W], &[3]), (&[W], &[])]);
    expect(&g, &[b(0, 0), b(3, 0)], 3, 0, 0, 0);
}

// preheader 0 -> header 1 <-> body 2, header 1 -> exit 3
fn simple_loop(body: &'static [Ev], exit: &'static [Ev]) -> Cfg {
    cfg(&[(&[], &[1]), (&[], &[2, 3]), (body, &[1]), (exit, &[])])
}

#[test]
fn kill_free_loop_hoisted_to_the_preheader() {
    expect(&simple_loop(&[W], &[]), &[EndOf(0)], 1, 1, 1, 0);
}

#[test]
fn loop_with_a_kill_before_the_write() {
    // an innermost loop that checks in: guarded on entry and right after
    // the check-in, nothing per write (step 2)
    expect(&simple_loop(&[K, W], &[]), &[EndOf(0), After { block: 2, event: 0 }], 1, 1, 0, 1);
}

#[test]
fn loop_with_a_kill_after_the_write() {
    // entry guard + one after the check-in: the next iteration's write is covered
    expect(&simple_loop(&[W, K], &[]), &[EndOf(0), After { block: 2, event: 1 }], 1, 1, 0, 1);
}

#[test]
fn loop_with_a_write_kill() {
    expect(&simple_loop(&[X], &[]), &[EndOf(0), After { block: 2, event: 0 }], 1, 1, 0, 1);
}

#[test]
fn eager_loops_are_the_innermost_loops_that_check_in_and_write() {
    // outer header 1 -> 2 (kill, write) -> inner header 3 <-> 4 (kill,
    // write), 3 -> outer latch 5 -> 1, 1 -> exit 6: only the inner loop is
    // eager (the outer one contains another loop's header)
    let g = cfg(&[
        (&[], &[1]),
        (&[], &[2, 6]),
        (&[K, W], &[3]),
        (&[], &[4, 5]),
        (&[K, W], &[3]),
        (&[], &[1]),
        (&[], &[]),
    ]);
    let plan = place_guards(&g);
    check_paths(&g, &plan, &mut Rng(7), 50, 40);
    assert_eq!(plan.eager_loops, 1, "{plan:?}");
    assert_eq!(plan.hoisted_loops, 0, "{plan:?}");
    // two sibling innermost loops, each checking in and writing: both eager
    // 0 -> header 1 <-> 2 (kill, write), 1 -> header 3 <-> 4 (write, kill), 3 -> exit 5
    let g = cfg(&[(&[], &[1]), (&[], &[2, 3]), (&[K, W], &[1]), (&[], &[4, 5]), (&[W, K], &[3]), (&[], &[])]);
    let plan = place_guards(&g);
    check_paths(&g, &plan, &mut Rng(8), 50, 40);
    assert_eq!(plan.eager_loops, 2, "{plan:?}");
}

#[test]
fn write_after_a_hoisted_loop_is_covered() {
    expect(&simple_loop(&[W], &[W]), &[EndOf(0)], 2, 1, 1, 0);
}

#[test]
fn write_before_a_kill_free_loop_covers_its_entry() {
    // the preheader's own guard is available at its end: no second one
    let g = cfg(&[(&[W], &[1]), (&[], &[2, 3]), (&[W], &[1]), (&[], &[])]);
    expect(&g, &[b(0, 0)], 2, 1, 1, 0);
}

#[test]
fn write_after_a_loop_exit_with_an_unguarded_predecessor() {
    // 0 -> preheader 4 -> header 1 <-> 2, 1 -> exit 3; 0 -> 5 -> 3
    let g = cfg(&[(&[], &[4, 5]), (&[], &[2, 3]), (&[W], &[1]), (&[W], &[]), (&[], &[1]), (&[], &[3])]);
    expect(&g, &[b(3, 0), EndOf(4)], 2, 1, 1, 0);
}

#[test]
fn kill_free_inner_loop_in_an_outer_loop_with_a_kill() {
    // outer header 1 -> 2 (kill; inner preheader) -> inner header 3 <-> 4,
    // 3 -> outer latch 5 -> 1, 1 -> exit 6
    let g = cfg(&[
        (&[], &[1]),
        (&[], &[2, 6]),
        (&[K], &[3]),
        (&[], &[4, 5]),
        (&[W], &[3]),
        (&[], &[1]),
        (&[], &[]),
    ]);
    expect(&g, &[EndOf(2)], 1, 1, 1, 0);
}

#[test]
fn nested_kill_free_loops_hoisted_to_the_outer_entry_only() {
    // as above with no kill, and a write in the outer latch too
    let g = cfg(&[
        (&[], &[1]),
        (&[], &[2, 6]),
        (&[], &[3]),
        (&[], &[4, 5]),
        (&[W], &[3]),
        (&[W], &[1]),
        (&[], &[]),
    ]);
    expect(&g, &[EndOf(0)], 2, 2, 1, 0);
}

#[test]
fn loop_header_with_two_outside_predecessors() {
    let g = cfg(&[(&[], &[1, 2]), (&[], &[3]), (&[], &[3]), (&[], &[4, 5]), (&[W], &[3]), (&[], &[])]);
    expect(&g, &[EndOf(1), EndOf(2)], 1, 1, 1, 0);
}

#[test]
fn loop_header_with_one_guarded_outside_predecessor() {
    let g = cfg(&[(&[], &[1, 2]), (&[W], &[3]), (&[], &[3]), (&[], &[4, 5]), (&[W], &[3]), (&[], &[])]);
    expect(&g, &[b(1, 0), EndOf(2)], 2, 1, 1, 0);
}

#[test]
fn loop_with_two_latches() {
    // header 1 -> 2 -> {3, 4} -> 1, 1 -> exit 5
    let g = cfg(&[(&[], &[1]), (&[], &[2, 5]), (&[], &[3, 4]), (&[W], &[1]), (&[W], &[1]), (&[], &[])]);
    expect(&g, &[EndOf(0)], 2, 2, 1, 0);
    // a kill on one latch's path: no hoisting, but the loop is innermost:
    // entry guard and a guard after the kill
    let g = cfg(&[(&[], &[1]), (&[], &[2, 5]), (&[], &[3, 4]), (&[W], &[1]), (&[K, W], &[1]), (&[], &[])]);
    expect(&g, &[EndOf(0), After { block: 4, event: 0 }], 2, 2, 0, 1);
}

#[test]
fn two_loops_share_an_outside_predecessor() {
    // 0 -> headers 1 and 3; one guard at the end of 0, not two
    let g = cfg(&[(&[], &[1, 3]), (&[], &[2, 5]), (&[W], &[1]), (&[], &[4, 5]), (&[W], &[3]), (&[], &[])]);
    expect(&g, &[EndOf(0)], 2, 2, 2, 0);
}

#[test]
fn loop_headed_by_the_entry_is_not_hoisted() {
    let g = cfg(&[(&[W], &[0, 1]), (&[], &[])]);
    expect(&g, &[b(0, 0)], 1, 0, 0, 0);
}

#[test]
fn inner_loop_of_a_loop_headed_by_the_entry_is_hoisted() {
    // 0 -> 1 <-> 2, 1 -> 3 -> {0, 4}
    let g = cfg(&[(&[], &[1]), (&[], &[2, 3]), (&[W], &[1]), (&[], &[0, 4]), (&[], &[])]);
    expect(&g, &[EndOf(0)], 1, 1, 1, 0);
}

#[test]
fn irreducible_cycle_guarded_conservatively() {
    // 0 -> {1, 2}, 1 <-> 2: two entries, no natural loop
    let g = cfg(&[(&[], &[1, 2]), (&[W], &[2]), (&[W], &[1, 3]), (&[W], &[])]);
    expect(&g, &[b(1, 0), b(2, 0)], 3, 0, 0, 0);
    let g = cfg(&[(&[], &[1, 2]), (&[W, K], &[2]), (&[K, W], &[1, 3]), (&[W], &[])]);
    expect(&g, &[b(1, 0), b(2, 1)], 3, 0, 0, 0);
}

#[test]
fn kill_free_loop_inside_an_irreducible_region() {
    // 0 -> {1, 2}, 1 <-> 2 (irreducible), 2 -> loop 3 <-> 4, 3 -> 1
    let g = cfg(&[(&[], &[1, 2]), (&[K], &[2]), (&[], &[1, 3]), (&[], &[4, 1]), (&[W], &[3])]);
    expect(&g, &[EndOf(2)], 1, 1, 1, 0);
}

#[test]
fn unreachable_blocks_are_ignored() {
    // block 1 is unreachable and branches to the entry and to block 2
    let g = cfg(&[(&[W], &[2]), (&[W, K], &[0, 2]), (&[W], &[])]);
    expect(&g, &[b(0, 0)], 2, 0, 0, 0);
    // an unreachable loop
    let g = cfg(&[(&[], &[]), (&[], &[2]), (&[W], &[1])]);
    expect(&g, &[], 0, 0, 0, 0);
}

#[test]
fn places_are_ordered_by_position() {
    let mut v = vec![EndOf(1), b(1, 3), b(0, 7), EndOf(0), b(1, 0)];
    v.sort();
    assert_eq!(v, [b(0, 7), EndOf(0), b(1, 0), b(1, 3), EndOf(1)]);
}

// ---- the property test ----

/// xorshift64*: small, deterministic, good enough for shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random graph of at most 12 blocks: mostly forward edges with some back
/// edges (so loops, nested loops and irreducible cycles all turn up) and a
/// few blocks with no events, no successors or no predecessors.
fn random_cfg(rng: &mut Rng) -> Cfg {
    let n = 1 + rng.below(12);
    let mut g = Cfg::default();
    for b in 0..n {
        let events = (0..rng.below(4))
            .map(|_| match rng.below(10) {
                0..=5 => W,
                6..=8 => K,
                _ => X,
            })
            .collect();
        let mut succs = Vec::new();
        for _ in 0..rng.below(3) + usize::from(b + 1 < n && rng.below(3) > 0) {
            let s = match rng.below(4) {
                0 => rng.below(n),                // anywhere, back edges included
                _ => (b + 1 + rng.below(2)).min(n - 1), // the next block or the one after
            };
            if !succs.contains(&s) {
                succs.push(s);
            }
        }
        g.events.push(events);
        g.succs.push(succs);
    }
    g
}

/// Walk `paths` random paths of at most `len` blocks from the entry and
/// check the rule on each: a write only after a guard, with no check-in in
/// between. Also checks the plan's form: sorted, no duplicates, `Before`
/// guards only at writes.
fn check_paths(g: &Cfg, plan: &GuardPlan, rng: &mut Rng, paths: usize, len: usize) {
    assert!(plan.guards.windows(2).all(|w| w[0] < w[1]), "guards not sorted or duplicated: {:?}", plan.guards);
    for &p in &plan.guards {
        if let Before { block, event } = p {
            assert!(g.events[block][event] != K, "guard {p:?} before a kill");
        }
    }
    if g.succs.is_empty() {
        return;
    }
    for _ in 0..paths {
        let mut avail = false;
        let mut at = 0;
        let mut path = vec![0];
        for step in 0..len {
            for (i, &e) in g.events[at].iter().enumerate() {
                if plan.guards.binary_search(&Before { block: at, event: i }).is_ok() {
                    avail = true;
                }
                assert!(
                    !matches!(e, W | X) || avail,
                    "unguarded write {:?} on path {path:?}\ncfg: {g:?}\nplan: {plan:?}",
                    Before { block: at, event: i }
                );
                if matches!(e, K | X) {
                    avail = plan.guards.binary_search(&After { block: at, event: i }).is_ok();
                }
            }
            let succs = &g.succs[at];
            if succs.is_empty() || step + 1 == len {
                break;
            }
            if plan.guards.binary_search(&EndOf(at)).is_ok() {
                avail = true;
            }
            at = succs[rng.below(succs.len())];
            path.push(at);
        }
    }
}

#[test]
fn random_graphs_never_miss_a_guard() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut hoisted, mut covered, mut guards, mut writes) = (0, 0, 0, 0);
    for _ in 0..3000 {
        let g = random_cfg(&mut rng);
        let plan = place_guards(&g);
        assert_eq!(plan, place_guards(&g), "not deterministic");
        assert!(plan.loop_covered <= plan.writes);
        check_paths(&g, &plan, &mut rng, 40, 50);
        hoisted += plan.hoisted_loops;
        covered += plan.loop_covered;
        guards += plan.guards.len();
        writes += plan.writes;
    }
    // the generator must exercise hoisting, and guards must be fewer than writes
    assert!(hoisted > 100 && covered > 200, "hoisted {hoisted} loops covering {covered} writes");
    assert!(guards < writes, "{guards} guards for {writes} writes");
}
