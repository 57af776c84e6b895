//! Byte-level liveness of partly rewritten objects (issue #15): which
//! *bytes* of an object some path may read before overwriting them.
//!
//! The variable-level liveness ([`crate::liveness`]) kills an object only
//! where a statement overwrites all of it (`defs`). A loop that rewrites
//! the interior of a grid and leaves its halo alone, or a callee that
//! rewrites the first half of an array, is a partial kill
//! ([`crate::body::Stmt::pdefs`]): the same backward may-analysis, with a
//! set of byte intervals per object instead of one bit,
//! `live_in = uses ∪ (live_out − defs − pdefs)`, a use making every byte
//! of the object live (reads have no byte boxes here: a read of one byte
//! keeps the whole object, which only over-approximates).
//!
//! Only the objects named in some partial kill are tracked (the others are
//! all or nothing and the bit says which). The lattice per object is the
//! set of byte intervals, ordered by inclusion, join = union; every
//! endpoint comes from an object size or a partial kill, so the chains are
//! finite and the fixpoint exists. Soundness: a partial kill's intervals
//! are must-writes (the front only emits bytes certainly written on every
//! execution that reaches the statement's end, as for `defs`), so a byte
//! removed by it is overwritten before any later read on that path; the
//! union over paths keeps every byte some path may read first. The result
//! is a subset of the variable-level one: an object whose bytes are all
//! dead here may be dropped although its bit is set (two loops that
//! rewrite the interior and the halo of one grid).
use crate::body::{Body, Stmt, VarId};
use crate::dataflow::{solve, Analysis, Direction, Results};
use crate::graph::BlockId;
use crate::intervals::Intervals;

/// The variables named in some partial kill of the body, each once, in
/// order of first appearance.
pub fn tracked(body: &Body) -> Vec<VarId> {
    let mut out = Vec::new();
    for blk in &body.blocks {
        for st in &blk.stmts {
            for (v, _) in &st.pdefs {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
        }
    }
    out
}

struct ByteLiveness<'a> {
    /// (variable, size in bytes) of each tracked object.
    objs: &'a [(VarId, u64)],
    /// Index into `objs` by variable.
    ix: Vec<Option<usize>>,
    /// Every tracked object wholly live at the exits (a summary's "all
    /// live after the call"), or nothing.
    all_at_exit: bool,
}

impl<'a> ByteLiveness<'a> {
    fn new(body: &Body, objs: &'a [(VarId, u64)], all_at_exit: bool) -> Self {
        let mut ix = vec![None; body.num_vars];
        for (k, &(v, _)) in objs.iter().enumerate() {
            ix[v] = Some(k);
        }
        ByteLiveness {
            objs,
            ix,
            all_at_exit,
        }
    }
}

impl Analysis<Body> for ByteLiveness<'_> {
    type Domain = Vec<Intervals>;
    const DIRECTION: Direction = Direction::Backward;
    fn bottom(&self, _body: &Body) -> Vec<Intervals> {
        vec![Intervals::default(); self.objs.len()]
    }
    fn boundary(&self, body: &Body) -> Vec<Intervals> {
        if self.all_at_exit {
            self.objs
                .iter()
                .map(|&(_, size)| Intervals::whole(size))
                .collect()
        } else {
            self.bottom(body)
        }
    }
    fn join(&self, into: &mut Vec<Intervals>, other: &Vec<Intervals>) {
        for (a, b) in into.iter_mut().zip(other) {
            if !b.is_empty() {
                *a = a.union(b);
            }
        }
    }
    fn apply_stmt(&self, fact: &mut Vec<Intervals>, _b: BlockId, _i: usize, stmt: &Stmt) {
        for &d in &stmt.defs {
            if let Some(k) = self.ix[d] {
                fact[k] = Intervals::default();
            }
        }
        for (v, w) in &stmt.pdefs {
            if let Some(k) = self.ix[*v] {
                fact[k] = fact[k].minus(w);
            }
        }
        for &u in &stmt.uses {
            if let Some(k) = self.ix[u] {
                fact[k] = match stmt.puses.iter().find(|(v, _)| *v == u) {
                    Some((_, r)) => fact[k].union(r),
                    None => Intervals::whole(self.objs[k].1),
                };
            }
        }
    }
}

/// The live bytes of the tracked objects at every statement boundary of
/// a body, nothing live at its exits (the liveness of one frame's
/// continuation, as [`crate::liveness::LiveSets`]).
pub struct ByteLive<'a> {
    a: ByteLiveness<'a>,
    results: Results<Vec<Intervals>>,
}

impl<'a> ByteLive<'a> {
    /// `objs`: (variable, size) of the objects to track (usually the
    /// globals among [`tracked`]).
    pub fn compute(body: &Body, objs: &'a [(VarId, u64)]) -> Self {
        let a = ByteLiveness::new(body, objs, false);
        let results = solve(&a, body);
        ByteLive { a, results }
    }
    /// Live bytes of `v` before statement `i` of block `b` (`i == len`:
    /// live-out); `None` if `v` is not tracked.
    pub fn before(&self, body: &Body, b: BlockId, i: usize, v: VarId) -> Option<Intervals> {
        let k = self.a.ix.get(v).copied().flatten()?;
        Some(
            self.results
                .stmt_facts(&self.a, body, b)
                .swap_remove(i)
                .swap_remove(k),
        )
    }
    /// Live bytes of `v` after statement `i` of block `b`.
    pub fn after(&self, body: &Body, b: BlockId, i: usize, v: VarId) -> Option<Intervals> {
        self.before(body, b, i + 1, v)
    }
}

/// What a call of a function reads first, from its body: for each tracked
/// object, the bytes some path from the entry may read before overwriting
/// them (live at the entry when nothing is live at the exits). With
/// [`entry_partial_kills`] this is the call's exact transfer function on
/// those objects: byte-level liveness is a gen/kill problem, so
/// `live_before = exposed ∪ (live_after − killed)`.
pub fn entry_exposed(body: &Body, objs: &[(VarId, u64)]) -> Vec<(VarId, Intervals)> {
    let a = ByteLiveness::new(body, objs, false);
    let results = solve(&a, body);
    objs.iter()
        .zip(&results.entry[body.entry()])
        .map(|(&(v, _), live)| (v, live.clone()))
        .collect()
}

/// The partial kills of a call of a function, from its body: for each
/// tracked object, the bytes every path from the entry to an exit
/// overwrites before any read (not live at the entry even when every byte
/// is live at the exits), when there are some. An object all of whose
/// bytes are killed is listed too (its variable-level kill may not see it:
/// two partial kills that together cover it). As in
/// [`crate::sections::entry_summary`], a path that never returns kills
/// nothing.
pub fn entry_partial_kills(body: &Body, objs: &[(VarId, u64)]) -> Vec<(VarId, Intervals)> {
    let a = ByteLiveness::new(body, objs, true);
    let results = solve(&a, body);
    let at_entry = &results.entry[body.entry()];
    objs.iter()
        .zip(at_entry)
        .filter_map(|(&(v, size), live)| {
            let killed = Intervals::whole(size).minus(live);
            (!killed.is_empty()).then_some((v, killed))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::textcfg::parse;

    fn iv(v: &[(i64, i64)]) -> Intervals {
        Intervals::from_unsorted(v.to_vec())
    }

    #[test]
    fn minus_and_union() {
        let a = iv(&[(0, 100)]);
        assert_eq!(
            a.minus(&iv(&[(10, 20), (30, 40)])),
            iv(&[(0, 10), (20, 30), (40, 100)])
        );
        assert_eq!(a.minus(&iv(&[(-5, 5), (95, 200)])), iv(&[(5, 95)]));
        assert_eq!(a.minus(&iv(&[(0, 100)])), iv(&[]));
        assert_eq!(
            iv(&[(0, 10), (20, 30)]).minus(&iv(&[(5, 25)])),
            iv(&[(0, 5), (25, 30)])
        );
        assert_eq!(
            iv(&[(0, 10), (20, 30)]).minus(&iv(&[])),
            iv(&[(0, 10), (20, 30)])
        );
        assert_eq!(
            iv(&[(0, 10)]).union(&iv(&[(10, 20), (40, 50)])),
            iv(&[(0, 20), (40, 50)])
        );
        assert_eq!(
            iv(&[(0, 10), (20, 30)]).clip(5, 25),
            iv(&[(5, 10), (20, 25)])
        );
        assert_eq!(iv(&[(0, 10), (20, 30)]).bytes(), 20);
    }

    /// A grid whose interior one loop rewrites: the halo stays live before
    /// it, and what a later read keeps whole.
    #[test]
    fn halo_stays_live() {
        let p = parse(
            "bb0:
               pdef g 8..56
               use g
             ",
        );
        let g = p.var("g");
        let objs = [(g, 64)];
        let bl = ByteLive::compute(&p.body, &objs);
        assert_eq!(bl.before(&p.body, 0, 0, g), Some(iv(&[(0, 8), (56, 64)])));
        assert_eq!(bl.before(&p.body, 0, 1, g), Some(iv(&[(0, 64)])));
        assert_eq!(bl.before(&p.body, 0, 2, g), Some(iv(&[])));
    }

    /// Two partial kills that together cover the object make it dead,
    /// which the variable-level liveness cannot see; a path around one of
    /// them keeps its bytes.
    #[test]
    fn two_partial_kills_and_a_branch() {
        let p = parse(
            "bb0:
               pdef g 0..32
               -> bb1 bb2
             bb1:
               pdef g 32..64
               -> bb3
             bb2:
               -> bb3
             bb3:
               use g
             ",
        );
        let g = p.var("g");
        let objs = [(g, 64)];
        let bl = ByteLive::compute(&p.body, &objs);
        assert_eq!(bl.before(&p.body, 1, 0, g), Some(iv(&[(0, 32)])));
        assert_eq!(bl.after(&p.body, 1, 0, g), Some(iv(&[(0, 64)])));
        // the bb2 path keeps [32, 64)
        assert_eq!(bl.before(&p.body, 0, 0, g), Some(iv(&[(32, 64)])));
        let p2 = parse(
            "bb0:
               pdef g 0..32
               pdef g 32..64
               use g
             ",
        );
        let bl2 = ByteLive::compute(&p2.body, &objs);
        assert_eq!(bl2.before(&p2.body, 0, 0, g), Some(iv(&[])));
        assert_eq!(
            entry_partial_kills(&p2.body, &objs),
            vec![(g, iv(&[(0, 64)]))]
        );
        assert_eq!(entry_exposed(&p2.body, &objs), vec![(g, iv(&[]))]);
    }

    /// A partial use reads only its bytes; a call summarised by
    /// (exposed, killed) behaves as the body it stands for.
    #[test]
    fn partial_uses_and_call_transfer() {
        let callee = parse(
            "bb0:
               use g      # reads the whole of g ...
               pdef g 8..56
               use g
             ",
        );
        let g = callee.var("g");
        let objs = [(g, 64)];
        // (the first use reads all of it: nothing is killed)
        assert_eq!(entry_partial_kills(&callee.body, &objs), vec![]);
        let callee2 = parse(
            "bb0:
               pdef g 8..56
               use g
             ",
        );
        let exposed = entry_exposed(&callee2.body, &objs);
        let killed = entry_partial_kills(&callee2.body, &objs);
        assert_eq!(exposed, vec![(g, iv(&[(0, 8), (56, 64)]))]);
        assert_eq!(killed, vec![(g, iv(&[(8, 56)]))]);
        // the call as one statement: uses g (the halo only), kills the interior
        let mut caller = parse(
            "bb0:
               use g
               use g
             ",
        );
        caller.body.blocks[0].stmts[0] = Stmt {
            uses: vec![g],
            defs: vec![],
            pdefs: killed,
            puses: exposed,
        };
        let bl = ByteLive::compute(&caller.body, &objs);
        assert_eq!(
            bl.before(&caller.body, 0, 0, g),
            Some(iv(&[(0, 8), (56, 64)]))
        );
    }

    /// A loop: a read in a later iteration before the partial kill keeps
    /// the bytes live around the back edge; a full def kills all.
    #[test]
    fn loops_and_full_defs() {
        let p = parse(
            "bb0:
               -> bb1
             bb1:
               use g
               pdef g 0..16
               -> bb1 bb2
             bb2:
               def g
               use g
             ",
        );
        let g = p.var("g");
        let objs = [(g, 64)];
        let bl = ByteLive::compute(&p.body, &objs);
        assert_eq!(bl.before(&p.body, 1, 1, g), Some(iv(&[(16, 64)])));
        assert_eq!(bl.before(&p.body, 1, 0, g), Some(iv(&[(0, 64)])));
        assert_eq!(bl.before(&p.body, 2, 0, g), Some(iv(&[])));
        // a call of this body reads g first: nothing is killed by it
        assert_eq!(entry_partial_kills(&p.body, &objs), vec![]);
        let p2 = parse(
            "bb0:
               pdef g 0..16
               -> bb1 bb2
             bb1:
               use g
             bb2:
             ",
        );
        // the path through bb2 returns without reading: with everything
        // live after the call, only the partial kill's bytes are dead
        assert_eq!(
            entry_partial_kills(&p2.body, &objs),
            vec![(g, iv(&[(0, 16)]))]
        );
        // untracked variables are None
        assert_eq!(
            ByteLive::compute(&p2.body, &[]).before(&p2.body, 0, 0, g),
            None
        );
        assert_eq!(tracked(&p2.body), vec![g]);
    }
}
