//! Section liveness in the front: the kills of loops whose must-write
//! sections (ScalarEvolution facts from the shim, `dao_analysis::sections`)
//! cover every byte of an object that may be read, whole or in part, placed
//! on the loop's entry edge; and the conditional kills of the runtime-checked
//! conditions (`cond.rs`) that hold only when counts read from globals are
//! large enough.
use crate::func_facts::FuncFacts;
use crate::ir::{SymCount, Value};
use crate::known::{self, Role};
use crate::provenance::Obj;
use crate::varmap::{StmtPos, VarMap};
use dao_analysis::intervals::Intervals;
use dao_analysis::{Body, Stmt};
use dao_analysis::fxhash::{HashMap, HashSet};

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

/// World 1: the kill of global `g` under `conds` also sits on every edge
/// of `f` that a branch on a bound takes only while the bound is below a
/// value `conds` rule out (`LoopFacts::bound_edges`): under the conditions
/// the edge is never taken. At -O2/-O3 jump threading sends the zero-trip
/// test of one worksharing loop (`if (grid_points[0] > 0)`) straight past
/// the next loop's own test of the same bound, around the kill at that
/// loop's guard (NPB BT's compute_rhs: `rhs` is read after the copy loop
/// that kills it, on that path). A statement on such an edge changes
/// nothing when the conditions hold, and `g` is saved when they do not.
fn ruled_out_edges(ff: &FuncFacts, edges: &[(crate::ir::Block, crate::ir::Block, SymCount, i64)], block_ix: &HashMap<crate::ir::Block, usize>, g: usize, conds: &[crate::cond::Cond]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (from, to, sc, m) in edges {
        let Some(&cg) = ff.mf.global_ix.get(&sc.global) else { continue };
        // the value at least m (both readings agree: 0 <= min, max below
        // a quarter of the range, `Cond::at_least`)
        let ruled_out = conds.iter().any(|c| c.global == cg && c.off == sc.off && c.bytes == sc.bytes && c.min >= *m && c.min >= 0 && c.max <= 1i64 << (8 * c.bytes.clamp(1, 8) - 2).min(62));
        let (Some(&fb), Some(&tb)) = (block_ix.get(from), block_ix.get(to)) else { continue };
        if ruled_out {
            if crate::config::debug_loops() {
                eprintln!("dao-debug: world 1: kill of {} also on the edge {fb} -> {tb} (taken only below {m})", ff.mf.globals[g].name());
            }
            out.push((fb, tb));
        }
    }
    out
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
        add_kills, covered, loop_kills_excusing, Section,
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
    strip_iteration_local_reads(ff, vars, block_ix, pos, body);
    // world 1: the blocks made on edges the conditions rule out, shared by
    // the kills of every loop that sit on them
    let mut edge_blocks: HashMap<(usize, usize), usize> = HashMap::default();
    // the blocks of the function's static finis (computed once)
    let fini: std::cell::OnceCell<Vec<usize>> = std::cell::OnceCell::new();
    for (li, lp) in lf.loops.iter().enumerate() {
        let mut per_obj: Vec<(Obj, Vec<Section>)> = Vec::new();
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && s.sym.iter().all(Option::is_none) && s.reqs.is_empty()) {
            let obj = match (ff.mf.global_ix.get(&sr.base), ff.alloca_ix.get(&sr.base)) {
                // (a heap object's size known only at run time: below)
                (Some(&g), _) if ff.mf.heap_size_unknown(g) => continue,
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
                let fini = fini.get_or_init(|| ff.f.blocks().iter().filter(|b| b.instructions().iter().any(|i| known::call_role(*i) == Some(Role::StaticFini))).filter_map(|b| block_ix.get(b).copied()).collect());
                (ib, ib.map(|ib| reach_until(body, ib, fini)).unwrap_or_default())
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
                // (the runtime saves a heap block whole or not at all)
                Obj::Global(g) if crate::config::partial() && !ff.mf.is_heap(g) => {
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
        // kills of parts whose bytes are known only at run time, where the
        // loop does not rewrite all of a global (its boundary planes
        // stay live): boxes evaluated by the runtime at the checkpoint
        let mut box_cands: Vec<(crate::cond::WBox, Vec<crate::cond::Cond>)> = Vec::new();
        // heap objects (issue #33, `heap.rs`): a box from the block's first
        // byte with no gap kills it when it reaches the block's end, which
        // the runtime checks against the block's size (a cover condition)
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li) {
            let Some(&g) = ff.mf.global_ix.get(&sr.base).filter(|&&g| ff.mf.is_heap(g)) else { continue };
            if cond_cands.iter().any(|(x, _)| *x == g) || cands.iter().any(|(v, _)| *v == vars.global_var(g)) {
                continue;
            }
            let conds = crate::cond::heap_cover(&ff.mf.global_ix, sr);
            if crate::config::debug_loops() {
                eprintln!("dao-debug: heap object {} in loop {li} of '{}': box {} {} {:?} {:?}: {}", ff.mf.object_name(g), ff.f.name(), sr.start, sr.size, sr.dims, sr.sym.iter().map(|y| y.map(|c| (c.global.name(), c.add))).collect::<Vec<_>>(), if conds.is_some() { "covers a prefix" } else { "no cover" });
            }
            if let Some(conds) = conds {
                cond_cands.push((g, conds));
            }
        }
        for sr in lf.sections.iter().filter(|s| s.loop_ix == li && (s.sym.iter().any(Option::is_some) || !s.reqs.is_empty())) {
            let Some(&g) = ff.mf.global_ix.get(&sr.base).filter(|&&g| !ff.mf.is_heap(g)) else { continue };
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
            // reads whose counts are known only at run time (from frozen
            // globals): each inside this loop's writes for the same values
            let inside = ks.as_ref().and_then(|_| sym_reads_inside(sr, &cells, sym_reads));
            if crate::config::debug_loops() {
                eprintln!("dao-debug: conditional kill of {} in loop {li}: need {:?}, {} reads with run-time counts: {}", ff.mf.globals[g].name(), need.0, sym_reads.len(), if inside.is_some() { "inside" } else { "not inside" });
            }
            let (Some(mut ks), Some((more, rlows))) = (ks, inside) else {
                // (a part: not with DAO_SECTIONS=whole)
                let boxes = if crate::config::partial() { crate::write_boxes::write_boxes(ff, g, sr, &cells) } else { Vec::new() };
                for b in boxes {
                    if box_cands.iter().any(|(x, _)| *x == b) {
                        continue;
                    }
                    if let Some(conds) = crate::write_boxes::box_conds(ff, sr) {
                        if crate::config::debug_loops() {
                            eprintln!("dao-debug: box kill of {} in loop {li}: {b:?} if {conds:?}", ff.mf.globals[g].name());
                        }
                        box_cands.push((b, conds));
                    }
                }
                continue;
            };
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
        let Some(pre) = pre.filter(|_| !cands.is_empty() || !cond_cands.is_empty() || !box_cands.is_empty()) else {
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
                rel_read_covered(r).is_some_and(|c| c.is_empty()).then_some((b, i, var))
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
        let guard = lp.guard.as_ref().filter(|_| !cond_cands.is_empty() || !box_cands.is_empty()).and_then(|gd| {
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
            for conds in cond_cands.iter_mut().map(|(_, c)| c).chain(box_cands.iter_mut().map(|(_, c)| c)) {
                conds.extend(reqs.iter().cloned());
            }
        }
        let cvars: Vec<(usize, bool)> = cond_cands.iter().map(|(g, _)| (vars.global_var(*g), ff.mf.global_escaped[*g])).collect();
        let cunread = loop_kills_excusing(body, &cblocks, &cvars, vars.unknown_var(), &excused);
        if crate::config::debug_loops() {
            for &(v, esc) in &cvars {
                if !cunread.contains(&v) {
                    let used_unknown = cblocks.iter().any(|&b| body.blocks[b].stmts.iter().any(|st| st.uses.contains(&vars.unknown_var())));
                    eprintln!("dao-debug: conditional kill of var {v} in loop {li} refused: read in the loop (escaped {esc}, the loop reads unknown memory {used_unknown})");
                }
            }
        }
        // the conditional kills the loop proved (recorded in world 0,
        // applied in world 1)
        let mut cond = Vec::new();
        let mut ckills = Vec::new();
        let mut edge_kills: HashMap<(usize, usize), Vec<usize>> = HashMap::default();
        for (g, conds) in cond_cands {
            if !cunread.contains(&vars.global_var(g)) {
                continue;
            }
            let k1 = ff.mf.cond.loop_kill(lp.header, g, conds.clone());
            if crate::config::debug_loops() {
                eprintln!("dao-debug: conditional kill of {} in loop {li} of '{}': recorded, applied {k1}, conditions {conds:?}", ff.mf.globals[g].name(), ff.f.name());
            }
            if k1 {
                ckills.push(vars.global_var(g));
                for (fb, tb) in ruled_out_edges(ff, &lf.bound_edges, &block_ix, g, &conds) {
                    let e = edge_kills.entry((fb, tb)).or_insert_with(Vec::new);
                    if !e.contains(&vars.global_var(g)) {
                        e.push(vars.global_var(g));
                    }
                }
            }
            cond.push(g);
        }
        // the boxes: their global not read in the loop (every read of it
        // reads them in world 1)
        let bvars: Vec<(usize, bool)> = box_cands.iter().map(|(b, _)| (vars.global_var(b.object), ff.mf.global_escaped[b.object])).collect();
        let bunread = loop_kills_excusing(body, &cblocks, &bvars, vars.unknown_var(), &excused);
        for (b, mut conds) in box_cands {
            let g = b.object;
            if !bunread.contains(&vars.global_var(g)) {
                // reads of the global in the loop that never touch the box
                // for the values the conditions allow (another member of a
                // common block: BT's `u` read where `rho_i` is rewritten)
                let more = crate::write_boxes::excuse_apart(ff, lf, (pos, block_ix), body, &cblocks, vars, &excused, &b);
                if crate::config::debug_loops() {
                    eprintln!("dao-debug: box kill of {} in loop {li}: read in the loop, {}", ff.mf.globals[g].name(), if more.is_some() { "every read apart from the box" } else { "refused" });
                }
                let Some(more) = more else { continue };
                conds.extend(more);
                conds = crate::cond::merge(conds);
            }
            // and the reads before the loop that miss it
            let conds = crate::write_boxes::apart_before(ff, lf, pos, body, &cblocks, &b, &conds);
            if let Some(obj) = ff.mf.cond.box_kill(lp.header, b, conds.clone()) {
                let v = vars.global_var(obj);
                ckills.push(v);
                for (fb, tb) in ruled_out_edges(ff, &lf.bound_edges, &block_ix, g, &conds) {
                    let e = edge_kills.entry((fb, tb)).or_insert_with(Vec::new);
                    if !e.contains(&v) {
                        e.push(v);
                    }
                }
            }
            cond.push(g);
        }
        // (one block per edge: made while the edge is still there, then
        // reused)
        for ((fb, tb), vs) in std::mem::take(&mut edge_kills) {
            let e = match edge_blocks.get(&(fb, tb)) {
                Some(&e) => e,
                None if body.blocks[fb].succs.contains(&tb) => {
                    let e = entry_edge(body, fb, tb);
                    edge_blocks.insert((fb, tb), e);
                    e
                }
                None => continue,
            };
            add_kills(body, e, vs, vec![]);
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
        if crate::config::debug_loops() && !ckills.is_empty() {
            eprintln!("dao-debug: world 1 kills of loop {li} in '{}' at block {:?} (pre {pre}, guard chain {:?})", ff.f.name(), guard.as_ref().map(|g| g.0), guard.as_ref().map(|g| g.1.clone()));
        }
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

/// One box of a write (must-counts) or a read (may-counts): `size` bytes
/// at `start` plus any combination of (stride, count) steps, a count
/// known only at run time where `sym` has one (a write's: at least `add` +
/// the bound's value; a read's: at most max(floor, `add` + the value)).
struct SymBox<'a, T> {
    start: i64,
    size: u64,
    dims: &'a [(i64, u64)],
    sym: &'a [Option<T>],
    /// A write's requirements: the inner loops' zero-trip guards it sits
    /// under (each bound at least m), conditions if it is used.
    reqs: &'a [(SymCount, i64)],
}

/// The conditions under which read box `read` lies inside the writes'
/// boxes for every value of the bounds: `Some(conds)`, each (bound, k):
/// the bound's count must be at least k (`Cond::at_least`); empty when it
/// always does. Writes with the same dimensions (strides, counts, bounds)
/// are merged where their cells touch (the fields of one element, stored
/// one by one); one merged box must hold the read (`sym_contained`). A
/// write's count read through a `umax` holds only while its bound is at
/// least `low`: a condition. A read's count holds only while the bound is
/// at least its `low`; below it the loop's only exit comes after 2^31 or
/// more iterations (the count is unsigned), so a read loop entered then
/// would step far past any object: it is not entered and reads nothing.
fn sym_inside(writes: &[SymBox<'_, SymCount>], read: &SymBox<'_, (SymCount, i64)>) -> Option<Vec<(SymCount, u64)>> {
    use dao_analysis::sections::{sym_contained, SymDim};
    // one key per bound, read signed or not: the two readings agree while
    // the value is not negative, which every condition requires; a
    // negative one makes a loop that reads it unsigned run 2^31 or more
    // times (past any object) and one that reads it signed count nothing
    let mut keys: Vec<SymCount> = Vec::new();
    let mut key = |sc: &SymCount| -> usize {
        let same = |x: &SymCount| (x.global, x.off, x.bytes) == (sc.global, sc.off, sc.bytes);
        keys.iter().position(same).unwrap_or_else(|| {
            keys.push(*sc);
            keys.len() - 1
        })
    };
    let rdims: Vec<(i64, SymDim)> = read.dims.iter().zip(read.sym).map(|(&(st, c), y)| (st, y.as_ref().map_or(SymDim::Const(c), |(sc, floor)| SymDim::Sym { key: key(sc), add: sc.add, floor: *floor }))).collect();
    let mut groups: Vec<(Vec<(i64, SymDim)>, Vec<Option<SymCount>>, &[(SymCount, i64)], Vec<(i64, i64)>)> = Vec::new();
    for w in writes {
        // (a count `add + floor((value + pre) / div)` is not `add + value`)
        if w.sym.iter().flatten().any(|sc| sc.div != 1) {
            continue;
        }
        let wdims: Vec<(i64, SymDim)> = w.dims.iter().zip(w.sym).map(|(&(st, c), y)| (st, y.as_ref().map_or(SymDim::Const(c), |sc| SymDim::Sym { key: key(sc), add: sc.add, floor: 0 }))).collect();
        let wsym: Vec<Option<SymCount>> = w.sym.to_vec();
        let cell = (w.start, w.start + w.size as i64);
        match groups.iter_mut().find(|(d, _, r, _)| *d == wdims && *r == w.reqs) {
            Some((_, _, _, cells)) => cells.push(cell),
            None => groups.push((wdims, wsym, w.reqs, vec![cell])),
        }
    }
    let mut best: Option<Vec<(SymCount, u64)>> = None;
    for (wdims, wsym, reqs, mut cells) in groups {
        cells.sort();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (a, z) in cells {
            match merged.last_mut() {
                Some(l) if a <= l.1 => l.1 = l.1.max(z),
                _ => merged.push((a, z)),
            }
        }
        for &(a, z) in &merged {
            let Some(found) = sym_contained((a, (z - a) as u64, &wdims), (read.start, read.size, &rdims)) else { continue };
            // (sym_contained names symbolic write dimensions only)
            let mut conds: Vec<(SymCount, u64)> = found.into_iter().filter_map(|(d, k)| wsym[d].map(|sc| (sc, k))).collect();
            // the write's `low`s (all its symbolic dims: its box is a must
            // only while they hold)
            conds.extend(wsym.iter().flatten().filter(|sc| sc.low > 0).map(|sc| (*sc, 0)));
            // and the read's: a loop's count below its `low` is not entered
            // (above), but a read whose start is at a bound's plane (the
            // shim's `symStartDim`) is made at that plane whatever it is
            conds.extend(read.sym.iter().flatten().filter(|(sc, _)| sc.low > 0).map(|(sc, _)| (*sc, 0)));
            conds.extend(reqs.iter().map(|(sc, m)| (SymCount { add: 0, low: *m, ..*sc }, 0)));
            if best.as_ref().is_none_or(|b| conds.len() < b.len()) {
                best = Some(conds);
            }
        }
    }
    best
}

/// Whether read `r` sees only bytes its loop's iteration wrote before it,
/// and under which conditions ([`sym_inside`]): with constant counts, the
/// writes together cover its may-box (`read_covered_in_iteration`); with
/// counts known only at run time (loop bounds loaded from globals the
/// function does not write), one merged write box holds the read's (issue
/// #33: NPB BT's `fjac[i-1..i+1][j][k]` read for `1 <= i <
/// grid_points[0]-1` after the same `(j, k)` iteration wrote it for `0 <=
/// i < grid_points[0]`).
fn rel_read_covered(r: &crate::ir::RelRead) -> Option<Vec<(SymCount, u64)>> {
    use dao_analysis::sections::read_covered_in_iteration;
    let symbolic = r.read_sym.iter().any(Option::is_some) || r.writes_sym.iter().flatten().any(Option::is_some);
    if !symbolic {
        return read_covered_in_iteration(&r.writes, &r.read).then(Vec::new);
    }
    let writes: Vec<SymBox<'_, SymCount>> = r.writes.iter().zip(&r.writes_sym).map(|(w, ws)| SymBox { start: w.start, size: w.size, dims: &w.dims, sym: ws, reqs: &[] }).collect();
    sym_inside(&writes, &SymBox { start: r.read.start, size: r.read.size, dims: &r.read.dims, sym: &r.read_sym, reqs: &[] })
}

/// Take the use of `var` (global `g`, or an alloca when `g` is None) out
/// of the statement at `at` if the read is covered under `conds`:
/// unconditionally when there are none; else as a conditional kill keyed
/// by the read's block (`cond.rs`: recorded in world 0, applied in world
/// 1, where every write of a condition's global uses the object).
fn excuse(ff: &FuncFacts, body: &mut Body, at: StmtPos, var: usize, g: Option<usize>, key: crate::ir::Block, conds: &[(SymCount, u64)]) -> bool {
    if !conds.is_empty() {
        let Some(g) = g else { return false };
        let cs: Option<Vec<crate::cond::Cond>> = conds.iter().map(|(sc, k)| crate::cond::Cond::at_least(*ff.mf.global_ix.get(&sc.global)?, sc, *k)).collect();
        let Some(cs) = cs else { return false };
        let applied = ff.mf.cond.kill(key, g, crate::cond::merge(cs.clone()));
        if crate::config::debug_loops() {
            eprintln!("dao-debug: read of {} excused under {:?}: {}", ff.mf.globals[g].name(), crate::cond::merge(cs), if ff.mf.cond.world1.get() { if applied { "applied" } else { "not recorded" } } else { "recorded" });
        }
        if !applied {
            return false;
        }
    }
    let st = &mut body.blocks[at.0].stmts[at.1];
    let before = st.uses.len();
    st.uses.retain(|&u| u != var);
    before != st.uses.len()
}

/// Reads that see only what the same iteration of their loop wrote before
/// them ([`rel_read_covered`]) are not reads of the object's value at any
/// point outside that iteration: their uses are taken out of the body, so
/// an object read only so (NPB BT's `fjac`/`njac`, rebuilt line by line
/// and read back in the same line) is dead at every candidate. Only in
/// loops where no checkpoint can come between the write and the read:
/// every call is [`quiet_call`] (no marker, no region, no call that may
/// reach one).
fn strip_iteration_local_reads(ff: &FuncFacts, vars: &VarMap, block_ix: &HashMap<crate::ir::Block, usize>, pos: &HashMap<Value, StmtPos>, body: &mut Body) {
    let lf = ff.loop_facts();
    let quiet = |li: usize| lf.loops[li].blocks.iter().all(|b| b.instructions().into_iter().filter(|i| i.is_call()).all(|i| quiet_call(ff.mf, i, false)));
    let mut quiet_memo: HashMap<usize, bool> = HashMap::default();
    let mut n = 0;
    for r in &lf.rel_reads {
        let (var, g) = match (ff.mf.global_ix.get(&r.base), ff.alloca_ix.get(&r.base)) {
            (Some(&g), _) if !ff.mf.global_escaped[g] => (vars.global_var(g), Some(g)),
            (None, Some(&a)) if !lf.team && !ff.alloca_escaped[a] => (vars.alloca_var(a), None),
            _ => continue,
        };
        let Some(&at) = pos.get(&r.inst) else { continue };
        // the statement must be in one of the loop's blocks
        if !lf.loops[r.loop_ix].blocks.iter().any(|lb| block_ix.get(lb) == Some(&at.0)) {
            continue;
        }
        if !*quiet_memo.entry(r.loop_ix).or_insert_with(|| quiet(r.loop_ix)) {
            continue;
        }
        let Some(conds) = rel_read_covered(r) else { continue };
        if excuse(ff, body, at, var, g, r.inst.parent_block(), &conds) {
            n += 1;
        }
    }
    if crate::config::debug_loops() && n > 0 {
        eprintln!("dao-debug: {} reads in '{}' see only their iteration's writes", n, ff.f.name());
    }
    let m = strip_reads_after_loops(ff, vars, pos, body);
    if crate::config::debug_loops() && m > 0 {
        eprintln!("dao-debug: {} reads in '{}' see only what an earlier loop of it wrote", m, ff.f.name());
    }
}

/// A call no checkpoint can come from: an intrinsic or a known external
/// function that reads no memory or only through its arguments; with
/// `omp`, also a barrier and a static worksharing loop's init and fini; a
/// function defined here whose calls are all such external ones (one
/// level: NPB's `binvcrhs`).
fn quiet_call(mf: &crate::facts::ModuleFacts, call: Value, omp: bool) -> bool {
    let Some(c) = call.called_function() else { return false };
    let external = |d: Value| d.is_declaration() && matches!(known::effect(d), Some(known::Effect::NoMem | known::Effect::ReadsArgs | known::Effect::Intrinsic));
    if !c.is_declaration() {
        // (once per callee: a call of it in every line of a solver)
        if let Some(&q) = mf.quiet_defined.borrow().get(&c) {
            return q;
        }
        let q = c.blocks().iter().all(|b| b.instructions().into_iter().filter(|i| i.is_call()).all(|i| i.called_function().is_some_and(external)));
        mf.quiet_defined.borrow_mut().insert(c, q);
        return q;
    }
    external(c) || (omp && matches!(known::role(c), Some(Role::Barrier | Role::StaticInit | Role::StaticFini)))
}

/// Reads of a global that see only what an earlier loop of the same
/// function rewrote (issue #33: NPB BT's `lhsy` fills `fjac` in one `omp
/// for` and reads it in the next): the read's may-box lies inside the
/// loop's must-write boxes ([`sym_inside`]), the loop has run whenever the
/// read runs, and no checkpoint can come between them. For a worksharing
/// loop (the team's writes; its static init's block dominates the read)
/// every path from its init to the read passes a barrier, so the whole
/// team's chunks are written; for any other loop the thread wrote the box
/// itself (its header dominates the read, outside it). Only in functions
/// whose every call is [`quiet_call`]. Their uses leave the body
/// ([`excuse`]). Returns how many.
fn strip_reads_after_loops(ff: &FuncFacts, vars: &VarMap, pos: &HashMap<Value, StmtPos>, body: &mut Body) -> usize {
    let lf = ff.loop_facts();
    if lf.sections.is_empty() || lf.reads.is_empty() {
        return 0;
    }
    let blocks = ff.f.blocks();
    if let Some(loud) = blocks.iter().flat_map(|b| b.instructions()).find(|i| i.is_call() && !quiet_call(ff.mf, *i, true)) {
        if crate::config::debug_loops() {
            eprintln!("dao-debug: reads after loops in '{}': not with the call of '{}'", ff.f.name(), loud.called_function().map(|c| c.name()).unwrap_or_default());
        }
        return 0;
    }
    let bix: HashMap<crate::ir::Block, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let succs: Vec<Vec<usize>> = blocks.iter().map(|b| b.successors().iter().filter_map(|s| bix.get(s).copied()).collect()).collect();
    let barrier: Vec<bool> = blocks.iter().map(|b| b.instructions().into_iter().any(|i| known::call_role(i) == Some(Role::Barrier))).collect();
    // per loop: its anchor block, the blocks reachable from the entry
    // without passing it (not dominated), and for a worksharing loop the
    // blocks reachable from it before a barrier
    // (a worksharing loop under its zero-trip guard, `if (0 < n)` before
    // its static init: the guard's top, with the guard's requirements as
    // conditions: when they hold, every path from there runs the loop)
    type Ctl = (usize, Vec<bool>, Option<Vec<bool>>, Vec<(SymCount, u64)>);
    let mut ctl: HashMap<usize, Option<Ctl>> = HashMap::default();
    let mut control = |li: usize| -> Option<Ctl> {
        ctl.entry(li)
            .or_insert_with(|| {
                let lp = &lf.loops[li];
                let mut reqs = Vec::new();
                let (anchor, team) = match (lp.init, &lp.guard) {
                    (Some(_), Some(gd)) => {
                        reqs = gd.reqs.iter().map(|(sc, m)| (SymCount { add: 0, low: *m, ..*sc }, 0)).collect();
                        (*bix.get(&gd.top)?, true)
                    }
                    (Some(init), None) => (*bix.get(&init.parent_block())?, true),
                    (None, _) => (*bix.get(&lp.header)?, false),
                };
                let walk = |from: Vec<usize>, stop: &dyn Fn(usize) -> bool| {
                    let mut seen = vec![false; blocks.len()];
                    let mut work = from;
                    while let Some(b) = work.pop() {
                        if stop(b) || std::mem::replace(&mut seen[b], true) {
                            continue;
                        }
                        work.extend(succs[b].iter().copied());
                    }
                    seen
                };
                // (the entry block dominates every block)
                let avoid = if anchor == 0 { vec![false; blocks.len()] } else { walk(vec![0], &|b| b == anchor) };
                let before_barrier = team.then(|| walk(succs[anchor].clone(), &|b| barrier[b]));
                Some((anchor, avoid, before_barrier, reqs))
            })
            .clone()
    };
    let mut n = 0;
    for (k, (gv, bx)) in lf.reads.iter().enumerate() {
        let Some(b) = bx else { continue };
        let Some(&g) = ff.mf.global_ix.get(gv) else { continue };
        if ff.mf.global_escaped[g] {
            continue;
        }
        let Some(inst) = lf.read_insts.get(k).copied().flatten() else { continue };
        let Some(&at) = pos.get(&inst) else { continue };
        let Some(&rb) = bix.get(&inst.parent_block()) else { continue };
        let var = vars.global_var(g);
        if !body.blocks[at.0].stmts[at.1].uses.contains(&var) {
            continue;
        }
        let mut loops: Vec<usize> = lf.sections.iter().filter(|s| s.base == *gv).map(|s| s.loop_ix).collect();
        loops.sort_unstable();
        loops.dedup();
        let mut found: Option<Vec<(SymCount, u64)>> = None;
        for li in loops {
            if lf.loops[li].blocks.contains(&inst.parent_block()) {
                continue;
            }
            let writes: Vec<SymBox<'_, SymCount>> = lf.sections.iter().filter(|s| s.loop_ix == li && s.base == *gv).map(|s| SymBox { start: s.start, size: s.size, dims: &s.dims, sym: &s.sym, reqs: &s.reqs }).collect();
            let Some(conds) = sym_inside(&writes, &SymBox { start: b.start, size: b.size, dims: &b.dims, sym: &b.sym, reqs: &[] }) else {
                if crate::config::debug_loops() {
                    eprintln!("dao-debug: read of {} at {:?} not inside the {} writes of loop {li}", gv.name(), inst.debug_loc(), writes.len());
                }
                continue;
            };
            let Some((anchor, avoid, before_barrier, reqs)) = control(li) else { continue };
            let mut conds = conds;
            conds.extend(reqs);
            let ordered = rb != anchor && !avoid[rb] && before_barrier.as_ref().is_none_or(|bb| !bb[rb]);
            if crate::config::debug_loops() {
                eprintln!("dao-debug: read of {} at {:?} inside the writes of loop {li} ({} conditions), after them: {ordered} (anchor {anchor} read {rb} dominated {} barrier {:?})", gv.name(), inst.debug_loc(), conds.len(), !avoid[rb], before_barrier.as_ref().map(|bb| !bb[rb]));
            }
            if ordered && found.as_ref().is_none_or(|f| conds.len() < f.len()) {
                found = Some(conds);
            }
        }
        if let Some(conds) = found {
            if excuse(ff, body, at, var, Some(g), inst.parent_block(), &conds) {
                n += 1;
            }
        }
    }
    n
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
    // (a count `add + floor((value + pre) / div)` is not `add + value`)
    if sr.sym.iter().flatten().any(|sc| sc.div != 1) {
        return None;
    }
    // one key per bound, read signed or not, as in `sym_inside` (NPB SP:
    // the worksharing loop's bound is read unsigned, the same bound in
    // another function's loop signed)
    let mut keys: Vec<(Value, i64, u32)> = Vec::new();
    let mut key = |sc: &crate::ir::SymCount| -> usize {
        let k = (sc.global, sc.off, sc.bytes);
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
        let found = merged.iter().find_map(|&(a, b)| sym_contained((a, (b - a) as u64, &wdims), (rb.start, rb.size, &rdims)));
        let Some(found) = found else {
            if crate::config::debug_loops() {
                eprintln!("dao-debug:   read box {} {} {:?} not inside {:?} {:?}", rb.start, rb.size, rdims, merged, wdims);
            }
            return None;
        };
        need.extend(found);
        lows.extend(rb.sym.iter().flatten().filter(|(sc, _)| sc.low > 0).map(|(sc, _)| *sc));
    }
    Some((need, lows))
}
