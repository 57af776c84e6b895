//! The loop facts of the shim (`shim.cpp`, `dao_cxx_loop_facts`): per loop
//! of a function its must-write sections, the guards above it, its
//! symbolic counts, the reads covered by the same iteration's writes, and
//! every read's box, for the array-section kills.
#![allow(unsafe_code)]

use super::handles::{Block, Value};
use crate::ffi;
use llvm_sys::prelude::LLVMValueRef;

/// One loop of a function and what its stores certainly write
/// (`shim.cpp`, `dao_cxx_loop_facts`: ScalarEvolution on a scratch clone in
/// the team view).
pub struct LoopRec {
    pub preheader: Option<Block>,
    pub header: Block,
    /// The `__kmpc_for_static_init_*` call of the worksharing construct
    /// whose loop this is (team view), if any.
    pub init: Option<Value>,
    pub blocks: Vec<Block>,
    /// Stores and memory intrinsics in the loop, nested loops included.
    pub stores: u32,
    /// Of those, how many gave a byte box for this loop.
    pub sections: u32,
    /// Branches above the loop that go towards it when bound loads are
    /// large enough (runtime-checked conditions, `cond.rs`).
    pub guard: Option<Guard>,
}

/// A chain of blocks with one predecessor each from `top` down to a loop's
/// anchor: a conditional kill may sit at the end of `top` (its reads
/// checked over `chain` too) when each (bound, m) of `reqs` holds, the
/// bound's value at least m.
pub struct Guard {
    pub top: Block,
    pub chain: Vec<Block>,
    pub reqs: Vec<(SymCount, i64)>,
}

pub struct SectionRec {
    pub loop_ix: usize,
    pub base: Value,
    pub start: i64,
    pub size: u64,
    /// (stride, count), innermost loop first; the count is 0 where `sym`
    /// has one.
    pub dims: Vec<(i64, u64)>,
    /// Per dim, a count known only at run time (issue #15, runtime-checked
    /// conditions).
    pub sym: Vec<Option<SymCount>>,
    /// What bound loads must be at least for the zero-trip guards of inner
    /// loops to go towards them: the box holds only then.
    pub reqs: Vec<(SymCount, i64)>,
}

/// A loop's count read from memory: `add` + the `bytes`-wide integer at
/// byte `off` of `global` (signed or not), which neither the function nor
/// its callees write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymCount {
    pub global: Value,
    pub off: i64,
    pub bytes: u32,
    pub signed: bool,
    pub add: i64,
    /// The value must also be at least this (a `umax` in the count).
    pub low: i64,
    /// A requirement's only (`SectionRec::reqs`): the value must also be at
    /// most this (a value the shim's writes-only run pinned; `i64::MAX`:
    /// no bound).
    pub high: i64,
    /// A write's count is `add + floor((value + pre) / div)` (a loop
    /// stepping by `div` up to the bound, issue #33); 1 and 0 otherwise.
    /// Only [`crate::cond::Cond::at_least`] reads a count with `div > 1`;
    /// the other users of counts take `add + value` and refuse it.
    pub div: i64,
    pub pre: i64,
    /// A heap object's write count times a factor (a flattened nest,
    /// `a[i * n + j]`: the inner count times the outer one): None, or the
    /// constant [`SymFactor::Const`] or another value's count. Only
    /// `loop_kills.rs` `heap_cover` reads it; every other user of counts
    /// refuses one that has it ([`SymCount::is_plain`]).
    pub mul: Option<SymFactor>,
}

/// The second factor of a [`SymCount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymFactor {
    Const(u64),
    /// `add` + the `bytes`-wide integer at `off` of `global`.
    Value { global: Value, off: i64, bytes: u32, signed: bool, add: i64 },
}

impl SymCount {
    /// A count `add + value` (or `add + floor((value + pre) / div)`), with
    /// no second factor.
    pub fn is_plain(&self) -> bool {
        self.mul.is_none()
    }
}

/// A read inside a loop that sees only bytes written earlier in the same
/// iteration, if these writes cover it (shim.cpp `DaoRel`): its box
/// relative to the loop's iteration (`start` at iteration 0, may-counts of
/// the loops inside) and the boxes of the writes whose completion
/// dominates it, same object and step.
pub struct RelRead {
    pub loop_ix: usize,
    pub base: Value,
    /// The load or memory transfer (original function).
    pub inst: Value,
    pub read: dao_analysis::sections::Section,
    pub writes: Vec<dao_analysis::sections::Section>,
    /// The read's dims whose may-count is symbolic (count and floor, as
    /// [`ReadBox::sym`]), and each write's whose must-count is (at least
    /// `add` + the bound's value); all `None` in the boxes of constant
    /// counts.
    pub read_sym: Vec<Option<(SymCount, i64)>>,
    pub writes_sym: Vec<Vec<Option<SymCount>>>,
}

pub struct LoopFacts {
    /// Static worksharing inits were deleted for the team view: only
    /// sections of shared globals mean anything.
    pub team: bool,
    pub loops: Vec<LoopRec>,
    pub sections: Vec<SectionRec>,
    pub rel_reads: Vec<RelRead>,
    /// Reads of globals: (global, the box of bytes it may read, or None:
    /// any byte).
    pub reads: Vec<(Value, Option<ReadBox>)>,
    /// The instruction of each of `reads` in the original function, when
    /// the shim knows it.
    pub read_insts: Vec<Option<Value>>,
    /// Reads through pointer parameters ([`ArgRead`]): loads and
    /// transfers through a parameter of this function, and calls passing
    /// a pointer into a global or a parameter to a defined function.
    pub arg_reads: Vec<ArgRead>,
    /// Edges a branch on a bound takes only while the bound is below a
    /// value: (from, to, the bound, m): the branch goes the other way
    /// whenever the bound is at least m.
    pub bound_edges: Vec<(Block, Block, SymCount, i64)>,
    /// Blocks of the vector loops the shim cut off (their scalar copy
    /// makes the same accesses; their reads are not in `reads`).
    pub dropped: Vec<Block>,
}

/// A read through a pointer parameter (shim.cpp `DaoRead::param`,
/// `callee`), for `facts.rs` `set_readable` to compose across calls.
#[derive(Clone, Debug)]
pub struct ArgRead {
    pub from: ArgFrom,
    /// A load or transfer: the bytes it may read, relative to the
    /// parameter. A call: the pointer values it passes (`size` 1),
    /// relative to the global or parameter. `None`: unknown.
    pub bx: Option<ReadBox>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgFrom {
    /// A load or transfer through parameter `param` of the function.
    Param(u32),
    /// A call passing, to parameter `arg` of the defined function
    /// `callee`, a pointer into global `global` (`Some`) or through the
    /// function's own parameter `param`.
    Call { callee: Value, arg: u32, global: Option<Value>, param: Option<u32> },
}

/// The bytes a read may touch: `size` bytes at `start` plus any
/// combination of (stride, count) steps; a dim with `sym` has a count known
/// only at run time (issue #33): at most max(floor, `add` + the value of
/// the bound load), the value at least `low` (the count in `dims` is 0).
#[derive(Clone, Debug)]
pub struct ReadBox {
    pub start: i64,
    pub size: u64,
    pub dims: Vec<(i64, u64)>,
    pub sym: Vec<Option<(SymCount, i64)>>,
}

/// Dimension `d`'s symbolic count of a shim output (`DaoSectionOut`,
/// `DaoRelOut`: the same `sym_*` fields).
macro_rules! sym_count {
    ($o:expr, $d:expr) => {
        SymCount { global: Value($o.sym_global[$d]), off: $o.sym_off[$d], bytes: $o.sym_bytes[$d], signed: $o.sym_signed[$d] != 0, add: $o.sym_add[$d], low: $o.sym_low[$d], high: i64::MAX, div: 1, pre: 0, mul: None }
    };
}

/// `inits`: the static worksharing init calls of `f`, deleted in the team
/// view; `elig`: globals a loop bound may be read from, and `writers`: the
/// (global, function) pairs of the defined functions that may write them
/// (a loop bound loaded from one may be symbolic, [`SymCount`]).
/// `bind`: (argument index, slot offset or -1, global) of a function
/// analysed for one call site (`func_facts::Bind`; the shim's
/// `dao_cxx_loop_facts`).
/// The shim's time per phase of its loop facts since the last call (ms),
/// for `DAO_PASS_TIME` (`timing.rs`); the totals are reset.
pub fn shim_phases() -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for i in 0.. {
        let mut name: *const std::os::raw::c_char = std::ptr::null();
        let mut ms = 0.0;
        // SAFETY: the shim writes a pointer to a static string and a number
        // for an index below its count, and returns 0 past it
        if unsafe { ffi::dao_cxx_shim_phase(i, &mut name, &mut ms) } == 0 {
            break;
        }
        // SAFETY: a static, NUL-terminated string of the shim
        out.push((unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().into_owned(), ms));
    }
    out
}

/// `repl`: values of `f` each replaced in the clone by a stand-in global
/// (a heap object's, `heap.rs`).
pub fn loop_facts(f: Value, inits: &[Value], elig: &[Value], writers: &[(Value, Value)], bind: &[(u32, i64, Value)], repl: &[(Value, Value)]) -> LoopFacts {
    // SAFETY: `f` is a function of the module being planned; the handle
    // returned by the shim is read through its accessors with indices below
    // its counts, and freed once, here.
    unsafe {
        let mut v: Vec<LLVMValueRef> = inits.iter().map(|i| i.0).collect();
        let mut el: Vec<LLVMValueRef> = elig.iter().map(|g| g.0).collect();
        let mut wg: Vec<LLVMValueRef> = writers.iter().map(|w| w.0 .0).collect();
        let mut wf: Vec<LLVMValueRef> = writers.iter().map(|w| w.1 .0).collect();
        let mut ba: Vec<u32> = bind.iter().map(|b| b.0).collect();
        let mut bs: Vec<i64> = bind.iter().map(|b| b.1 + 1).collect();
        let mut bg: Vec<LLVMValueRef> = bind.iter().map(|b| b.2 .0).collect();
        let mut rf: Vec<LLVMValueRef> = repl.iter().map(|r| r.0 .0).collect();
        let mut rt: Vec<LLVMValueRef> = repl.iter().map(|r| r.1 .0).collect();
        let h = ffi::dao_cxx_loop_facts(f.0, v.as_mut_ptr(), v.len() as u32, el.as_mut_ptr(), el.len() as u32, wg.as_mut_ptr(), wf.as_mut_ptr(), wg.len() as u32, ba.as_mut_ptr(), bs.as_mut_ptr(), bg.as_mut_ptr(), ba.len() as u32, rf.as_mut_ptr(), rt.as_mut_ptr(), rf.len() as u32);
        let team = ffi::dao_cxx_loop_facts_team(h) != 0;
        let mut loops = Vec::new();
        for i in 0..ffi::dao_cxx_loop_count(h) {
            let mut o: ffi::DaoLoopOut = std::mem::zeroed();
            ffi::dao_cxx_loop_get(h, i, &mut o);
            let blocks = (0..o.nblocks).map(|j| Block(ffi::dao_cxx_loop_block(h, i, j))).collect();
            loops.push(LoopRec {
                preheader: (!o.preheader.is_null()).then_some(Block(o.preheader)),
                header: Block(o.header),
                init: (!o.init.is_null()).then_some(Value(o.init)),
                blocks,
                stores: o.stores,
                sections: o.sections,
                guard: (!o.guard_top.is_null()).then(|| Guard {
                    top: Block(o.guard_top),
                    chain: (0..o.nguard_chain).map(|j| Block(ffi::dao_cxx_loop_guard_block(h, i, j))).collect(),
                    reqs: (0..o.nguard_reqs)
                        .map(|j| {
                            let mut q: ffi::DaoGuardReqOut = std::mem::zeroed();
                            ffi::dao_cxx_loop_guard_req(h, i, j, &mut q);
                            (SymCount { global: Value(q.global), off: q.off, bytes: q.bytes, signed: q.sgn != 0, add: 0, low: 0, high: i64::MAX, div: 1, pre: 0, mul: None }, q.min)
                        })
                        .collect(),
                }),
            });
        }
        let mut sections = Vec::new();
        for i in 0..ffi::dao_cxx_section_count(h) {
            let mut o: ffi::DaoSectionOut = std::mem::zeroed();
            ffi::dao_cxx_section_get(h, i, &mut o);
            let n = (o.ndims as usize).min(8);
            let dims = (0..n).map(|d| (o.stride[d], o.count[d])).collect();
            let sym = (0..n)
                .map(|d| {
                    (o.sym_mask >> d & 1 != 0 && !o.sym_global[d].is_null()).then(|| SymCount {
                        div: o.sym_div[d].max(1),
                        pre: o.sym_pre[d],
                        mul: if !o.sym_g2[d].is_null() {
                            Some(SymFactor::Value { global: Value(o.sym_g2[d]), off: o.sym_off2[d], bytes: o.sym_bytes2[d], signed: o.sym_signed2[d] != 0, add: o.sym_add2[d] })
                        } else if o.sym_mul[d] > 1 {
                            Some(SymFactor::Const(o.sym_mul[d]))
                        } else {
                            None
                        },
                        ..sym_count!(o, d)
                    })
                })
                .collect();
            let reqs = (0..(o.nreqs as usize).min(4))
                .map(|r| (SymCount { global: Value(o.req_global[r]), off: o.req_off[r], bytes: o.req_bytes[r], signed: o.req_signed[r] != 0, add: 0, low: 0, high: o.req_max[r], div: 1, pre: 0, mul: None }, o.req_min[r]))
                .collect();
            sections.push(SectionRec { loop_ix: o.loop_ix as usize, base: Value(o.base), start: o.start, size: o.size, dims, sym, reqs });
        }
        let mut reads = Vec::new();
        let mut read_insts = Vec::new();
        for i in 0..ffi::dao_cxx_read_count(h) {
            let mut o: ffi::DaoSectionOut = std::mem::zeroed();
            ffi::dao_cxx_read_get(h, i, &mut o);
            let n = (o.ndims as usize).min(8);
            let dims = (0..n).map(|d| (o.stride[d], o.count[d])).collect();
            let sym = (0..n)
                .map(|d| {
                    (o.sym_mask >> d & 1 != 0 && !o.sym_global[d].is_null()).then(|| {
                        (sym_count!(o, d), o.sym_floor[d])
                    })
                })
                .collect();
            reads.push((Value(o.base), (o.loop_ix == 0).then_some(ReadBox { start: o.start, size: o.size, dims, sym })));
            let inst = ffi::dao_cxx_read_inst(h, i);
            read_insts.push((!inst.is_null()).then_some(Value(inst)));
        }
        let bound_edges = (0..ffi::dao_cxx_bound_edge_count(h))
            .map(|i| {
                let mut q: ffi::DaoGuardReqOut = std::mem::zeroed();
                let (mut from, mut to) = (std::ptr::null_mut(), std::ptr::null_mut());
                ffi::dao_cxx_bound_edge_get(h, i, &mut from, &mut to, &mut q);
                (Block(from), Block(to), SymCount { global: Value(q.global), off: q.off, bytes: q.bytes, signed: q.sgn != 0, add: 0, low: 0, high: i64::MAX, div: 1, pre: 0, mul: None }, q.min)
            })
            .collect();
        let dropped = (0..ffi::dao_cxx_dropped_count(h)).map(|i| Block(ffi::dao_cxx_dropped_get(h, i))).collect();
        let mut arg_reads = Vec::new();
        for i in 0..ffi::dao_cxx_argread_count(h) {
            let mut o: ffi::DaoSectionOut = std::mem::zeroed();
            ffi::dao_cxx_argread_get(h, i, &mut o);
            let (mut param, mut callee, mut arg) = (0i32, std::ptr::null_mut(), 0u32);
            ffi::dao_cxx_argread_info(h, i, &mut param, &mut callee, &mut arg);
            let n = (o.ndims as usize).min(8);
            let dims = (0..n).map(|d| (o.stride[d], o.count[d])).collect();
            let sym = (0..n).map(|d| (o.sym_mask >> d & 1 != 0 && !o.sym_global[d].is_null()).then(|| (sym_count!(o, d), o.sym_floor[d]))).collect();
            let bx = (o.loop_ix == 0).then_some(ReadBox { start: o.start, size: o.size, dims, sym });
            let param = u32::try_from(param).ok();
            let from = if callee.is_null() {
                match param {
                    Some(p) => ArgFrom::Param(p),
                    None => continue,
                }
            } else {
                ArgFrom::Call { callee: Value(callee), arg, global: (!o.base.is_null()).then_some(Value(o.base)), param }
            };
            arg_reads.push(ArgRead { from, bx });
        }
        let rel = |which: i32, i: u32| {
            let mut o: ffi::DaoRelOut = std::mem::zeroed();
            ffi::dao_cxx_rel_get(h, which, i, &mut o);
            let n = (o.ndims as usize).min(8);
            let sec = dao_analysis::sections::Section { start: o.start, size: o.size, dims: (0..n).map(|d| (o.stride[d], o.count[d])).collect() };
            let sym: Vec<Option<(SymCount, i64)>> = (0..n)
                .map(|d| {
                    (o.sym_mask >> d & 1 != 0 && !o.sym_global[d].is_null()).then(|| {
                        (sym_count!(o, d), o.sym_floor[d])
                    })
                })
                .collect();
            // a symbolic dim whose bound the shim could not name: unusable
            let lost = (0..n).any(|d| o.sym_mask >> d & 1 != 0 && o.sym_global[d].is_null());
            (o, sec, sym, lost)
        };
        let rel_writes: Vec<_> = (0..ffi::dao_cxx_relw_count(h)).map(|i| rel(0, i)).collect();
        let mut rel_reads = Vec::new();
        for i in 0..ffi::dao_cxx_relr_count(h) {
            let (o, read, read_sym, lost) = rel(1, i);
            let mut writes = Vec::new();
            let mut writes_sym = Vec::new();
            for j in 0..o.nwrites {
                let (_, w, wsym, wlost) = &rel_writes[ffi::dao_cxx_relr_write(h, i, j) as usize];
                if *wlost {
                    continue;
                }
                // in the read's frame
                writes.push(dao_analysis::sections::Section { start: ffi::dao_cxx_relr_wstart(h, i, j), ..w.clone() });
                writes_sym.push(wsym.iter().map(|y| y.map(|(sc, _)| sc)).collect());
            }
            if lost || writes.is_empty() {
                continue;
            }
            rel_reads.push(RelRead { loop_ix: o.loop_ix as usize, base: Value(o.base), inst: Value(o.inst), read, writes, read_sym, writes_sym });
        }
        ffi::dao_cxx_loop_facts_free(h);
        LoopFacts { team, loops, sections, rel_reads, reads, read_insts, arg_reads, bound_edges, dropped }
    }
}
