//! Explicit task entries: the trampolines every one gets (tasks in flight),
//! and replicas of their bodies for fault-tolerant tasks (`DAO_TASK_FT=dual`
//! or `serial` at run time; runtime/src/task_ft/ and omp/tasks.rs are the
//! other half, docs/design.md section 17 the design).
//!
//! For every task entry named by an `__kmpc_omp_task_alloc` call of this
//! module, [`plan`] decides whether its body can run against a write
//! buffer: the entry and every function it reaches must be defined here and
//! free of what a buffer cannot replay or two executions could not agree on
//! (indirect calls and inline asm; functions outside the module other than
//! libm-like ones that read no memory (the table's `NoMem` + `Pure`); OpenMP
//! runtime calls: creating tasks, taskwait, locks, reductions,
//! `omp_get_thread_num`; atomics, fences, volatile accesses; thread-local
//! variables; I/O). A task that cannot is not replicated and runs once;
//! with `DAO_REMARKS=1` the pass says why, with file:line.
//!
//! [`apply`] clones the functions twice (`dao.ft.<name>` buffered, for
//! `DAO_TASK_FT=dual`, and `dao.fi.<name>` in place, for `serial`; dao's
//! own names, so the shared-write guards and the rest of dao leave them
//! alone). In both it routes every store whose address is not one of the
//! function's own stack objects through `dao_ft_store` (the value passes
//! through one scratch stack slot), `llvm.memcpy` / `memmove` through
//! `dao_ft_copy`, `llvm.memset` through `dao_ft_set`, pointer loads through
//! `dao_ft_load` (where pointer faults are injected), and calls between
//! them to the clones. In the buffered copy every other such load (not of
//! a constant) goes to `dao_ft_load` too, unless the runtime's counters
//! `dao_ft_words` say that no running execution buffers its words: then
//! it loads directly (one or two counter loads and a branch). Then, for every task entry of the
//! module (replicated or not), it makes the trampoline
//! `dao.task.<entry>(gtid, task)` and puts it in the entry's place at the
//! allocation sites and at direct calls of the entry (the undeferred
//! `if(0)` path): it calls `dao_ft_task(gtid, task, entry, buffered,
//! in_place, sizeof_task, sizeof_shareds)` for a replicated task and the
//! entry otherwise, then `dao_omp_task_done` (the task is no longer in
//! flight, runtime/src/omp/tasks.rs; not for a taskloop's entry). Off at
//! run time, a replicated task's trampoline runs the entry: two calls per
//! task more than before.
use dao_analysis::fxhash::{HashMap, HashSet};

use crate::declare::declare;
use crate::ir::{clone_function, set_unlikely_first, Block, Module, Opcode, Value};
use crate::known::{self, Effect, Guard, Intr, Role};
use crate::diag::{Diag, Severity};
use dao_abi::entry;

/// A task entry of the module: it gets a trampoline (`dao.task.<entry>`)
/// that ends its tasks' time in flight (runtime/src/omp/tasks.rs), and, if
/// it can be replicated, runs it through `dao_ft_task`.
#[derive(Debug, Clone)]
pub struct ReplicaPlan {
    pub entry: Value,
    /// `(sizeof_task, sizeof_shareds)` when the task is replicated.
    pub replicate: Option<(u64, u64)>,
    /// A taskloop's entry: libomp runs copies of the pattern task, which
    /// were never counted as in flight (no `dao_omp_task_done`).
    pub taskloop: bool,
}

/// The task entries of the module, and a remark for each one that cannot
/// be replicated.
pub fn plan(m: Module) -> (Vec<ReplicaPlan>, Vec<Diag>) {
    // entry -> (sizes of its sites, first site, feeds a taskloop)
    let mut sites: Vec<(Value, Option<(u64, u64)>, Value, bool)> = Vec::new();
    for f in m.functions() {
        if f.is_declaration() {
            continue;
        }
        for b in f.blocks() {
            for i in b.instructions() {
                let Some(Role::TaskAlloc { entry, size, shareds_size }) = known::call_role(i) else { continue };
                if i.called_function().map(|c| c.name()).as_deref() != Some(known::names::KMPC_OMP_TASK_ALLOC) || i.num_args() <= entry {
                    continue;
                }
                let e = i.operand(entry);
                let sizes = match (i.operand(size).const_int_value(), i.operand(shareds_size).const_int_value()) {
                    (Some(a), Some(b)) => Some((a, b)),
                    _ => None,
                };
                let taskloop = i.users().iter().any(|u| matches!(known::call_role(*u), Some(Role::TaskLoop { task, .. }) if u.num_args() > task && u.operand(task) == i));
                match sites.iter_mut().find(|s| s.0 == e) {
                    Some(s) => {
                        if s.1 != sizes {
                            s.1 = None;
                        }
                        s.3 |= taskloop;
                    }
                    None => sites.push((e, sizes, i, taskloop)),
                }
            }
        }
    }
    let mut plans = Vec::new();
    let mut diags = Vec::new();
    for (e, sizes, site, taskloop) in sites {
        // clang's entries return i32, flang's void (libomp ignores it)
        if !e.is_function() || e.is_declaration() || !matches!(e.function_type().print().as_str(), "i32 (i32, ptr)" | "void (i32, ptr)") {
            // not seen in clang's or flang's output; its tasks stay counted
            // as in flight (no checkpoint inside the region) and run once
            diags.push(Diag {
                severity: Severity::Remark,
                loc: site.debug_loc(),
                func: e.name(),
                msg: "the task created here has an entry this pass does not recognise: it is not replicated under DAO_TASK_FT, and no checkpoint is taken inside its parallel region".into(),
            });
            continue;
        }
        let why = if sizes.is_none() { Some((site, "its descriptor's size is not one constant".to_string())) } else { obstacle(e) };
        if let Some((at, reason)) = &why {
            diags.push(Diag {
                severity: Severity::Remark,
                loc: at.debug_loc().or_else(|| site.debug_loc()),
                func: e.name(),
                msg: format!(
                    "the task created at {} is not replicated under DAO_TASK_FT=dual (it runs once): {reason}",
                    site.debug_loc().unwrap_or_else(|| format!("function '{}'", site.parent_block().parent_function().name()))
                ),
            });
        }
        plans.push(ReplicaPlan { entry: e, replicate: if why.is_none() { sizes } else { None }, taskloop });
    }
    (plans, diags)
}

/// The defined functions `f` reaches by direct calls, `f` first.
fn reach(f: Value) -> Vec<Value> {
    let mut out = vec![f];
    let mut seen: HashSet<Value> = out.iter().copied().collect();
    let mut k = 0;
    while k < out.len() {
        for b in out[k].blocks() {
            for i in b.instructions() {
                if let Some(c) = i.is_call().then(|| callee(i)).flatten() {
                    if !c.is_declaration() && seen.insert(c) {
                        out.push(c);
                    }
                }
            }
        }
        k += 1;
    }
    out
}

/// The first thing in `entry`'s body (or what it calls) that a replica
/// cannot do: the instruction and why.
fn obstacle(entry: Value) -> Option<(Value, String)> {
    // tasks created or waited for first: the reason that matters most
    let tasking = |i: Value| matches!(known::call_role(i), Some(Role::TaskAlloc { .. } | Role::TaskQueue { .. } | Role::TaskLoop { .. } | Role::TaskSync));
    for pass in [true, false] {
        if let Some(x) = first_obstacle(entry, |i| !pass || tasking(i)) {
            return Some(x);
        }
    }
    None
}

fn first_obstacle(entry: Value, consider: impl Fn(Value) -> bool) -> Option<(Value, String)> {
    for f in reach(entry) {
        for b in f.blocks() {
            for i in b.instructions().into_iter().filter(|i| consider(*i)) {
                if let Some(r) = inst_obstacle(i) {
                    let r = if f == entry { r } else { format!("{r} (in '{}', which it calls)", f.name()) };
                    return Some((i, r));
                }
            }
        }
    }
    None
}

fn inst_obstacle(i: Value) -> Option<String> {
    match i.opcode() {
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg | Opcode::LLVMFence => return Some("it uses an atomic operation".into()),
        Opcode::LLVMLoad | Opcode::LLVMStore if i.is_volatile_or_atomic() => return Some("it makes a volatile or atomic access".into()),
        Opcode::LLVMVAArg => return Some("it reads variable arguments".into()),
        Opcode::LLVMInvoke | Opcode::LLVMCallBr => return Some("it has an invoke".into()),
        _ => {}
    }
    for o in i.operands() {
        if o.is_global_var() && o.is_thread_local() {
            return Some(format!("it uses the thread-local variable '{}'", o.name()));
        }
    }
    if !i.is_call() {
        return None;
    }
    let Some(c) = callee(i) else { return Some("it makes an indirect call (or inline assembly)".into()) };
    if !c.is_declaration() {
        return None;
    }
    let name = c.name();
    if let Some(intr) = known::intrinsic(c) {
        return match intr {
            Intr::Copy { .. } | Intr::Set { .. } | Intr::Lifetime | Intr::NoMem => None,
            Intr::ThreadlocalAddress { .. } => Some("it uses a thread-local variable".into()),
            Intr::Other => {
                let ptr = i.args().iter().any(|a| a.ty().is_pointer()) || i.ty().is_pointer();
                ptr.then(|| format!("it calls {name}, which accesses memory"))
            }
        };
    }
    match known::lookup(c) {
        Some(r) if r.effect == Some(Effect::NoMem) && r.guard == Guard::Pure && r.role.is_none() => None,
        Some(r) if matches!(r.role, Some(Role::TaskAlloc { .. } | Role::TaskQueue { .. } | Role::TaskLoop { .. })) => {
            Some(format!("it creates tasks ({name}): its replicas would create them twice; the tasks it creates are replicated themselves"))
        }
        Some(r) if r.role == Some(Role::TaskSync) => Some(format!("it waits for tasks ({name})")),
        _ => Some(format!("it calls {name}, which a write buffer cannot replay (I/O, OpenMP, memory outside the task, or unknown)")),
    }
}

/// The function call `i` calls: its direct callee, or the one function
/// ever stored in the stack slot the callee is loaded from (clang at -O0
/// calls a task's `.omp_task_privates_map.` that way).
fn callee(i: Value) -> Option<Value> {
    if let Some(c) = i.called_function() {
        return Some(c);
    }
    let l = i.called_value();
    if !l.is_instruction() || l.opcode() != Opcode::LLVMLoad || !l.operand(0).is_alloca() {
        return None;
    }
    let slot = l.operand(0);
    let mut f = None;
    for u in slot.users() {
        match u.opcode() {
            Opcode::LLVMLoad => {}
            Opcode::LLVMStore if u.operand(1) == slot && u.operand(0).is_function() && f.map_or(true, |g| g == u.operand(0)) => f = Some(u.operand(0)),
            _ => return None,
        }
    }
    f.filter(|f| f.function_type() == i.call_fn_type())
}

/// Whether `p` is (an offset into) one of its function's stack objects.
fn on_own_stack(mut p: Value) -> bool {
    for _ in 0..64 {
        if p.is_alloca() {
            return true;
        }
        if !p.is_instruction() {
            return false;
        }
        match p.opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => p = p.operand(0),
            _ => return false,
        }
    }
    false
}

/// Whether `p` points into a constant global (read-only: read directly).
fn constant(mut p: Value) -> bool {
    for _ in 0..64 {
        if p.is_global_var() {
            return p.is_global_constant();
        }
        if p.is_const_expr() && matches!(p.const_opcode(), Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast) {
            p = p.operand(0);
            continue;
        }
        return false;
    }
    false
}

/// Carry out the plans: clones, their instrumentation, the trampolines.
pub fn apply(m: Module, plans: &[ReplicaPlan]) {
    if plans.is_empty() {
        return;
    }
    let mut order = Vec::new();
    for p in plans.iter().filter(|p| p.replicate.is_some()) {
        for f in reach(p.entry) {
            if !order.contains(&f) {
                order.push(f);
            }
        }
    }
    // two copies: buffered (DAO_TASK_FT=dual) and in place (serial)
    let buffered = instrument(m, &order, false);
    let in_place = instrument(m, &order, true);
    let task = declare(m, &entry::FT_TASK);
    let done = declare(m, &entry::OMP_TASK_DONE);
    let b = m.builder();
    for p in plans {
        let e = p.entry;
        let t = m.add_function(&format!("dao.task.{}", e.name()), e.function_type());
        t.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let bb = m.append_block(t, "entry");
        b.at_end(bb);
        let ps = t.params();
        match p.replicate {
            Some((size, shareds)) => {
                task.call(&b, &[ps[0], ps[1], e, buffered[&e], in_place[&e], m.const_i64(size), m.const_i64(shareds)], "");
            }
            None => {
                b.call(e.function_type(), e, &[ps[0], ps[1]], "");
            }
        }
        if !p.taskloop {
            done.call(&b, &[], "");
        }
        if e.function_type().fn_return().is_void() {
            b.ret(None);
        } else {
            b.ret(Some(m.const_int(m.i32(), 0)));
        }
        for u in e.users() {
            if !u.is_instruction() || u.parent_block().parent_function() == t {
                continue;
            }
            if u.is_call() && u.called_function() == Some(e) {
                u.set_callee(t);
            } else if let Some(Role::TaskAlloc { entry, .. }) = known::call_role(u) {
                if u.num_args() > entry && u.operand(entry) == e {
                    u.set_operand(entry, t);
                }
            }
        }
    }
}

/// Clones of `funcs` (`dao.ft.*` buffered, `dao.fi.*` in place) with their
/// memory accesses routed as the module comment says; in place, loads stay
/// direct but pointer loads (where pointer faults are injected).
fn instrument(m: Module, funcs: &[Value], in_place: bool) -> HashMap<Value, Value> {
    let prefix = if in_place { "dao.fi" } else { "dao.ft" };
    let clones: HashMap<Value, Value> = funcs.iter().map(|f| (*f, clone_function(*f, &format!("{prefix}.{}", f.name())))).collect();
    let order = funcs;
    let load = declare(m, &entry::FT_LOAD);
    let store = declare(m, &entry::FT_STORE);
    let copy = declare(m, &entry::FT_COPY);
    let set = declare(m, &entry::FT_SET);
    let words_ty = m.array(m.i32(), 1u64 << dao_abi::FT_WORDS_BITS);
    let words = m.extern_global(words_ty, dao_abi::FT_WORDS);
    let mask = (1u64 << dao_abi::FT_WORDS_BITS) - 1;
    let b = m.builder();
    for f in order {
        let c = clones[f];
        let insts: Vec<Value> = c.blocks().iter().flat_map(|b| b.instructions()).collect();
        // the scratch slot: as large as the largest value moved through it
        let mut need = 8u64;
        for i in &insts {
            match i.opcode() {
                Opcode::LLVMLoad => need = need.max(m.store_size(i.ty())),
                Opcode::LLVMStore => need = need.max(m.store_size(i.operand(0).ty())),
                _ => {}
            }
        }
        let first = c.entry_block().first_instruction().expect("a defined function has an entry instruction");
        b.before(first);
        let scratch = b.alloca(m.array(m.i8(), need), "dao.ft.scratch", 64);
        for i in insts {
            match i.opcode() {
                Opcode::LLVMLoad => {
                    let p = i.operand(0);
                    if on_own_stack(p) || constant(p) {
                        continue;
                    }
                    let ty = i.ty();
                    let size = m.store_size(ty);
                    let kind = ty.is_pointer() as u32;
                    let slow_load = |b: &crate::ir::Builder| {
                        load.call(b, &[p, scratch, m.const_i64(size), m.const_i32(kind)], "");
                        b.load_aligned(ty, scratch, "", 64.min(m.abi_align(ty) as u32).max(1))
                    };
                    // pointers always ask the runtime (where pointer faults
                    // are injected); values of at most two words whose
                    // counters are 0 are loaded directly
                    if in_place && !ty.is_pointer() {
                        continue;
                    }
                    if ty.is_pointer() || !(size <= 8 || (size <= 16 && i.alignment() >= 8)) {
                        b.before(i);
                        let v = slow_load(&b);
                        i.replace_all_uses_with(v);
                        i.erase();
                        continue;
                    }
                    let bb = i.parent_block();
                    let cont = Block::split_before(i, "dao.ft.cont");
                    if let Some(br) = bb.terminator() {
                        br.erase();
                    }
                    let direct = m.append_block(c, "dao.ft.direct");
                    let buffered = m.append_block(c, "dao.ft.buffered");
                    b.at_end(bb);
                    let a = b.ptr_to_int(p, m.i64(), "");
                    // a naturally aligned power-of-two load lies in one word
                    let one_word = size.is_power_of_two() && u64::from(i.alignment()) >= size;
                    let ends = if one_word { vec![a] } else { vec![a, b.add(a, m.const_i64(size - 1), "")] };
                    let mut any = None;
                    for x in ends {
                        let h = b.and(b.lshr(x, m.const_i64(3), ""), m.const_i64(mask), "");
                        let slot = b.gep(words_ty, words, &[m.const_i64(0), h], "");
                        let c = b.load_relaxed(m.i32(), slot, "", 4);
                        any = Some(match any {
                            None => c,
                            Some(o) => b.or(o, c, ""),
                        });
                    }
                    let any = any.unwrap();
                    let busy = b.icmp_ne(any, m.const_int(m.i32(), 0), "");
                    let br = b.cond_br(busy, buffered, direct);
                    set_unlikely_first(m, br);
                    b.at_end(direct);
                    let to_cont = b.br(cont);
                    i.move_before(to_cont, &b);
                    b.at_end(buffered);
                    let v = slow_load(&b);
                    b.br(cont);
                    b.before(cont.first_instruction().expect("the split block keeps the load's successors"));
                    let phi = b.phi(ty, "");
                    i.replace_all_uses_with(phi);
                    phi.add_incoming(i, direct);
                    phi.add_incoming(v, buffered);
                }
                Opcode::LLVMStore => {
                    let (v, p) = (i.operand(0), i.operand(1));
                    if on_own_stack(p) {
                        continue;
                    }
                    b.before(i);
                    b.store_aligned(v, scratch, 64.min(m.abi_align(v.ty()) as u32).max(1));
                    store.call(&b, &[p, scratch, m.const_i64(m.store_size(v.ty()))], "");
                    i.erase();
                }
                _ if i.is_call() => {
                    let Some(callee) = callee(i) else { continue };
                    if let Some(&cl) = clones.get(&callee) {
                        i.set_callee(cl);
                        continue;
                    }
                    match known::intrinsic(callee) {
                        Some(Intr::Copy { dest, src, len }) => {
                            b.before(i);
                            let n = b.zext(i.operand(len), m.i64(), "");
                            copy.call(&b, &[i.operand(dest), i.operand(src), n], "");
                            i.erase();
                        }
                        Some(Intr::Set { dest, len }) => {
                            b.before(i);
                            let n = b.zext(i.operand(len), m.i64(), "");
                            let v = b.zext(i.operand(1), m.i32(), "");
                            set.call(&b, &[i.operand(dest), v, n], "");
                            i.erase();
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    clones
}
