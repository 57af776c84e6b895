//! Write boxes (issue #33): the parts of globals a loop rewrites whose
//! bytes are known only at run time (`cond::WBox`), their conditions, and
//! the reads of the same global in the loop that never touch them (another
//! member of a Fortran common block) under bounds the runtime checks.
//! `loop_kills.rs` decides where the kills go; this file makes the boxes.
use crate::func_facts::FuncFacts;
use crate::ir::{SymCount, Value};
use crate::varmap::{StmtPos, VarMap};
use dao_analysis::Body;
use dao_analysis::fxhash::{HashMap, HashSet};

/// The conditions under which every read of box `b`'s global in `blocks`
/// misses the box (`cond::apart`, bounds on the counts' values), when
/// with those reads excused the global is not read there; None otherwise.
/// The reads of vector loops the shim cut off (`LoopFacts::dropped`) are
/// excused: their scalar copy, which the reads here include, makes the
/// same accesses.
#[allow(clippy::too_many_arguments)]
pub fn excuse_apart(ff: &FuncFacts, lf: &crate::ir::LoopFacts, (pos, block_ix): (&HashMap<Value, StmtPos>, &HashMap<crate::ir::Block, usize>), body: &Body, blocks: &[usize], vars: &VarMap, excused: &HashSet<(usize, usize, usize)>, b: &crate::cond::WBox) -> Option<Vec<crate::cond::Cond>> {
    let var = vars.global_var(b.object);
    let mut ex = excused.clone();
    for bb in lf.dropped.iter().filter_map(|d| block_ix.get(d).copied()) {
        for i in 0..body.blocks[bb].stmts.len() {
            ex.insert((bb, i, var));
        }
    }
    let mut conds = Vec::new();
    for (k, (gv, bx)) in lf.reads.iter().enumerate() {
        if ff.mf.global_ix.get(gv) != Some(&b.object) {
            continue;
        }
        let (Some(bx), Some(&(bb, i))) = (bx, lf.read_insts.get(k).copied().flatten().and_then(|inst| pos.get(&inst))) else { continue };
        if !blocks.contains(&bb) {
            continue;
        }
        if let Some(c) = crate::cond::apart(bx, b, &ff.mf.global_ix) {
            ex.insert((bb, i, var));
            conds.extend(c);
        }
    }
    let esc = ff.mf.global_escaped[b.object];
    dao_analysis::sections::loop_kills_excusing(body, blocks, &[(var, esc)], vars.unknown_var(), &ex).contains(&var).then_some(conds)
}

/// The bounds under which the reads of box `b`'s global in this function
/// that may run before the loop (in blocks outside `blocks` from which the
/// loop is reachable) miss the box (`cond::apart`): SP's first loop of
/// `compute_rhs` reads `u` (counts `grid_points`) before the next loop
/// rewrites `rhs` (counts `nx2 + 2`). With them among the box's
/// conditions, world 1 finds those reads apart from the box
/// (`CondFacts::read_apart`), and a write of their values is a use of it.
/// A read whose bounds contradict the conditions (it may touch the box)
/// adds nothing and stays a use.
pub fn apart_before(ff: &FuncFacts, lf: &crate::ir::LoopFacts, pos: &HashMap<Value, StmtPos>, body: &Body, blocks: &[usize], b: &crate::cond::WBox, conds: &[crate::cond::Cond]) -> Vec<crate::cond::Cond> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); body.blocks.len()];
    for (x, bl) in body.blocks.iter().enumerate() {
        for &s in &bl.succs {
            preds[s].push(x);
        }
    }
    let mut before: HashSet<usize> = HashSet::default();
    let mut work: Vec<usize> = blocks.to_vec();
    while let Some(x) = work.pop() {
        for &p in &preds[x] {
            if before.insert(p) {
                work.push(p);
            }
        }
    }
    let mut out: Vec<crate::cond::Cond> = conds.to_vec();
    for (k, (gv, bx)) in lf.reads.iter().enumerate() {
        if ff.mf.global_ix.get(gv) != Some(&b.object) {
            continue;
        }
        let (Some(bx), Some(&(bb, _))) = (bx, lf.read_insts.get(k).copied().flatten().and_then(|inst| pos.get(&inst))) else { continue };
        if blocks.contains(&bb) || !before.contains(&bb) {
            continue;
        }
        let Some(more) = crate::cond::apart(bx, b, &ff.mf.global_ix) else { continue };
        let mut with = out.clone();
        with.extend(more);
        let with = crate::cond::merge(with);
        if with.iter().all(|c| c.min <= c.max) {
            out = with;
        }
    }
    out
}

/// The boxes a loop's symbolic write section `sr` of global `g` and its
/// cells (`cells`: the loop's sections of `g` with the same dimensions,
/// counts and guards) certainly write: one per run of adjacent cells, at
/// most four (else none). Every symbolic count must be read from a global
/// of this module.
pub fn write_boxes(ff: &FuncFacts, g: usize, sr: &crate::ir::SectionRec, cells: &[(i64, u64)]) -> Vec<crate::cond::WBox> {
    let mut dims = Vec::new();
    for (&(st, n), y) in sr.dims.iter().zip(&sr.sym) {
        let sym = match y {
            Some(sc) => {
                // (the runtime counts `add + value`)
                let Some(&cg) = ff.mf.global_ix.get(&sc.global).filter(|_| sc.div == 1) else { return Vec::new() };
                Some(crate::cond::SymRef { global: cg, off: sc.off, bytes: sc.bytes, signed: sc.signed, add: sc.add })
            }
            None => None,
        };
        dims.push((st, if sym.is_some() { 0 } else { n }, sym));
    }
    if !dims.iter().any(|d| d.2.is_some()) {
        return Vec::new();
    }
    let mut cs: Vec<(i64, i64)> = cells.iter().map(|&(s, n)| (s, s + n as i64)).collect();
    cs.sort_unstable();
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for (a, b) in cs {
        match runs.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => runs.push((a, b)),
        }
    }
    if runs.len() > 16 {
        return Vec::new();
    }
    runs.into_iter().map(|(a, b)| crate::cond::WBox { object: g, start: a, size: (b - a) as u64, dims: dims.clone() }).collect()
}

/// The conditions of a box of write section `sr`: each symbolic count
/// not negative and its value small enough not to wrap (`Cond::at_least`),
/// and the inner loops' guards it sits under.
pub fn box_conds(ff: &FuncFacts, sr: &crate::ir::SectionRec) -> Option<Vec<crate::cond::Cond>> {
    let mut conds = Vec::new();
    for sc in sr.sym.iter().flatten() {
        let cg = *ff.mf.global_ix.get(&sc.global)?;
        conds.push(crate::cond::Cond::at_least(cg, sc, 0)?);
    }
    for (sc, m) in &sr.reqs {
        let cg = *ff.mf.global_ix.get(&sc.global)?;
        conds.push(crate::cond::Cond::at_least(cg, &SymCount { add: 0, low: *m, ..*sc }, 0)?);
    }
    Some(crate::cond::merge(conds))
}
