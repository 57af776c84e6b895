//! Where to put the shared-write guards of the non-blocking checkpoint
//! protocol.
//!
//! A thread of a team *checks in* (saves its private state) at a checkpoint
//! marker, a barrier or a call that may reach one, and runs on; until the
//! master has saved the shared state it must not write shared memory. A
//! *guard* (a load of a flag and a rarely taken call that may wait) makes it
//! safe to write until the next check-in. The rule this module enforces:
//!
//! > every shared write executes only after a guard has executed on the
//! > same thread with no check-in in between.
//!
//! A function is given as a [`Cfg`] of blocks of [`Ev`] events: a shared
//! [`Ev::Write`], a check-in [`Ev::Kill`], or [`Ev::WriteKill`] (a call that
//! writes shared memory and may also check in: guarded before, killed
//! after). [`place_guards`] answers with a [`GuardPlan`] in two steps:
//!
//! 1. **Kill-free loops.** A natural loop none of whose blocks checks in
//!    needs one guard on entry, not one per iteration: the flag cannot change
//!    meaning while the thread stays in the loop. Every write in such a loop
//!    is covered by the outermost kill-free loop around it, which gets a
//!    guard at the end of each predecessor of its header outside the loop
//!    (unless a guard is already available there, see below). This is sound
//!    because the header of a natural loop dominates its body, so a path
//!    from the entry gets into the loop only through an edge from such a
//!    predecessor to the header, and then meets no check-in until it leaves.
//!    A loop headed by the entry block has no such predecessor (the path
//!    starts inside it) and is never hoisted to; kill-free loops nested in it
//!    still are.
//! 2. **Innermost loops that check in.** A loop with a check-in point
//!    and no loop nested in it (typically a marker in a hot loop) would
//!    need a guard at every iteration's first write after the check-in;
//!    instead it gets a guard on entry (as above) and one right after each
//!    check-in point ([`Place::After`]), so every point of the loop is
//!    covered. The price: a thread that checks in there waits at once, not
//!    at its next write, which in such a loop is a few instructions later
//!    anyway. Outer loops keep the lazy placement (a thread that checks in
//!    at a step loop's marker runs its private work before it waits).
//! 3. **Must-availability.** Everything else is a forward must data-flow
//!    problem solved by the crate's engine ([`crate::dataflow`]): a guard is
//!    available at the entry of a block iff it is available at the exit of
//!    every predecessor; a write leaves one available (a guard is placed just
//!    before it where none is); a check-in removes it. Solved to its greatest
//!    fixpoint (optimistic start), a guard available around a loop's back
//!    edge stays available at its header, so a loop whose iterations always
//!    end guarded needs no new guard at its head (until 2026-11 this step
//!    was one non-iterated pass that counted back edges as "not
//!    available": 1 to 5 guards more per module in the test programs).
//!
//! What is conservative (costs a guard, never misses one): irreducible
//! cycles are not loops and get no hoisting; a loop's entry guard runs on
//! every path out of the predecessor's end, not only on the edge into the
//! header. Blocks unreachable from the entry never run and are ignored
//! altogether (as predecessors too). The greatest fixpoint is sound because
//! the transfer functions are gen/kill (distributive): it equals the
//! meet over all paths from the entry, where "available" means a write or
//! guard since the last check-in on every such path.
//!
//! The caller's contract: `events[b]` are the events of the non-terminator
//! instructions of `b`, in order, and a guard at [`Place::EndOf`] goes after
//! all of them and before the terminator; a terminator that may write shared
//! memory or check in (an `invoke` of such a call) must be split off into its
//! own block first.
use crate::dataflow::{solve, Analysis, Direction};
use crate::graph::{reachable_reverse_postorder, Graph};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// What one instruction does, as far as guards are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ev {
    /// Writes shared memory: needs a guard since the last check-in.
    Write,
    /// May check in: no guard is available after it.
    Kill,
    /// A call that may write shared memory and may check in: needs a guard
    /// before it, none is available after it.
    WriteKill,
}

impl Ev {
    fn writes(self) -> bool {
        matches!(self, Ev::Write | Ev::WriteKill)
    }
    fn kills(self) -> bool {
        matches!(self, Ev::Kill | Ev::WriteKill)
    }
}

/// A function: block `b` has successors `succs[b]` and events `events[b]`,
/// in program order. Block 0 is the entry.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    pub succs: Vec<Vec<usize>>,
    pub events: Vec<Vec<Ev>>,
}

/// Where a guard goes.
///
/// Places are ordered by block, and within a block by position: `Before`
/// and `After` in event order, then `EndOf` (the derived order, by variant then field,
/// would not be positional).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Just before event `event` of `block`.
    Before { block: usize, event: usize },
    /// Right after event `event` of `block` (a check-in point of an
    /// innermost loop, step 2).
    After { block: usize, event: usize },
    /// At the end of the block, after its last event, before its terminator.
    EndOf(usize),
}

impl Place {
    pub fn block(self) -> usize {
        match self {
            Place::Before { block, .. } | Place::After { block, .. } | Place::EndOf(block) => block,
        }
    }
    fn key(self) -> (usize, usize, usize) {
        match self {
            Place::Before { block, event } => (block, 0, 2 * event),
            Place::After { block, event } => (block, 0, 2 * event + 1),
            Place::EndOf(block) => (block, 1, 0),
        }
    }
}

impl Ord for Place {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Place {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuardPlan {
    /// The guards, sorted (see [`Place`]), no two at the same place.
    pub guards: Vec<Place>,
    /// `Write` and `WriteKill` events in reachable blocks.
    pub writes: usize,
    /// Writes covered by a hoisted loop's entry guard (none in its body).
    pub loop_covered: usize,
    /// Kill-free loops with writes whose guards were hoisted to their entry.
    pub hoisted_loops: usize,
    /// Innermost loops with a check-in point and writes: guarded on entry
    /// and right after each check-in (step 2).
    pub eager_loops: usize,
}

/// Decide the guards of `cfg` (see the module comment).
pub fn place_guards(cfg: &Cfg) -> GuardPlan {
    let n = cfg.succs.len();
    assert_eq!(cfg.events.len(), n, "one event list per block");
    if n == 0 {
        return GuardPlan::default();
    }
    let rpo = reachable_reverse_postorder(n, |b| &cfg.succs[b]);
    let mut rpo_index = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        rpo_index[b] = i;
    }
    let reachable = |b: usize| rpo_index[b] != usize::MAX;
    let mut preds = vec![Vec::new(); n];
    for &b in &rpo {
        for &s in &cfg.succs[b] {
            preds[s].push(b);
        }
    }
    let idom = dominators(&rpo, &rpo_index, &preds);
    let loops = natural_loops(&rpo, cfg, &preds, &idom);
    let kills = |b: usize| cfg.events[b].iter().any(|e| e.kills());

    // 1. the outermost hoistable kill-free loop around each write. Natural
    // loops are nested or disjoint, so the kill-free loops around a block
    // form a chain and the largest is the outermost.
    let candidates: Vec<(usize, &BTreeSet<usize>)> = loops
        .iter()
        .filter(|(&h, body)| h != 0 && !body.iter().any(|&b| kills(b)))
        .map(|(&h, body)| (h, body))
        .collect();
    let mut hoisted: BTreeMap<usize, &BTreeSet<usize>> = BTreeMap::new(); // header -> body
    for &b in &rpo {
        if !cfg.events[b].contains(&Ev::Write) {
            continue;
        }
        let outermost = candidates.iter().filter(|(_, body)| body.contains(&b)).max_by_key(|(_, body)| body.len());
        if let Some(&(h, body)) = outermost {
            hoisted.insert(h, body);
        }
    }
    // 2. innermost loops that check in and write: guarded on entry and
    // right after every check-in, so no write in them needs its own guard
    let eager: BTreeMap<usize, &BTreeSet<usize>> = loops
        .iter()
        .filter(|(&h, body)| {
            h != 0
                && body.iter().any(|&b| kills(b))
                && body.iter().any(|&b| cfg.events[b].iter().any(|e| e.writes()))
                && !loops.keys().any(|&h2| h2 != h && body.contains(&h2))
        })
        .map(|(&h, body)| (h, body))
        .collect();
    let mut after_kill = BTreeSet::new();
    for body in eager.values() {
        for &b in body.iter() {
            for (i, e) in cfg.events[b].iter().enumerate() {
                if e.kills() {
                    after_kill.insert((b, i));
                }
            }
        }
    }
    let mut in_hoisted = vec![false; n];
    let mut entry_guard_at = vec![false; n]; // outside predecessors of hoisted headers
    let mut loop_covered = 0;
    for (&h, body) in hoisted.iter().chain(eager.iter()) {
        for &b in body.iter() {
            in_hoisted[b] = true;
            loop_covered += cfg.events[b].iter().filter(|e| e.writes()).count();
        }
        for &p in &preds[h] {
            if !body.contains(&p) {
                entry_guard_at[p] = true;
            }
        }
    }

    // 3. must-availability: the data-flow fixpoint, then one scan of each
    // block from its entry fact placing a guard before every write where
    // none is available (exactly the writes the transfer function assumes
    // guarded)
    let view = Reachable { cfg, succs: (0..n).map(|b| if reachable(b) { cfg.succs[b].clone() } else { Vec::new() }).collect() };
    let avail_problem = Availability { in_hoisted: &in_hoisted, after_kill: &after_kill, entry_guard_at: &entry_guard_at };
    let facts = solve(&avail_problem, &view);
    let mut guards = BTreeSet::new();
    let mut writes = 0;
    for &b in &rpo {
        writes += cfg.events[b].iter().filter(|e| e.writes()).count();
        let mut avail = facts.entry[b];
        for (i, &e) in cfg.events[b].iter().enumerate() {
            if e.writes() && !avail {
                guards.insert(Place::Before { block: b, event: i });
            }
            avail_problem.apply_stmt(&mut avail, b, i, &e);
            if e.kills() && avail {
                guards.insert(Place::After { block: b, event: i });
            }
        }
        // a hoisted loop's entry guard, unless one is available here anyway
        if entry_guard_at[b] && !avail {
            guards.insert(Place::EndOf(b));
        }
    }
    debug_assert!(guards.iter().all(|g| reachable(g.block())));
    GuardPlan { guards: guards.into_iter().collect(), writes, loop_covered, hoisted_loops: hoisted.len(), eager_loops: eager.len() }
}

/// The graph the availability problem runs on: `cfg` with the edges out of
/// unreachable blocks removed (they never run, so they are no path's
/// predecessors).
struct Reachable<'a> {
    cfg: &'a Cfg,
    succs: Vec<Vec<usize>>,
}

impl Graph for Reachable<'_> {
    type Stmt = Ev;
    fn num_blocks(&self) -> usize {
        self.succs.len()
    }
    fn succs(&self, b: usize) -> &[usize] {
        &self.succs[b]
    }
    fn stmts(&self, b: usize) -> &[Ev] {
        &self.cfg.events[b]
    }
}

/// Step 3 as a data-flow problem: forward must-availability of a guard.
/// The fact is "a guard has executed since the last check-in on every path
/// here". A write leaves a guard available (it had one, or one is placed
/// before it); a check-in removes it, except where step 2 puts a guard right
/// after it; a block in a hoisted loop starts with one (the loop's entry
/// guard); a hoisted loop's outside predecessor ends with one.
struct Availability<'a> {
    in_hoisted: &'a [bool],
    after_kill: &'a BTreeSet<(usize, usize)>,
    entry_guard_at: &'a [bool],
}

impl Analysis<Reachable<'_>> for Availability<'_> {
    type Domain = bool;
    const DIRECTION: Direction = Direction::Forward;
    fn bottom(&self, _: &Reachable) -> bool {
        true
    }
    fn boundary(&self, _: &Reachable) -> bool {
        false
    }
    fn join(&self, into: &mut bool, other: &bool) {
        *into &= *other;
    }
    fn apply_stmt(&self, avail: &mut bool, b: usize, i: usize, e: &Ev) {
        if e.writes() {
            *avail = true;
        }
        if e.kills() {
            *avail = self.after_kill.contains(&(b, i));
        }
    }
    fn apply_block_start(&self, avail: &mut bool, b: usize) {
        *avail |= self.in_hoisted[b];
    }
    fn apply_block_end(&self, avail: &mut bool, b: usize) {
        *avail |= self.entry_guard_at[b];
    }
}

/// Immediate dominators of the reachable blocks (`idom[0] == 0`; `None` for
/// unreachable ones), by Cooper, Harvey and Kennedy's "A Simple, Fast
/// Dominance Algorithm". `preds` holds reachable predecessors only.
fn dominators(rpo: &[usize], rpo_index: &[usize], preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom = vec![None; rpo_index.len()];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while rpo_index[a] > rpo_index[b] {
                a = idom[a].unwrap();
            }
            while rpo_index[b] > rpo_index[a] {
                b = idom[b].unwrap();
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo[1..] {
            let mut new = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(d) => intersect(&idom, p, d),
                    });
                }
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Whether `a` dominates `b` (both reachable).
fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        if b == 0 {
            return false;
        }
        b = idom[b].unwrap();
    }
}

/// Natural loops by header: the header plus every block that reaches a
/// latch (the source of a back edge `u -> h`, `h` dominating `u`) without
/// passing the header; loops sharing a header are merged. Reachable blocks
/// only; a cycle with no back edge (irreducible) is no loop.
fn natural_loops(rpo: &[usize], cfg: &Cfg, preds: &[Vec<usize>], idom: &[Option<usize>]) -> BTreeMap<usize, BTreeSet<usize>> {
    let mut loops: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for &u in rpo {
        for &h in &cfg.succs[u] {
            if !dominates(idom, h, u) {
                continue;
            }
            let body = loops.entry(h).or_insert_with(|| BTreeSet::from([h]));
            let mut work = vec![u];
            while let Some(b) = work.pop() {
                if body.insert(b) {
                    work.extend(&preds[b]);
                }
            }
        }
    }
    loops
}

