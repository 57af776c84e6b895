//! Remarks (`DAO_REMARKS=1`, or `dao cc -Rdao`): one line per labelled site
//! with what is live there and how many bytes, so a user can see what a
//! checkpoint at each candidate will hold; and the declarations that the
//! external-function table did not recognise because of their type.
use crate::diag::demangle as dm;
use crate::ir::{Module, Value};
use crate::plan::{ModulePlan, SiteKind};

fn name_of(v: Value, fallback: String) -> String {
    let n = v.name();
    if n.is_empty() {
        fallback
    } else {
        n
    }
}

pub fn print(m: Module, plan: &ModulePlan) {
    let source = m.source_name();
    // declarations the external-function table knows by name but not with
    // this type: treated as unknown (known.rs)
    for (name, ty, accepted) in crate::known::mismatches(m) {
        eprintln!(
            "remark: dao: {source}: '{name}' is declared with type '{ty}', not one the pass knows ({}): calls to it are treated as calls to an unknown function",
            accepted.join(" or ")
        );
    }
    let mut nsites = 0;
    for fp in &plan.funcs {
        for (k, s) in fp.sites.iter().enumerate() {
            nsites += 1;
            let what = match s.kind {
                SiteKind::Call => format!("call site {} in '{}' (calls '{}')", k + 1, dm(&fp.name), dm(s.callee.as_deref().unwrap_or("?"))),
                SiteKind::Marker => format!("candidate {} in '{}'", k + 1, dm(&fp.name)),
                SiteKind::Forced => format!("forced checkpoint {} in '{}'", k + 1, dm(&fp.name)),
                SiteKind::Fork => format!("parallel region {} in '{}' (outlined '{}')", k + 1, dm(&fp.name), dm(s.callee.as_deref().unwrap_or("?"))),
                SiteKind::Sync => format!("barrier {} in '{}'", k + 1, dm(&fp.name)),
                SiteKind::Exit => continue,
            };
            let roles = fp.parallel && matches!(s.kind, SiteKind::Marker | SiteKind::Forced | SiteKind::Sync);
            let vbytes: u64 = s.slots.iter().map(|v| m.alloc_size(v.ty())).sum();
            let vnames: Vec<String> = s.slots.iter().enumerate().map(|(i, v)| name_of(*v, format!("tmp{i}"))).collect();
            let abytes: u64 = s.allocas.iter().map(|a| fp.alloca_size[*a]).sum();
            let anames: Vec<String> = s.allocas.iter().map(|a| name_of(fp.allocas[*a], format!("local{a}"))).collect();
            // Declared globals are saved only if the program defines them
            // in a module compiled with dao (never libc's stdout). Escaped
            // globals an unknown read may reach are in the live set unless
            // rewritten before it (ABI version 8); the runtime adds the
            // escaped globals of the other modules.
            let gl: Vec<usize> = s.globals.clone();
            let part_of = |g: usize| {
                s.partial
                    .iter()
                    .find(|(p, _)| *p == g)
                    .map(|(_, w)| w.bytes())
            };
            let gbytes: u64 = gl
                .iter()
                .filter(|g| !plan.facts.global_declared[**g] && !plan.facts.is_heap(**g))
                .map(|g| part_of(*g).unwrap_or(plan.facts.global_size[*g]))
                .sum();
            let gnames: Vec<String> = gl
                .iter()
                .map(|g| {
                    let n = dm(&plan.facts.object_name(*g));
                    let n = match part_of(*g) {
                        Some(b) => format!("{n} ({b} of {} B live)", plan.facts.global_size[*g]),
                        None => n,
                    };
                    if plan.facts.is_heap(*g) {
                        format!("{n} (size known at run time)")
                    } else if plan.tp.iter().any(|t| t.data == plan.facts.globals[*g]) {
                        format!("{n} (threadprivate: each thread's copy)")
                    } else if plan.facts.global_declared[*g] {
                        format!("{n} (declared here: saved only if the program defines it)")
                    } else {
                        n
                    }
                })
                .collect();
            let (privs, shared) = if roles {
                ("; private, saved by every thread of the team: ", "; shared, saved by the master with the live set of the enclosing function at the fork: ")
            } else {
                (": ", ", ")
            };
            // candidates: what this function does not need after the site,
            // and which must-write proved it (issue #15)
            let dead = if matches!(s.kind, SiteKind::Marker | SiteKind::Forced) {
                // (the conditionally dead ones have their own list below)
                let dead: Vec<&(usize, u64, Vec<String>)> = s.dead.iter().filter(|(g, _, _)| !s.cdead.contains(g)).collect();
                let dbytes: u64 = dead.iter().filter(|(g, _, _)| !plan.facts.is_heap(*g)).map(|(_, b, _)| b).sum();
                let list: Vec<String> = dead
                    .iter()
                    .map(|(g, b, why)| {
                        if plan.facts.is_heap(*g) {
                            return format!("{} (rewritten first by {})", dm(&plan.facts.object_name(*g)), why.join(" or "));
                        }
                        let size = plan.facts.global_size[*g];
                        let of = if *b < size {
                            format!(" of {size}")
                        } else {
                            String::new()
                        };
                        format!(
                            "{} ({b}{of} B, rewritten first by {})",
                            dm(&plan.facts.object_name(*g)),
                            why.join(" or ")
                        )
                    })
                    .collect();
                format!(
                    "; dead in '{}' after this point: {} globals ({dbytes} B) [{}], and {} globals ({} B) it neither reads nor rewrites again",
                    dm(&fp.name),
                    dead.len(),
                    list.join(", "),
                    s.unread.0,
                    s.unread.1
                )
            } else {
                String::new()
            };
            // dead only when runtime-checked conditions hold (cond.rs)
            let cdead = if s.cdead.is_empty() {
                String::new()
            } else {
                let list: Vec<String> = s
                    .cdead
                    .iter()
                    .map(|g| {
                        let cs = plan.sections.conds.iter().find(|(o, _)| o == g).map(|(_, c)| c.as_slice()).unwrap_or(&[]);
                        format!("{} ({}) if {}", dm(&plan.facts.object_name(*g)), size_text(plan, *g), cond_text(plan, cs))
                    })
                    .collect();
                format!("; saved unless the runtime-checked conditions hold at the checkpoint: {} globals [{}]", s.cdead.len(), list.join(", "))
            };
            // device copies dead here (device.rs)
            let cdead = if s.ddead.is_empty() {
                cdead
            } else {
                let list: Vec<String> = s.ddead.iter().map(|g| format!("{} ({} B)", dm(&plan.facts.object_name(*g)), plan.facts.global_size[*g])).collect();
                format!("{cdead}; device copies dead here (not copied back if mapped): {} globals [{}]", s.ddead.len(), list.join(", "))
            };
            eprintln!(
                "remark: dao: {}: {what}{privs}live: {} values ({vbytes} B) [{}], {} stack objects ({abytes} B) [{}]{shared}{} globals ({gbytes} B) [{}]{cdead}{dead}{}",
                s.loc.clone().unwrap_or_else(|| source.clone()),
                s.slots.len(),
                vnames.join(", "),
                s.allocas.len(),
                anames.join(", "),
                gl.len(),
                gnames.join(", "),
                if s.unknown_reads { "; reads unknown memory after this point: the escaped globals of other modules are saved too; heap blocks by reachability" } else { "" }
            );
            // why the big ones are kept (issue #33)
            for (g, why) in &s.kept {
                let cond = if s.cdead.contains(g) { " unless its conditions hold" } else { "" };
                eprintln!(
                    "remark: dao: {}: {what}: keeps {} ({}){cond}: {}",
                    s.loc.clone().unwrap_or_else(|| source.clone()),
                    dm(&plan.facts.object_name(*g)),
                    size_text(plan, *g),
                    crate::sites::kept_text(why)
                );
            }
        }
    }
    // the allocation calls the liveness does not follow (heap.rs): their
    // blocks are saved whenever a saved pointer reaches them
    const HEAP_LINES: usize = 16;
    for u in plan.facts.heap_untracked.iter().take(HEAP_LINES) {
        eprintln!(
            "remark: dao: {}: heap blocks of '{}'{} in '{}' are saved whenever a saved pointer reaches them; the liveness does not follow this allocation: {}",
            u.loc.clone().unwrap_or_else(|| source.clone()),
            dm(&u.callee),
            if u.n > 1 { format!(" ({} calls)", u.n) } else { String::new() },
            dm(&u.func),
            u.why
        );
    }
    if plan.facts.heap_untracked.len() > HEAP_LINES {
        eprintln!("remark: dao: {source}: and {} more allocation calls not followed", plan.facts.heap_untracked.len() - HEAP_LINES);
    }
    // flang's threadprivate variables (runtime/src/omp/tp.rs)
    for t in &plan.tp {
        eprintln!(
            "remark: dao: {source}: threadprivate variable {} ({} B) through __kmpc_threadprivate_cached, routed to {}: the master's copy is the variable, each worker's a copy at a fixed address{}",
            t.data.name(),
            t.size,
            crate::known::names::rt::THREADPRIVATE_CACHED,
            if t.in_region {
                "; a parallel region may read a worker's copy before writing it whole: every worker's copy is saved (its value may carry into the next region)"
            } else {
                "; no parallel region reads a worker's copy before writing it whole: a worker's copy is saved only where its saved frames have it live"
            }
        );
    }
    // array-section kills (issue #15)
    let obj_name = |fp: Option<&crate::plan::FuncPlan>, o: crate::provenance::Obj| -> (String, u64) {
        match o {
            crate::provenance::Obj::Global(g) => (dm(&plan.facts.object_name(g)), plan.facts.global_size[g]),
            crate::provenance::Obj::Alloca(a) => fp.map(|fp| (name_of(fp.allocas[a], format!("local{a}")), fp.alloca_size[a])).unwrap_or_else(|| (format!("local{a}"), 0)),
        }
    };
    let part_list = |ps: &[(usize, u64)]| -> String {
        ps.iter()
            .map(|(g, b)| {
                format!(
                    "{b} of {} B of {}",
                    plan.facts.global_size[*g],
                    dm(&plan.facts.object_name(*g))
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (func, loc, objs, part) in &plan.sections.loops {
        let fp = plan.funcs.iter().find(|f| &f.name == func);
        let loc = loc.clone().unwrap_or_else(|| source.clone());
        if !objs.is_empty() {
            let list: Vec<String> = objs
                .iter()
                .map(|o| obj_name(fp, *o))
                .map(|(n, b)| format!("{n} ({b} B)"))
                .collect();
            eprintln!("remark: dao: {loc}: loop in '{func}' writes all of {} before reading it: dead before the loop", list.join(", "));
        }
        if !part.is_empty() {
            eprintln!("remark: dao: {loc}: loop in '{func}' writes {} before reading it: those bytes dead before the loop", part_list(part));
        }
    }
    for (func, loc, g, cs) in &plan.sections.cond_loops {
        let loc = loc.clone().unwrap_or_else(|| source.clone());
        eprintln!(
            "remark: dao: {loc}: loop in '{func}' writes all of {} ({}) before reading it if {} (checked at run time): then dead before the loop",
            dm(&plan.facts.object_name(*g)),
            size_text(plan, *g),
            cond_text(plan, cs)
        );
    }
    for (func, loc, b, cs) in &plan.sections.boxes {
        let loc = loc.clone().unwrap_or_else(|| source.clone());
        let dims: Vec<String> = b
            .dims
            .iter()
            .map(|(st, n, y)| match y {
                Some(y) => format!("{} x ({}{:+})", st, plan.facts.object_name(y.global), y.add),
                None => format!("{st} x {n}"),
            })
            .collect();
        eprintln!(
            "remark: dao: {loc}: loop in '{func}' writes a part of {} before reading it if {} (checked at run time): {} B at byte {} in steps {}; those bytes dead before the loop",
            dm(&plan.facts.object_name(b.object)),
            cond_text(plan, cs),
            b.size,
            b.start,
            dims.join(", ")
        );
    }
    if !plan.sections.boxes.is_empty() {
        eprintln!("remark: dao: {source}: {} sites with parts of globals dead under runtime-checked conditions", plan.sections.box_sites);
    }
    for (func, gs) in &plan.sections.calls {
        let list: Vec<String> = gs.iter().map(|g| format!("{} ({} B)", dm(&plan.facts.object_name(*g)), plan.facts.global_size[*g])).collect();
        eprintln!("remark: dao: {source}: every call of '{func}' writes all of {} before reading it: dead before the call", list.join(", "));
    }
    for (func, ps) in &plan.sections.calls_partial {
        eprintln!("remark: dao: {source}: every call of '{func}' writes {} before reading it: those bytes dead before the call", part_list(ps));
    }
    eprintln!(
        "remark: dao: {source}: {} instrumented functions, {nsites} labelled sites, {} of them conservative (unknown reads); {} loops kill whole objects, {} rewrite parts of globals, {} kill under runtime-checked conditions ({} sites with globals dead under them), {} loops that store kill none (partial, conditional or symbolic writes, reads in the loop), {} of them with no store whose bytes are known; {} callee summaries specialised to the globals a call passes; {} allocation calls followed one by one, {} not (saved by reachability: each named above)",
        plan.funcs.len(),
        plan.conservative_sites,
        plan.sections.loops.iter().filter(|l| !l.2.is_empty()).count(),
        plan.sections.loops.iter().filter(|l| !l.3.is_empty()).count(),
        plan.sections.cond_loops.iter().map(|l| (&l.0, &l.1)).collect::<dao_analysis::fxhash::HashSet<_>>().len(),
        plan.sections.cond_sites,
        plan.sections.loops_without_kill,
        plan.sections.loops_unrecognised,
        plan.sections.specialised,
        plan.facts.heap.len(),
        plan.facts.heap_untracked.iter().map(|u| u.n).sum::<usize>()
    );
}

/// An object's size for the remarks: a global's bytes, or, for a heap
/// object, that it is known at run time.
fn size_text(plan: &crate::plan::ModulePlan, g: usize) -> String {
    if plan.facts.heap_size_unknown(g) {
        "size known at run time".to_string()
    } else {
        format!("{} B", plan.facts.global_size[g])
    }
}

/// Conditions as text: `n >= 4096`, `grid_points[bytes 4..8] >= 64`, joined
/// with "and"; a heap object's cover: `8 x n + 0 B reach the block's end`.
fn cond_text(plan: &crate::plan::ModulePlan, cs: &[crate::cond::Cond]) -> String {
    let v: Vec<String> = cs
        .iter()
        .map(|c| {
            if c.cover > 0 && c.global == crate::cond::NO_VALUE {
                return format!("{} B reach the block's end", c.min);
            }
            let name = plan.facts.object_name(c.global);
            let at = if c.off == 0 && plan.facts.global_size[c.global] == c.bytes as u64 {
                name
            } else {
                format!("{name}[bytes {}..{}]", c.off, c.off + c.bytes as i64)
            };
            // (the largest value a count may have without wrapping is
            // every condition's upper end: said only when one is lower,
            // a bound keeping two boxes apart, `cond::apart`)
            let wrap = if c.bytes >= 8 { 1i64 << 62 } else { 1i64 << (8 * c.bytes - 2) };
            if c.cover > 0 {
                let first = if c.add == 0 { at } else { format!("({at}{:+})", c.add) };
                let second = match c.second {
                    None => String::new(),
                    Some((g2, _, _, _, a2)) => {
                        let n2 = plan.facts.object_name(g2);
                        if a2 == 0 { format!(" x {n2}") } else { format!(" x ({n2}{a2:+})") }
                    }
                };
                return format!("{} x {first}{second} {:+} B reach the block's end", c.cover, c.min);
            }
            if c.max < wrap {
                format!("{} <= {at} <= {}", c.min, c.max)
            } else {
                format!("{at} >= {}", c.min)
            }
        })
        .collect();
    if v.is_empty() {
        "(no condition recorded)".to_string()
    } else {
        v.join(" and ")
    }
}
