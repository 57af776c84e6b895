//! Section liveness in the front: the kills of loops whose must-write
//! sections (ScalarEvolution facts from the shim, `dao_analysis::sections`)
//! cover every byte of an object that may be read, whole or in part, placed
//! on the loop's entry edge; and the conditional kills of the runtime-checked
//! conditions (`cond.rs`) that hold only when counts read from globals are
//! large enough.
use crate::func_facts::FuncFacts;
use crate::ir::Value;
use crate::known::{self, Role};
use crate::provenance::Obj;
use crate::varmap::{StmtPos, VarMap};
use dao_analysis::intervals::Intervals;
use dao_analysis::{Body, Stmt};
use std::collections::{HashMap, HashSet};

/// Objects a loop overwrites whole before any read (dead on its entry
/// edge), and globals it overwrites in part (those bytes dead there).
pub struct LoopKill {
    pub header: crate::ir::Block,
    pub objects: Vec<Obj>,
    /// (global, bytes of it the loop certainly rewrites).
    pub partial: Vec<(usize, u64)>,
    /// The kill statement in the body (appended to the loop's anchor).
    pub at: StmtPos,
}

/// Blocks reachable from `from` (itself included), not going past the
/// blocks of `stop` (included). `from` itself is always gone past: a block
/// may end one worksharing loop (its fini) and start the next (its init),
/// as clang emits consecutive `omp for` at -O0, and the init's own loop
/// lies beyond it. (Stopping there checked no block of the loop, and a
/// loop that reads what it writes killed its object: `nowait_loops`.)
pub fn reach_until(body: &Body, from: usize, stop: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; body.blocks.len()];
    let mut work = vec![from];
    let mut out = Vec::new();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        out.push(b);
        if b == from || !stop.contains(&b) {
            work.extend(body.blocks[b].succs.iter().copied());
        }
    }
    out
}

/// The block for a kill on the edge from `pred`, the one block outside a
/// loop that enters it, to its header `header`: `pred` itself when the
/// loop is its only successor (a preheader), else a new block of the body
/// on that edge (no instruction maps to it). At -O2 the exit block of one
/// loop nest often branches straight into the next one's header.
pub fn entry_edge(body: &mut Body, pred: usize, header: usize) -> usize {
    if body.blocks[pred].succs.iter().all(|&s| s == header) {
        return pred;
    }
    let e = body.add_block();
    body.blocks[e].succs = vec![header];
    for s in body.blocks[pred].succs.iter_mut().filter(|s| **s == header) {
        *s = e;
    }
    e
}

/// The kills of loops whose must-write sections cover whole objects
/// (`dao_analysis::sections`), appended to their preheaders. In the team
/// view (a function with static worksharing loops, whose bounds the facts
/// took as the whole iteration space) only shared globals count: a
/// thread's private memory gets only its chunk.
pub fn add_loop_kills(
    ff: &FuncFacts,
    vars: &VarMap,
    block_ix: &HashMap<crate::ir::Block, usize>,
    pos: &HashMap<Value, StmtPos>,
    body: &mut Body,
) -> (Vec<LoopKill>, usize, usize) {
    use dao_analysis::sections::{
        add_kills, covered, loop_kills_excusing, read_covered_in_iteration, Section,
    };
    if !crate::config::sections() {
        return (Vec::new(), 0, 0);
    }
    let lf = ff.loop_facts();
    if crate::config::debug_loops() {
        debug_dump(ff, lf);
    }
    let mut out = Vec::new();
    let mut without = 0;
    let unrecognised = lf.loops.iter().filter(|l| l.stores > 0 && l.sections == 0).count();
    for (li, lp) in lf.loops.iter().enumerate() {
        let mut per_obj: Vec<(Obj, Vec<Section>)> = Vec::new();
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && s.sym.iter().all(Option::is_none) && s.reqs.is_empty()) {
            let obj = match (ff.mf.global_ix.get(&sr.base), ff.alloca_ix.get(&sr.base)) {
                (Some(&g), _) => Obj::Global(g),
                (None, Some(&a)) if !lf.team => Obj::Alloca(a),
                _ => continue,
            };
            let sec = Section { start: sr.start, size: sr.size, dims: sr.dims.clone() };
            match per_obj.iter_mut().find(|(o, _)| *o == obj) {
                Some((_, v)) => v.push(sec),
                None => per_obj.push((obj, vec![sec])),
            }
        }
        // Where the kill goes, and which blocks must not read the objects
        // after it: a worksharing loop's kill goes to the block of its
        // static init (a team fact: whatever path one thread takes, its
        // bounds guard included, the team writes the whole space before the
        // construct ends), checked over every block reachable from there
        // up to the static fini; any other loop's to its preheader (which
        // must lead only to the loop), checked over the loop.
        let (anchor, blocks): (Option<usize>, Vec<usize>) = match lp.init {
            Some(init) => {
                let ib = block_ix.get(&init.parent_block()).copied();
                let fini: Vec<usize> = ff.f.blocks().iter().filter(|b| b.instructions().iter().any(|i| known::call_role(*i) == Some(Role::StaticFini))).filter_map(|b| block_ix.get(b).copied()).collect();
                (ib, ib.map(|ib| reach_until(body, ib, &fini)).unwrap_or_default())
            }
            None => (
                lp.preheader
                    .and_then(|p| block_ix.get(&p).copied())
                    .zip(block_ix.get(&lp.header).copied())
                    .map(|(p, h)| entry_edge(body, p, h)),
                lp.blocks
                    .iter()
                    .filter_map(|b| block_ix.get(b).copied())
                    .collect(),
            ),
        };
        let pre = anchor;
        // whole kills, and the bytes of globals rewritten in part (a grid's
        // interior: the halo stays live, `bytelive`)
        let mut cands: Vec<(usize, bool)> = Vec::new();
        let mut part: Vec<(usize, Intervals)> = Vec::new();
        for (o, secs) in &per_obj {
            let c = covered(secs);
            let whole = match o {
                // every byte any code may read is rewritten (padding
                // that nothing reads need not be)
                Obj::Global(g) => match ff.mf.readable(*g) {
                    Some(r) => r.0.iter().all(|&(lo, hi)| c.covers(lo, hi)),
                    None => c.covers(0, ff.obj_size(*o) as i64),
                },
                Obj::Alloca(_) => c.covers(0, ff.obj_size(*o) as i64),
            };
            match *o {
                Obj::Alloca(i) if whole => cands.push((vars.alloca_var(i), ff.alloca_escaped[i])),
                Obj::Global(g) if whole => {
                    cands.push((vars.global_var(g), ff.mf.global_escaped[g]))
                }
                Obj::Global(g) if crate::config::partial() => {
                    let w = c.clip(0, ff.obj_size(*o) as i64);
                    if !w.is_empty() {
                        cands.push((vars.global_var(g), ff.mf.global_escaped[g]));
                        part.push((vars.global_var(g), w));
                    }
                }
                _ => {}
            }
        }
        // whole kills under runtime-checked conditions: boxes with
        // symbolic counts (loop bounds read from stable globals) that cover
        // a global when the counts are large enough (`cond.rs`)
        let mut cond_cands: Vec<(usize, Vec<crate::cond::Cond>)> = Vec::new();
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && (s.sym.iter().any(Option::is_some) || !s.reqs.is_empty())) {
            let Some(&g) = ff.mf.global_ix.get(&sr.base) else { continue };
            let var = vars.global_var(g);
            if cands.iter().any(|(v, _)| *v == var) || cond_cands.iter().any(|(x, _)| *x == g) {
                continue;
            }
            let (need, sym_reads) = match ff.mf.readable_parts(g) {
                Some((r, s)) => (r.clone(), s),
                None => (Intervals(vec![(0, ff.mf.global_size[g] as i64)]), &[][..]),
            };
            let others: Vec<Section> = per_obj.iter().filter(|(o, _)| *o == Obj::Global(g)).flat_map(|(_, v)| v.iter().cloned()).collect();
            let dims: Vec<(i64, Option<u64>)> = sr.dims.iter().zip(&sr.sym).map(|(&(st, c), y)| (st, y.is_none().then_some(c))).collect();
            // the loop's other boxes of the same global with the same
            // dimensions (same strides, constant counts and symbolic
            // counts: the same run-time values) and guards
            let cells: Vec<(i64, u64)> = lf
                .sections
                .iter()
                .filter(|s| s.loop_ix == li && s.base == sr.base && s.dims == sr.dims && s.sym == sr.sym && s.reqs == sr.reqs)
                .map(|s| (s.start, s.size))
                .collect();
            let ks = if need.0.is_empty() { Some(Vec::new()) } else { dao_analysis::sections::symbolic_cover_cells(&cells, &dims, &others, &need) };
            let Some(mut ks) = ks else { continue };
            // reads whose counts are known only at run time (from frozen
            // globals): each inside this loop's writes for the same values
            let inside = sym_reads_inside(sr, &cells, sym_reads);
            if crate::config::debug_loops() {
                eprintln!("dao-debug: conditional kill of {} in loop {li}: need {:?}, {} reads with run-time counts: {}", ff.mf.globals[g].name(), need.0, sym_reads.len(), if inside.is_some() { "inside" } else { "not inside" });
            }
            let Some((more, rlows)) = inside else { continue };
            ks.extend(more);
            // and the inner loops' guards (`if (0 < n)` in every row)
            let guards = sr.reqs.iter().map(|(sc, m)| {
                let cg = *ff.mf.global_ix.get(&sc.global)?;
                crate::cond::Cond::at_least(cg, &crate::ir::SymCount { add: 0, low: *m, ..*sc }, 0)
            });
            let conds: Option<Vec<_>> = ks
                .iter()
                .map(|&(d, k)| {
                    let sc = sr.sym[d]?;
                    let cg = *ff.mf.global_ix.get(&sc.global)?;
                    crate::cond::Cond::at_least(cg, &sc, k)
                })
                .chain(guards)
                .chain(rlows.iter().map(|sc| {
                    let cg = *ff.mf.global_ix.get(&sc.global)?;
                    crate::cond::Cond::at_least(cg, &crate::ir::SymCount { add: 0, ..*sc }, 0)
                }))
                .collect();
            if let Some(conds) = conds {
                cond_cands.push((g, crate::cond::merge(conds)));
            }
        }
        let Some(pre) = pre.filter(|_| !cands.is_empty() || !cond_cands.is_empty()) else {
            if lp.stores > 0 {
                without += 1;
            }
            continue;
        };
        // reads of the loop that see only what the same iteration wrote
        // before them (a time step's copy-then-update of one plane)
        let mut excused: HashSet<(usize, usize, usize)> = lf
            .rel_reads
            .iter()
            .filter(|r| r.loop_ix == li)
            .filter_map(|r| {
                let var = match (ff.mf.global_ix.get(&r.base), ff.alloca_ix.get(&r.base)) {
                    (Some(&g), _) => vars.global_var(g),
                    (None, Some(&a)) if !lf.team => vars.alloca_var(a),
                    _ => return None,
                };
                let &(b, i) = pos.get(&r.inst)?;
                read_covered_in_iteration(&r.writes, &r.read).then_some((b, i, var))
            })
            .collect();
        // reads in the loop of a global it rewrites only in part, whose
        // bytes all lie outside the rewritten ones (another member of a
        // Fortran common block: NPB's `fields` holds `u`, read, and `rhs`,
        // rewritten): they never see those bytes, so the rewritten part is
        // still dead before the loop (issue #33)
        for (v, w) in &part {
            let g = v - vars.global_var(0);
            for (k, (gv, bx)) in lf.reads.iter().enumerate() {
                if ff.mf.global_ix.get(gv) != Some(&g) {
                    continue;
                }
                let Some(b) = bx.as_ref().filter(|b| b.sym.iter().all(Option::is_none)) else { continue };
                let Some(&(bb, i)) = lf.read_insts.get(k).copied().flatten().and_then(|inst| pos.get(&inst)) else { continue };
                if !blocks.contains(&bb) {
                    continue;
                }
                let may = dao_analysis::sections::may_cover(&[Section { start: b.start, size: b.size, dims: b.dims.clone() }]);
                if w.minus(&may).bytes() == w.bytes() {
                    excused.insert((bb, i, *v));
                }
            }
        }
        let unread = loop_kills_excusing(body, &blocks, &cands, vars.unknown_var(), &excused);
        // a guard above the loop that goes towards it under the same kind
        // of condition (`if (0 < n)` around a worksharing loop): the
        // conditional kills then sit at its top, with its requirements
        let guard = lp.guard.as_ref().filter(|_| !cond_cands.is_empty()).and_then(|gd| {
            let top = *block_ix.get(&gd.top)?;
            let mut reqs = Vec::new();
            for (sc, m) in &gd.reqs {
                let cg = *ff.mf.global_ix.get(&sc.global)?;
                let c = crate::cond::Cond::at_least(cg, &crate::ir::SymCount { add: 0, low: *m, ..*sc }, 0)?;
                reqs.push(c);
            }
            let chain: Vec<usize> = gd.chain.iter().filter_map(|b| block_ix.get(b).copied()).collect();
            Some((top, chain, reqs))
        });
        let mut cblocks = blocks.clone();
        if let Some((_, chain, reqs)) = &guard {
            cblocks.extend(chain.iter().copied());
            for (_, conds) in cond_cands.iter_mut() {
                conds.extend(reqs.iter().cloned());
            }
        }
        let cvars: Vec<(usize, bool)> = cond_cands.iter().map(|(g, _)| (vars.global_var(*g), ff.mf.global_escaped[*g])).collect();
        let cunread = loop_kills_excusing(body, &cblocks, &cvars, vars.unknown_var(), &excused);
        // the conditional kills the loop proved (recorded in world 0,
        // applied in world 1)
        let mut cond = Vec::new();
        let mut ckills = Vec::new();
        for (g, conds) in cond_cands {
            if !cunread.contains(&vars.global_var(g)) {
                continue;
            }
            if ff.mf.cond.kill(lp.header, g, conds.clone()) {
                ckills.push(vars.global_var(g));
            }
            cond.push(g);
        }
        let (pdefs, kills): (Vec<usize>, Vec<usize>) = unread
            .into_iter()
            .partition(|v| part.iter().any(|(p, _)| p == v));
        let pdefs: Vec<(usize, Intervals)> = part
            .into_iter()
            .filter(|(v, _)| pdefs.contains(v))
            .collect();
        if kills.is_empty() && pdefs.is_empty() && cond.is_empty() {
            without += 1;
            continue;
        }
        let objects = kills
            .iter()
            .map(|&v| if v >= vars.global_var(0) { Obj::Global(v - vars.global_var(0)) } else { Obj::Alloca(v - vars.alloca_var(0)) })
            .collect();
        let partial = pdefs
            .iter()
            .map(|(v, w)| (v - vars.global_var(0), w.bytes()))
            .collect();
        let mut kills = kills;
        match &guard {
            Some((top, _, _)) if !ckills.is_empty() => add_kills(body, *top, ckills, vec![]),
            _ => kills.extend(ckills),
        }
        if kills.is_empty() && pdefs.is_empty() {
            // world 0, conditional kills only: an empty statement marks
            // the place
            body.blocks[pre].stmts.push(Stmt::default());
        }
        add_kills(body, pre, kills, pdefs);
        out.push(LoopKill {
            header: lp.header,
            objects,
            partial,
            at: (pre, body.blocks[pre].stmts.len() - 1),
        });
    }
    (out, without, unrecognised)
}

/// `DAO_DEBUG_LOOPS=1`: the shim's loop facts of each function, for
/// developers (one line per loop and per section).
fn debug_dump(ff: &FuncFacts, lf: &crate::ir::LoopFacts) {
    eprintln!("dao-debug: function '{}' team={} loops={} sections={} reads={}", ff.f.name(), lf.team, lf.loops.len(), lf.sections.len(), lf.reads.len());
    for (g, r) in &lf.reads {
        let gi = ff.mf.global_ix.get(g).copied();
        eprintln!("dao-debug:   read {} frozen-bounds={:?} box={:?}", g.name(), r.as_ref().map(|b| b.sym.iter().flatten().map(|(sc, _)| ff.mf.global_ix.get(&sc.global).is_some_and(|&c| ff.mf.cond.frozen(c))).collect::<Vec<_>>()), r.as_ref().map(|b| (b.start, b.size, &b.dims, b.sym.iter().map(|x| x.as_ref().map(|(c, f)| (c.global.name(), c.off, c.add, c.low, *f))).collect::<Vec<_>>())));
        let _ = gi;
    }
    for (li, lp) in lf.loops.iter().enumerate() {
        eprintln!("dao-debug:   loop {li} header={} stores={} sections={} init={} preheader={} guard={}", lp.header.instructions().into_iter().find_map(|i| i.debug_loc()).unwrap_or_default(), lp.stores, lp.sections, lp.init.is_some(), lp.preheader.is_some(), lp.guard.is_some());
        for s in lf.sections.iter().filter(|s| s.loop_ix == li) {
            eprintln!("dao-debug:     section base={} start={} size={} dims={:?} sym={:?} reqs={}", s.base.name(), s.start, s.size, s.dims, s.sym.iter().map(|x| x.map(|c| (c.global.name(), c.off, c.add))).collect::<Vec<_>>(), s.reqs.len());
        }
    }
}

/// Whether every read box of a global with counts known only at run time
/// (`sym_reads`) lies inside the boxes `cells` of a loop's writes (`sr`'s
/// dimensions; cells merged where they touch: the fields of one element),
/// for the same bound values (`dao_analysis::sections::sym_contained`).
/// Returns the least counts the write's dimensions must reach, as
/// (dimension, count) like `symbolic_cover_cells`, and the bounds whose
/// value must be at least their `low` (a read's `umax`).
fn sym_reads_inside(sr: &crate::ir::SectionRec, cells: &[(i64, u64)], sym_reads: &[crate::ir::ReadBox]) -> Option<(Vec<(usize, u64)>, Vec<crate::ir::SymCount>)> {
    use dao_analysis::sections::{sym_contained, SymDim};
    if sym_reads.is_empty() {
        return Some((Vec::new(), Vec::new()));
    }
    let mut keys: Vec<(Value, i64, u32, bool)> = Vec::new();
    let mut key = |sc: &crate::ir::SymCount| -> usize {
        let k = (sc.global, sc.off, sc.bytes, sc.signed);
        match keys.iter().position(|x| *x == k) {
            Some(i) => i,
            None => {
                keys.push(k);
                keys.len() - 1
            }
        }
    };
    let wdims: Vec<(i64, SymDim)> = sr
        .dims
        .iter()
        .zip(&sr.sym)
        .map(|(&(st, c), y)| (st, y.as_ref().map_or(SymDim::Const(c), |sc| SymDim::Sym { key: key(sc), add: sc.add, floor: 0 })))
        .collect();
    let mut windows: Vec<(i64, i64)> = cells.iter().map(|&(s, z)| (s, s + z as i64)).collect();
    windows.sort();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (a, b) in windows {
        match merged.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let mut need = Vec::new();
    let mut lows = Vec::new();
    for rb in sym_reads {
        let rdims: Vec<(i64, SymDim)> = rb
            .dims
            .iter()
            .zip(&rb.sym)
            .map(|(&(st, c), y)| (st, y.as_ref().map_or(SymDim::Const(c), |(sc, floor)| SymDim::Sym { key: key(sc), add: sc.add, floor: *floor })))
            .collect();
        let found = merged.iter().find_map(|&(a, b)| sym_contained((a, (b - a) as u64, &wdims), (rb.start, rb.size, &rdims)))?;
        need.extend(found);
        lows.extend(rb.sym.iter().flatten().filter(|(sc, _)| sc.low > 0).map(|(sc, _)| *sc));
    }
    Some((need, lows))
}
