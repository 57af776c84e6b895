//! Variable-size stack allocations on a marker path, moved to the heap.
//!
//! A restart rebuilds each frame of the marker's chain at its old address
//! and jumps into it, so every frame on the chain needs a layout fixed at
//! compile time. A variable-size alloca (a C VLA, `alloca(n)`, and, in every
//! Fortran program built by flang 19, the temporary of a character
//! concatenation such as `trim(dir) // '/log.txt'`, which flang allocates
//! on the stack with its run-time length, without a stack save around it)
//! moves the stack pointer by an amount known only at run time. Such a
//! function used to be refused.
//!
//! When each such alloca runs at most once per call of its function (it
//! is not on a cycle of the CFG), or before each time it runs again a
//! stack restore releases it (a C VLA declared in a loop's body: clang
//! saves the stack at the start of the body and restores it at its end),
//! the pass moves it to the heap before the planning: a pointer slot in the entry block, null at entry; the alloca
//! becomes `malloc(count * size)` (`aligned_alloc` above 16 bytes of
//! alignment) stored in the slot; the block is freed where the stack would
//! have released it: before every `ret` and `resume` of the function, and
//! before a `llvm.stackrestore` whose `llvm.stacksave` comes before the
//! alloca on every path (dominates it; the slot is then nulled). The
//! frame's layout is then fixed; the slot is a stack object like any other
//! (live across a marker when a return follows) and the block a heap block,
//! saved and put back at its address like every block of the dao heap (the
//! new calls are routed to it with the program's own).
//!
//! Refused, with the reason (the earlier diagnostic): an alloca that can
//! run again with no stack restore releasing it between (`alloca(n)` in a
//! loop: each iteration would need a block of its own, released only at
//! the return, where a loop may have made any number), a stack restore whose
//! saved position is not a `llvm.stacksave` the pass can see, a stack
//! restore that may or may not release the alloca (its save neither comes
//! first on every path nor after it), a return right after a `musttail`
//! call (nothing may come between them), and a type without a size.
//!
//! Leaks, not errors: a block of a frame left by `longjmp` or by an
//! exception unwinding through a plain call is not freed (the stack would
//! have released it).
use crate::ir::{Block, Module, Opcode, Value};
use dao_analysis::fxhash::HashSet;

/// Whether block `target` can be reached from the successors of `from`.
fn reachable(from: Block, target: Block) -> bool {
    let mut seen = HashSet::default();
    let mut work = from.successors();
    while let Some(x) = work.pop() {
        if x == target {
            return true;
        }
        if seen.insert(x) {
            work.extend(x.successors());
        }
    }
    false
}

/// Whether block `b` lies on a cycle of its function's CFG.
pub fn on_cycle(b: Block) -> bool {
    reachable(b, b)
}

/// Position of instruction `i` in its block.
fn pos(i: Value) -> usize {
    i.parent_block().instructions().iter().position(|x| *x == i).unwrap_or(usize::MAX)
}

/// Whether instruction `to` can run after instruction `from` in one call.
fn reaches(from: Value, to: Value) -> bool {
    let (bf, bt) = (from.parent_block(), to.parent_block());
    (bf == bt && pos(from) < pos(to)) || reachable(bf, bt)
}

/// Whether instruction `s` comes before instruction `d` on every path from
/// the entry (dominates it).
fn dominates(s: Value, d: Value) -> bool {
    let (bs, bd) = (s.parent_block(), d.parent_block());
    if bs == bd {
        return pos(s) < pos(d);
    }
    let entry = bs.parent_function().entry_block();
    if bs == entry {
        return true;
    }
    // d's block reached from the entry without passing s's block: not
    let mut seen = HashSet::default();
    let mut work = vec![entry];
    while let Some(x) = work.pop() {
        if x == bs || !seen.insert(x) {
            continue;
        }
        if x == bd {
            return false;
        }
        work.extend(x.successors());
    }
    true
}

fn intrinsic_named(i: Value, prefix: &str) -> bool {
    i.is_call() && i.called_function().is_some_and(|f| f.name().starts_with(prefix))
}

/// The `llvm.stacksave` calls a stack position may come from: the call
/// itself, a phi of such positions (clang at -O2 merges the saves of two
/// paths), or (clang at -O0) a load of a stack slot only stored with such
/// positions; `None` when it may come from anything else.
fn saves_of(t: Value, seen: &mut HashSet<Value>, out: &mut Vec<Value>) -> bool {
    if !seen.insert(t) {
        return true;
    }
    if !t.is_instruction() {
        return false;
    }
    if intrinsic_named(t, "llvm.stacksave") {
        out.push(t);
        return true;
    }
    if t.is_phi() {
        return t.operands().into_iter().all(|v| saves_of(v, seen, out));
    }
    if t.opcode() != Opcode::LLVMLoad || !t.operand(0).is_alloca() {
        return false;
    }
    let slot = t.operand(0);
    slot.users().into_iter().all(|u| match u.opcode() {
        Opcode::LLVMLoad => true,
        Opcode::LLVMStore if u.operand(1) == slot && u.operand(0) != slot => saves_of(u.operand(0), seen, out),
        _ => false,
    })
}

/// The function's stack restores, each with the stack saves its position
/// may come from (`None`: not only `llvm.stacksave` calls).
fn restores(f: Value) -> Vec<(Value, Option<Vec<Value>>)> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if intrinsic_named(i, "llvm.stackrestore") {
                let mut saves = Vec::new();
                let ok = saves_of(i.operand(0), &mut HashSet::default(), &mut saves);
                out.push((i, ok.then_some(saves)));
            }
        }
    }
    out
}

/// The function's exits: its `ret` and `resume` instructions.
fn exits(f: Value) -> Vec<Value> {
    f.blocks().into_iter().filter_map(|b| b.terminator()).filter(|t| matches!(t.opcode(), Opcode::LLVMRet | Opcode::LLVMResume)).collect()
}

/// Whether `a` can run again after itself without passing one of the
/// stack restores `releasing` (which free its block): a C VLA declared in
/// a loop's body is released at the end of each iteration, so it can.
fn again_unreleased(a: Value, releasing: &[Value]) -> bool {
    let stops = |b: Block, from: usize| b.instructions().into_iter().skip(from).position(|i| i == a || releasing.contains(&i)).map(|k| b.instructions()[from + k]);
    // the rest of a's own block first
    let ab = a.parent_block();
    match stops(ab, pos(a) + 1) {
        Some(i) if i == a => return true,
        Some(_) => return false,
        None => {}
    }
    let mut seen = HashSet::default();
    let mut work = ab.successors();
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        match stops(x, 0) {
            Some(i) if i == a => return true,
            Some(_) => {}
            None => work.extend(x.successors()),
        }
    }
    false
}

/// The stack restores of `f` that release alloca `a` (the block is freed
/// before each), or why that cannot be decided. A restore that may run
/// after `a` releases it when each save its position may come from either
/// comes before `a` on every path (dominates it) or never runs in the same
/// call as `a` (neither reaches the other: `a` then did not run, its slot
/// is null); it keeps `a` when each such save runs after `a` or never with
/// it; any other mix is undecidable.
fn releasing(f: Value, a: Value) -> Result<Vec<Value>, &'static str> {
    let mut out = Vec::new();
    for (r, saves) in restores(f) {
        let Some(saves) = saves else {
            return Err("the function restores the stack to a position the pass cannot follow");
        };
        if !reaches(a, r) {
            continue;
        }
        let (mut before, mut after) = (false, false);
        for s in saves {
            if dominates(s, a) {
                before = true;
            } else if reaches(s, a) {
                return Err("a stack restore of the function may or may not release it");
            } else if reaches(a, s) {
                after = true;
            }
        }
        match (before, after) {
            (true, true) => return Err("a stack restore of the function may or may not release it"),
            (true, false) => out.push(r),
            _ => {}
        }
    }
    Ok(out)
}

/// Why the variable-size alloca `a` of function `f` cannot be moved to the
/// heap, or `None` when it can.
pub fn why_not(m: Module, f: Value, a: Value) -> Option<&'static str> {
    if !m.is_sized(a.allocated_type()) {
        return Some("its type has no size");
    }
    let releasing = match releasing(f, a) {
        Ok(r) => r,
        Err(why) => return Some(why),
    };
    if on_cycle(a.parent_block()) && again_unreleased(a, &releasing) {
        return Some("it is allocated in a loop with no stack restore releasing it before the next iteration (each iteration would need a block of its own)");
    }
    if exits(f).iter().any(|e| e.previous_instruction().is_some_and(|p| p.is_call() && p.is_musttail())) {
        return Some("the function returns right after a musttail call");
    }
    None
}

/// Moves each variable-size alloca of `allocas` (all accepted by
/// [`why_not`]) to the heap, as the module comment says. Returns, per
/// alloca, its function's name and its source location (for `-Rdao`).
pub fn rewrite(m: Module, allocas: &[Value]) -> Vec<(String, Option<String>)> {
    let ptr = m.ptr();
    let i64t = m.i64();
    let malloc_ty = m.fn_ty(ptr, &[i64t]);
    let aligned_ty = m.fn_ty(ptr, &[i64t, i64t]);
    let free_ty = m.fn_ty(m.void(), &[ptr]);
    let malloc = m.get_or_declare("malloc", malloc_ty);
    let free = m.get_or_declare("free", free_ty);
    let b = m.builder();
    let mut done = Vec::new();
    for &a in allocas {
        let f = a.parent_block().parent_function();
        done.push((f.name(), a.debug_loc()));
        let Some(first) = f.entry_block().first_instruction() else { continue };
        // the slot, null from the function's entry
        b.before(first);
        let slot = b.alloca(ptr, "dao.vla.heap", 8);
        b.store(m.const_null(), slot);
        // the block
        let ty = a.allocated_type();
        let mut count = a.operand(0);
        b.before(a);
        if count.ty().int_width().is_some_and(|w| w < 64) {
            count = b.zext(count, i64t, "dao.vla.count");
        }
        let mut size = b.mul(count, m.const_i64(m.alloc_size(ty)), "dao.vla.size");
        let align = a.alignment().max(1) as u64;
        let p = if align > 16 {
            size = b.and(b.add(size, m.const_i64(align - 1), "dao.vla.round"), m.const_i64(!(align - 1)), "dao.vla.size");
            let aligned = m.get_or_declare("aligned_alloc", aligned_ty);
            b.call(aligned_ty, aligned, &[m.const_i64(align), size], "dao.vla")
        } else {
            b.call(malloc_ty, malloc, &[size], "dao.vla")
        };
        b.store(p, slot);
        for u in a.users() {
            if u.is_instruction() && u.is_call() && crate::known::call_intrinsic(u) == Some(crate::known::Intr::Lifetime) {
                u.erase();
            }
        }
        a.replace_all_uses_with(p);
        a.erase();
        // freed where the stack would have released it
        let release = |at: Value, null: bool| {
            b.before(at);
            let v = b.load(ptr, slot, "dao.vla.free");
            b.call(free_ty, free, &[v], "");
            if null {
                b.store(m.const_null(), slot);
            }
        };
        for r in releasing(f, p).unwrap_or_default() {
            release(r, true);
        }
        for e in exits(f) {
            release(e, false);
        }
    }
    done
}
