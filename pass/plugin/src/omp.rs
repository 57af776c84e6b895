//! OpenMP constructs in the IR, from the construct roles of the external-function table (`known`, column `role`):
//! which instructions lie inside a block that not every thread runs
//! (`single`, `master`, `masked`, `sections`), that one thread at a time
//! runs (`critical`, `ordered`, a lock), or inside a dynamically scheduled
//! loop body. The plan uses this to reject or move markers (docs/design.md
//! section 8).
//!
//! "Inside begin..end" is computed on the control-flow graph, not on source
//! nesting, so it works on clang's and flang's shapes at any -O level: an
//! instruction is inside when it is reachable from the begin call without
//! passing an end call, *and* an end call is reachable from it without
//! passing a begin call. The graph walk itself is pure and tested on
//! hand-written graphs: `dao_analysis::omp` (pass/analysis/tests/omp.rs).
use dao_analysis::fxhash::{HashMap, HashSet};

use dao_analysis::body::Stmt;
use dao_analysis::omp::Point;
use dao_analysis::Body;

use crate::ir::{Block, Value};
use crate::known::{self, Role};

/// ident_t flag of a `sections` worksharing construct (kmp.h KMP_IDENT_WORK_SECTIONS).
const KMP_IDENT_WORK_SECTIONS: u64 = 0x400;

/// A construct body with what it means for a marker.
pub struct Construct {
    /// The call that opens it (for the diagnostic's location).
    pub begin: Value,
    pub what: &'static str,
    /// Markers inside may be moved after the end call (critical, locks).
    pub movable: bool,
    pub inside: HashSet<Value>,
    /// The end calls, for moving a marker after one.
    pub ends: Vec<Value>,
}
/// Instructions strictly between `starts` and an end call: the function as
/// a [`Body`] with one statement per instruction, and
/// `dao_analysis::omp::between` on it (see the module comment).
pub fn between(f: Value, starts: &[Value], is_end: &dyn Fn(Value) -> bool, is_begin: &dyn Fn(Value) -> bool) -> HashSet<Value> {
    let blocks = f.blocks();
    let index: HashMap<Block, usize> = blocks.iter().enumerate().map(|(k, b)| (*b, k)).collect();
    let insts: Vec<Vec<Value>> = blocks.iter().map(|b| b.instructions()).collect();
    let mut body = Body::new(0);
    for (k, b) in blocks.iter().enumerate() {
        let id = body.add_block();
        body.blocks[id].stmts = vec![Stmt::default(); insts[k].len()];
        body.blocks[id].succs = b.successors().iter().filter_map(|s| index.get(s).copied()).collect();
    }
    let point_of = |i: Value| -> Option<Point> {
        let b = *index.get(&i.parent_block())?;
        insts[b].iter().position(|x| *x == i).map(|k| (b, k))
    };
    let begins: Vec<Point> = starts.iter().filter_map(|s| point_of(*s)).collect();
    let inside = dao_analysis::omp::between(&body, &begins, |(b, k)| is_end(insts[b][k]), |(b, k)| is_begin(insts[b][k]));
    inside.into_iter().map(|(b, k)| insts[b][k]).collect()
}

fn ident_flags(ident: Value) -> Option<u64> {
    let init = ident.initializer()?;
    // %struct.ident_t = type { i32 reserved, i32 flags, i32, i32, ptr psource }
    init.operands().get(1).and_then(|v| v.const_int_value())
}

/// The source position an OpenMP runtime call's `ident_t` names
/// (`psource` is ";file;function;line;column;;"), as `file:line`: clang
/// leaves some runtime calls (libomptarget's) without a debug location.
pub fn ident_loc(ident: Value) -> Option<String> {
    let init = ident.initializer()?;
    let psource = init.operands().get(4).copied()?;
    let s = psource.initializer().or(Some(psource))?.const_string_value()?;
    let parts: Vec<&str> = s.split(';').collect();
    let (file, line) = (parts.get(1)?, parts.get(3)?);
    if file.is_empty() || line.parse::<u32>().is_err() {
        return None;
    }
    let base = std::path::Path::new(file).file_name().map_or(file.to_string(), |b| b.to_string_lossy().into_owned());
    Some(format!("{base}:{line}"))
}

/// Every construct of `f` whose body matters for markers.
pub fn constructs(f: Value) -> Vec<Construct> {
    let mut out = Vec::new();
    let has_role = |r: Role| move |i: Value| known::call_role(i) == Some(r);
    for b in f.blocks() {
        for i in b.instructions() {
            match known::call_role(i) {
                Some(Role::Exclusive { end, what, allowed }) => {
                    // every begin with the same end opens the same kind of
                    // block (critical and critical_with_hint)
                    let is_begin = |x: Value| matches!(known::call_role(x), Some(Role::Exclusive { end: e, .. }) if e == end);
                    let is_end = |x: Value| known::is_exclusive_end(x, end);
                    let inside = between(f, &[i], &is_end, &is_begin);
                    let ends = f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|x| is_end(*x)).collect();
                    out.push(Construct { begin: i, what, movable: allowed, inside, ends });
                }
                Some(Role::DispatchNext) => {
                    let inside = between(f, &[i], &has_role(Role::DispatchNext), &has_role(Role::DispatchInit));
                    out.push(Construct {
                        begin: i,
                        what: "a worksharing loop with a dynamic, guided, runtime or ordered schedule (threads take iterations in an order that a restart cannot reproduce)",
                        movable: false,
                        inside,
                        ends: vec![],
                    });
                }
                Some(Role::StaticInit) => {
                    let sections = i.operands().first().and_then(|id| ident_flags(*id)).is_some_and(|fl| fl & KMP_IDENT_WORK_SECTIONS != 0);
                    if sections {
                        let inside = between(f, &[i], &has_role(Role::StaticFini), &has_role(Role::StaticInit));
                        out.push(Construct { begin: i, what: "an OpenMP 'sections' construct (each section runs on one thread)", movable: false, inside, ends: vec![] });
                    }
                }
                _ => {}
            }
        }
    }
    out
}
