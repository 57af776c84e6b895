//! Pointer provenance on the IR: the objects a pointer may point into
//! ([`Obj`], [`Bases`], computed per function by `func_facts.rs`), and the
//! IR-only walks that need no per-function facts: whether an address
//! escapes, is only loaded and stored, is taken (a function's), or
//! certainly points to thread-private memory (the guards' question).
use crate::ir::{Opcode, Value};
use crate::known::{self, Effect, Intr, Role};
use dao_analysis::fxhash::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Obj {
    Alloca(usize),
    Global(usize),
}

#[derive(Clone, Debug, Default)]
pub struct Bases {
    pub objs: Vec<Obj>,
    pub unknown: bool,
    pub param: bool,
    /// Points into a block from an allocation function: the heap, which
    /// the runtime finds by reachability, so no stack object or global.
    pub heap: bool,
}

impl Bases {
    pub fn join(&mut self, o: &Bases) {
        for x in &o.objs {
            if !self.objs.contains(x) {
                self.objs.push(*x);
            }
        }
        self.unknown |= o.unknown;
        self.param |= o.param;
        self.heap |= o.heap;
    }
    pub fn unknown() -> Self {
        Bases { unknown: true, ..Default::default() }
    }
}

/// Whether `f`'s address is used other than as the callee of a call, or as
/// the outlined function handed to an OpenMP runtime entry point
/// (`__kmpc_fork_call`, `__kmpc_omp_task_alloc`, ...): such a region runs
/// only where the module's own code starts it.
pub fn address_taken(f: Value) -> bool {
    f.users().into_iter().any(|u| {
        if !u.is_instruction() || !u.is_call() {
            return true;
        }
        if u.called_value() == f {
            return false;
        }
        let callee = u.called_function().map(|c| c.name()).unwrap_or_default();
        !(callee.starts_with("__kmpc_") || callee.starts_with("__tgt_"))
    })
}

/// Whether every use of address `p` (through GEPs and casts, instructions
/// or constant expressions) is a load from it, a store to it, a memory
/// intrinsic's destination or source, a lifetime marker, a comparison (no
/// merge, no escape), or a pass to parameters of functions defined here that use it
/// only in those ways, or pass it on to such
/// parameters ([`param_reads_seen`]). Every read of the object is then a
/// load or a transfer whose underlying object it is, or one through such a
/// parameter: the shim reports both (`ir::ArgRead`, reads through a
/// parameter and the calls that pass pointers on), and `facts.rs`
/// `set_readable` composes them. Writes through the parameters are not
/// seen: this is for the bytes that may be read, never for
/// [`only_accessed`]'s question (every write seen).
pub fn reads_seen(p: Value) -> bool {
    accessed_or_passed(p, &mut HashSet::default())
}

/// A use of `p`'s address that [`reads_seen`] does not take, for
/// `DAO_DEBUG_LOOPS`.
fn refused(p: Value, u: Value) -> bool {
    if crate::config::debug_loops() {
        let f = if u.is_instruction() { u.parent_block().parent_function().name() } else { String::new() };
        eprintln!("dao-debug: reads of {} not all seen: a use in '{f}' at {:?}, opcode {:?}", p.name(), u.debug_loc(), if u.is_instruction() { Some(u.opcode()) } else { None });
    }
    false
}

/// Every use of parameter `p` of a defined function (through GEPs and
/// casts) is a load, a store through it, a memory intrinsic, a lifetime
/// marker, or a pass to a parameter of a defined function that is such a
/// parameter too (recursion: a parameter being checked counts as one).
pub fn param_reads_seen(p: Value, seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(p) {
        return true;
    }
    accessed_or_passed(p, seen)
}

/// Walk every use of address `p` through address arithmetic (GEPs and
/// casts, instructions or constant expressions): `use_ok(v, u)` decides
/// each other use `u` of an address `v` derived from `p`; a constant
/// expression of another kind, or a user that is not an instruction, is
/// refused (and, with `report`, shown by [`refused`]). Whether every use
/// was taken.
fn address_uses_all(p: Value, report: bool, mut use_ok: impl FnMut(Value, Value) -> bool) -> bool {
    let no = |u: Value| if report { refused(p, u) } else { false };
    let mut work = vec![p];
    let mut seen = HashSet::default();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            if u.is_const_expr() {
                match u.const_opcode() {
                    Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => work.push(u),
                    _ => return no(u),
                }
                continue;
            }
            if !u.is_instruction() {
                return no(u);
            }
            match u.opcode() {
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => work.push(u),
                _ if use_ok(v, u) => {}
                _ => return no(u),
            }
        }
    }
    true
}

/// For the debug output (`DAO_DEBUG_LOOPS`): the first use of `p`'s
/// address that [`only_accessed`] (through known calls) refuses.
pub fn first_other_use(p: Value) -> Option<Value> {
    let mut first = None;
    address_uses_all(p, false, |v, u| {
        let ok = only_accessed_use(v, u, true);
        if !ok && first.is_none() {
            first = Some(u);
        }
        ok
    });
    first
}

fn accessed_or_passed(p: Value, params: &mut HashSet<Value>) -> bool {
    address_uses_all(p, true, |v, u| {
        match u.opcode() {
            Opcode::LLVMLoad => true,
            // a comparison of addresses (the vectoriser's overlap checks)
            // reads nothing
            Opcode::LLVMICmp => true,
            Opcode::LLVMStore => u.operand(0) != v,
            Opcode::LLVMCall => match known::call_intrinsic(u) {
                Some(Intr::Copy { .. } | Intr::Set { .. } | Intr::Lifetime) => u.called_value() != v,
                Some(_) => false,
                // a direct call of a function defined here, as many
                // arguments as parameters (the shim's `argReads`)
                None => u.called_function().is_some_and(|f| {
                    let fps = f.params();
                    let args = u.args();
                    u.called_value() != v
                        && !f.is_declaration()
                        && known::call_role(u).is_none()
                        && args.len() == fps.len()
                        && args.iter().zip(&fps).all(|(a, fp)| *a != v || param_reads_seen(*fp, params))
                }),
            },
            _ => false,
        }
    })
}

/// Every use of `p` a load, a store to it, a memory intrinsic or a
/// lifetime marker, or also passed as an argument to a known
/// external function that reads and may write only through its pointer
/// arguments, without keeping them (`fscanf(fp, "%d", &grid_points[0])`:
/// `known::Effect::ReadsArgs`) when `through_known_calls`, or passed to a
/// parameter of a function defined here that only reads through it
/// ([`read_only_param`]: Fortran passes every scalar by reference, C codes
/// an extent array `int d[3]`), or stored into a stack slot that is only
/// loaded to read through ([`slot_read_only`]). Every write of the object is then a store,
/// a memory intrinsic or such a known call that names it (the
/// runtime-checked conditions' eligibility, `cond.rs`, which counts those
/// calls as writes); the defined functions it is passed to write nothing
/// through it.
pub fn only_accessed(p: Value, through_known_calls: bool) -> bool {
    address_uses_all(p, false, |v, u| only_accessed_use(v, u, through_known_calls))
}

fn only_accessed_use(v: Value, u: Value, through_known_calls: bool) -> bool {
    match u.opcode() {
        Opcode::LLVMLoad => true,
        Opcode::LLVMStore if u.operand(0) != v => true,
        Opcode::LLVMStore => through_known_calls && slot_read_only(u.operand(1)),
        Opcode::LLVMCall => match known::call_intrinsic(u) {
            Some(Intr::Copy { .. } | Intr::Set { .. } | Intr::Lifetime) => u.called_value() != v,
            Some(_) => false,
            None => {
                through_known_calls
                    && ((u.called_value() != v && u.called_function().and_then(known::effect) == Some(known::Effect::ReadsArgs)) || passed_read_only(u, v, &mut HashSet::default()) || forked_read_only(u, v))
            }
        },
        _ => false,
    }
}

/// A stack slot the address is stored into only to be read through: an
/// alloca whose every use is a store into it, a lifetime marker, a load
/// whose value is only read through ([`read_only_param`]), or a fork that
/// passes it to an outlined function whose parameter is used in the same
/// way. OpenMP's by-reference capture of a pointer variable: NPB FT's
/// `evolve(u0, u1, t, indexmap, dims[0])`, inlined at -O2, stores
/// `dims[0]` into the capture slot of the region's `d`, which the region
/// loads to read the extents through.
fn slot_read_only(slot: Value) -> bool {
    slot_read_only_in(slot, &mut HashSet::default())
}

/// [`slot_read_only`] inside a walk of [`read_only_param`] (`seen`: the
/// values being checked, so a recursive function ends the walk).
fn slot_read_only_in(slot: Value, seen: &mut HashSet<Value>) -> bool {
    if !slot.is_alloca() {
        return false;
    }
    slot.users().into_iter().all(|u| {
        if !u.is_instruction() {
            return false;
        }
        match u.opcode() {
            Opcode::LLVMStore => u.operand(1) == slot && u.operand(0) != slot,
            Opcode::LLVMLoad => read_only_param(u, seen),
            Opcode::LLVMCall if known::call_intrinsic(u) == Some(Intr::Lifetime) => true,
            Opcode::LLVMCall => {
                let Some(mt) = u.called_function().and_then(known::fork_microtask) else { return false };
                let f = u.operand(mt);
                if u.called_value() == slot || !f.is_function() || f.is_declaration() {
                    return false;
                }
                let params = f.params();
                (mt + 1..u.num_args()).filter(|&k| u.operand(k) == slot).all(|k| params.get((2 + k - mt - 1) as usize).is_some_and(|p| loads_read_only(*p, seen)))
                    && (0..=mt).all(|k| u.operand(k) != slot)
            }
            _ => false,
        }
    })
}

/// A region's parameter that points to a captured pointer variable: every
/// use of `p` is a load whose value is only read through
/// ([`read_only_param`]), or (-O0) a store of `p` into a stack slot of its
/// own whose other uses are loads of such copies of `p`.
fn loads_read_only(p: Value, seen: &mut HashSet<Value>) -> bool {
    p.users().into_iter().all(|l| {
        if !l.is_instruction() {
            return false;
        }
        match l.opcode() {
            Opcode::LLVMLoad => read_only_param(l, seen),
            Opcode::LLVMStore if l.operand(0) == p && l.operand(1) != p => own_slot_loads(p, l.operand(1), |w| loads_read_only(w, seen)),
            _ => false,
        }
    })
}

/// -O0: `local`, where `p` is stored, is a stack slot of its own: every
/// use is a store of `p` into it, a lifetime marker or a pointer load
/// whose value `ok` accepts.
fn own_slot_loads(p: Value, local: Value, mut ok: impl FnMut(Value) -> bool) -> bool {
    local.is_instruction()
        && local.is_alloca()
        && local.users().into_iter().all(|w| {
            w.is_instruction()
                && match w.opcode() {
                    Opcode::LLVMLoad => w.ty().is_pointer() && ok(w),
                    Opcode::LLVMStore => w.operand(1) == local && w.operand(0) == p,
                    Opcode::LLVMCall => known::call_intrinsic(w) == Some(Intr::Lifetime),
                    _ => false,
                }
        })
}

/// A direct call of a defined function, or a fork of a defined region,
/// passes `p` only to parameters (of the function; of the region: a
/// capture) that `ok` accepts; false for any other call.
pub fn params_passed_all(call: Value, p: Value, mut ok: impl FnMut(Value) -> bool) -> bool {
    let (f, first, param0) = match known::call_role(call) {
        Some(Role::Fork { microtask }) => (call.operand(microtask), microtask + 1, 2u32),
        Some(_) => return false,
        None => match call.called_function() {
            Some(f) => (f, 0, 0),
            None => return false,
        },
    };
    if !f.is_function() || f.is_declaration() {
        return false;
    }
    let params = f.params();
    call.args().iter().enumerate().all(|(k, x)| *x != p || ((k as u32) >= first && params.get(param0 as usize + k - first as usize).is_some_and(|q| ok(*q))))
}

/// Fork `call` passes `v` only as captures its region only reads through
/// ([`read_only_capture`]: a local of `main` promoted to a global,
/// passed to the region by reference).
fn forked_read_only(call: Value, v: Value) -> bool {
    let Some(crate::known::Role::Fork { microtask }) = known::call_role(call) else { return false };
    let f = call.operand(microtask);
    if call.called_value() == v || !f.is_function() || f.is_declaration() || (0..=microtask).any(|k| call.operand(k) == v) {
        return false;
    }
    let params = f.params();
    (microtask + 1..call.num_args()).filter(|&k| call.operand(k) == v).all(|k| params.get((2 + k - microtask - 1) as usize).is_some_and(|p| read_only_capture(*p, &mut HashSet::default())))
}

/// Every use of pointer parameter `p` is a load through it (through
/// constant offsets), a pass to a read-only parameter of a defined
/// function or region, or (-O0) one store of it into a local slot of its
/// own whose other uses are loads, each read-only in the same way.
pub fn read_only_capture(p: Value, seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(p) {
        return true;
    }
    p.users().into_iter().all(|u| {
        if !u.is_instruction() {
            return false;
        }
        match u.opcode() {
            Opcode::LLVMLoad => true,
            Opcode::LLVMGetElementPtr if u.operand(0) == p => read_only_capture(u, seen),
            Opcode::LLVMStore if u.operand(0) == p && u.operand(1) != p => own_slot_loads(p, u.operand(1), |w| read_only_capture(w, seen)),
            Opcode::LLVMCall if known::call_intrinsic(u).is_none() && u.called_value() != p => params_passed_all(u, p, |q| read_only_capture(q, seen)),
            _ => false,
        }
    })
}

/// Call `call` passes `v` only to parameters of its (direct, defined, not
/// variadic) callee that it only reads through ([`read_only_param`]).
fn passed_read_only(call: Value, v: Value, seen: &mut HashSet<Value>) -> bool {
    let Some(f) = call.called_function() else { return false };
    if call.called_value() == v || f.is_declaration() || known::call_role(call).is_some() {
        return false;
    }
    let params = f.params();
    let args = call.args();
    args.len() == params.len() && args.iter().zip(&params).all(|(a, p)| *a != v || read_only_param(*p, seen))
}

/// Every use of parameter `p` (through GEPs, casts, phis and selects) is a
/// load, a pass to another defined function's parameter that is read
/// only too (recursion: a parameter being checked counts as read only),
/// or (-O0) a store of it into a stack slot only read through
/// ([`slot_read_only`]).
/// (A phi or select merges `p` with other pointers: when all that is done
/// with the result is reading through it, nothing is written through `p`
/// either. -O2 keeps a captured `int d[3]` reloaded around the calls in
/// a loop and merged by phis: NPB FT's `cffts1` regions.)
fn read_only_param(p: Value, seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(p) {
        return true;
    }
    let mut work = vec![p];
    let mut done = HashSet::default();
    while let Some(v) = work.pop() {
        if !done.insert(v) {
            continue;
        }
        for u in v.users() {
            if !u.is_instruction() {
                return false;
            }
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMPHI => work.push(u),
                Opcode::LLVMSelect if u.operand(0) != v => work.push(u),
                Opcode::LLVMCall if known::call_intrinsic(u).is_none() && passed_read_only(u, v, seen) => {}
                // -O0: the parameter kept in a stack slot of its own, which
                // is only loaded to read through (or passed to a region
                // that does)
                Opcode::LLVMStore if u.operand(0) == v && u.operand(1) != v && slot_read_only_in(u.operand(1), seen) => {}
                _ => return false,
            }
        }
    }
    true
}

/// Does the address `p` escape (stored, passed to a capturing call,
/// converted to an integer, returned)?
pub fn escapes(p: Value) -> bool {
    let mut seen = HashSet::default();
    escapes_rec(p, &mut seen)
}

pub fn escapes_rec(p: Value, seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(p) {
        return false;
    }
    for u in p.users() {
        if u.is_instruction() {
            match u.opcode() {
                Opcode::LLVMLoad => {}
                Opcode::LLVMStore => {
                    if u.operand(0) == p {
                        return true;
                    }
                }
                Opcode::LLVMGetElementPtr
                | Opcode::LLVMBitCast
                | Opcode::LLVMAddrSpaceCast
                | Opcode::LLVMSelect
                | Opcode::LLVMPHI => {
                    if escapes_rec(u, seen) {
                        return true;
                    }
                }
                Opcode::LLVMICmp => {}
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
                    if u.called_value() == p {
                        continue;
                    }
                    // known functions and intrinsics do not keep pointers
                    let harmless = matches!(
                        u.called_function().and_then(known::effect),
                        Some(Effect::NoMem | Effect::ReadsArgs | Effect::Alloc { .. } | Effect::Env | Effect::Intrinsic)
                    );
                    if harmless {
                        continue;
                    }
                    let args = u.args();
                    for (i, a) in args.iter().enumerate() {
                        if *a == p && !u.arg_nocapture(i as u32) {
                            return true;
                        }
                    }
                }
                _ => return true,
            }
        } else if u.is_const_expr() {
            if escapes_rec(u, seen) {
                return true;
            }
        } else {
            // referenced from a global initializer or other constant
            return true;
        }
    }
    false
}

/// Whether every value `f` returns is derived (address arithmetic, phis,
/// selects) from its arguments alone: NPB FT's `fft_lines` returns the one
/// of its two buffers that holds the result.
pub fn returns_an_argument(f: Value) -> bool {
    let mut rets = Vec::new();
    for b in f.blocks() {
        if let Some(t) = b.terminator().filter(|t| t.opcode() == Opcode::LLVMRet) {
            if t.num_operands() != 1 {
                return false;
            }
            rets.push(t.operand(0));
        }
    }
    let mut seen = HashSet::default();
    while let Some(v) = rets.pop() {
        if !seen.insert(v) {
            continue;
        }
        if v.is_argument() {
            continue;
        }
        match derived_from(v) {
            Some(srcs) if v.is_instruction() => rets.extend(srcs),
            _ => return false,
        }
    }
    !seen.is_empty()
}

/// The pointer-provenance step shared by the two walkers below: the values
/// a pointer `v` is computed from by address arithmetic (a GEP or a cast,
/// instruction or constant expression: its operand 0) or by a merge (an
/// instruction `select`: both choices; a `phi`: every incoming value).
/// `None`: `v` is where a walk stops (an object, an argument, a load, a
/// call, a constant, ...).
///
/// Two questions walk these steps, and their answers at the leaves differ
/// on purpose, so they stay two functions:
/// - [`FuncFacts::bases`] (liveness): *which objects may `v` point into?*
///   A may-set, memoised per function, that also looks through loads from
///   non-escaping local slots and knows parameters and heap results.
/// - [`points_to_private`] (guards, after instrumentation): *does `v`
///   certainly point to memory no other thread uses?* A must-answer with
///   no per-function facts: any load or unknown leaf means "shared".
///   Answering it from `bases` would change the guards (a pointer loaded
///   from a local slot would become private, a foreign thread-local
///   unknown).
pub fn derived_from(v: Value) -> Option<Vec<Value>> {
    if v.is_const_expr() {
        return match v.const_opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => Some(vec![v.operand(0)]),
            _ => None,
        };
    }
    if !v.is_instruction() {
        return None;
    }
    match v.opcode() {
        Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => Some(vec![v.operand(0)]),
        Opcode::LLVMSelect => Some(vec![v.operand(1), v.operand(2)]),
        Opcode::LLVMPHI => Some((0..v.incoming_count()).map(|i| v.operand(i)).collect()),
        _ => None,
    }
}

/// Whether `p` provably points to memory no other thread writes or reads
/// through the program's shared data: this function's stack objects,
/// thread-local globals, constant globals (see [`derived_from`] for why
/// this is not [`FuncFacts::bases`]). Gives up (shared) after 8 steps.
pub fn points_to_private(p: Value) -> bool {
    private_rec(p, 0)
}

pub fn private_rec(p: Value, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    if p.is_alloca() {
        return true;
    }
    if p.is_global_var() {
        return p.is_thread_local() || p.is_global_constant();
    }
    if let Some(srcs) = derived_from(p) {
        return if p.is_instruction() && p.opcode() == Opcode::LLVMPHI {
            // a loop's phi may name itself
            !srcs.is_empty() && srcs.iter().all(|o| *o == p || private_rec(*o, depth + 1))
        } else {
            srcs.iter().all(|o| private_rec(*o, depth + 1))
        };
    }
    p.is_instruction() && matches!(known::call_intrinsic(p), Some(Intr::ThreadlocalAddress { .. }))
}

/// A declared (not defined here) libc stream global: `stdout`, ...
pub fn is_libc_stream(p: Value) -> bool {
    p.is_global_var() && p.initializer().is_none() && dao_analysis::known::is_libc_stream(&p.name())
}

/// Whether everything done through pointer `p` is a store to it (through
/// constant or variable offsets, phis of such addresses), a memset of it,
/// a lifetime marker, or an address comparison.
pub fn write_only(p: Value, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    p.users().into_iter().all(|u| match u.opcode() {
        crate::ir::Opcode::LLVMGetElementPtr => u.operand(0) == p && write_only(u, depth + 1),
        // (the vectoriser's overlap checks compare addresses: no access)
        crate::ir::Opcode::LLVMICmp => true,
        crate::ir::Opcode::LLVMPtrToInt => int_only_compared(u, 0),
        crate::ir::Opcode::LLVMPHI => write_only(u, depth + 1),
        crate::ir::Opcode::LLVMStore => u.operand(1) == p && u.operand(0) != p,
        crate::ir::Opcode::LLVMCall => matches!(crate::known::call_intrinsic(u), Some(crate::known::Intr::Set { dest, .. }) if u.operand(dest) == p) || crate::known::call_intrinsic(u) == Some(crate::known::Intr::Lifetime),
        _ => false,
    })
}

/// Whether integer `v` (an address's) is only compared, directly or
/// through differences and sums (the vectoriser's overlap checks), never
/// turned back into a pointer.
fn int_only_compared(v: Value, depth: u32) -> bool {
    depth < 4
        && v.users().into_iter().all(|u| match u.opcode() {
            crate::ir::Opcode::LLVMICmp => true,
            crate::ir::Opcode::LLVMSub | crate::ir::Opcode::LLVMAdd => int_only_compared(u, depth + 1),
            _ => false,
        })
}
