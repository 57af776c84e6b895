//! Where a site's label, spills and restart edge go (its anchor): before
//! the `__kmpc_push_*` calls of a fork, or before a direct call of an
//! outlined function's setup.
use crate::ir::{Opcode, Value};
use crate::known::{self, Role};

/// Where a fork's label goes: before the first of the `__kmpc_push_*` calls
/// (num_threads, proc_bind) that set up this fork, so that the restart
/// replays them with it. Between them and the fork only flang's filling of
/// its argument struct may stand (stores of pointers into an alloca that is
/// passed to the fork, and constant GEPs into it): re-executing those stores
/// writes the same addresses again. Anything else ends the search.
pub fn fork_anchor(f: Value, b: crate::ir::Block, fork: Value) -> Value {
    let fork_args = fork.operands();
    let base_of = |p: Value| -> Option<Value> {
        let mut base = p;
        while base.is_instruction() && base.opcode() == Opcode::LLVMGetElementPtr {
            if !base.operands()[1..].iter().all(|o| o.is_const_int()) {
                return None;
            }
            base = base.operand(0);
        }
        base.is_alloca().then_some(base)
    };
    // allocas whose address is stored into the struct in the window (flang's
    // `.reloaded` copies of by-value captures): their stores may be redone too
    let captured = std::cell::RefCell::new(Vec::<Value>::new());
    let struct_arg = |p: Value| -> bool { base_of(p).is_some_and(|a| fork_args.contains(&a) || captured.borrow().contains(&a)) };
    let mut anchor = fork;
    let mut block = b;
    let mut insts = b.instructions();
    let Some(mut pos) = insts.iter().position(|x| *x == fork) else { return fork };
    loop {
        for &p in insts[..pos].iter().rev() {
            let push = known::call_role(p) == Some(Role::ForkPush);
            if push {
                anchor = p;
                continue;
            }
            let fills_struct = match p.opcode() {
                Opcode::LLVMStore if base_of(p.operand(1)).is_some_and(|a| fork_args.contains(&a)) => {
                    // a field of the struct: a pointer (maybe to a capture copy)
                    let v = p.operand(0);
                    if v.ty().is_pointer() && v.is_alloca() {
                        captured.borrow_mut().push(v);
                    }
                    v.ty().is_pointer()
                }
                Opcode::LLVMStore => struct_arg(p.operand(1)),
                Opcode::LLVMGetElementPtr => struct_arg(p),
                _ => false,
            };
            if !fills_struct {
                return anchor;
            }
        }
        // flang -O0 puts the push in a block of its own that branches
        // straight to the fork's block: continue there if it is the only
        // predecessor and only falls through to this block
        let preds: Vec<crate::ir::Block> = f.blocks().into_iter().filter(|x| x.successors().contains(&block)).collect();
        let [pred] = preds[..] else { return anchor };
        let term = pred.terminator();
        if pred.successors().len() != 1 || !term.is_some_and(|t| t.opcode() == Opcode::LLVMBr) || pred == block {
            return anchor;
        }
        block = pred;
        insts = pred.instructions();
        pos = insts.len() - 1; // before the branch
    }
}

/// Where the label of a direct call of an outlined function goes: before
/// the `__kmpc_serialized_parallel` that opens clang's serialized region
/// (the stores of the thread id and the zero bound into the allocas passed
/// to the call may stand between them and are redone), or at the call.
pub fn serial_anchor(b: crate::ir::Block, call: Value) -> Value {
    let insts = b.instructions();
    let Some(pos) = insts.iter().position(|x| *x == call) else { return call };
    let args = call.operands();
    for &p in insts[..pos].iter().rev() {
        if known::call_role(p) == Some(Role::SerializedParallel) {
            return p;
        }
        let redo = p.opcode() == Opcode::LLVMStore && p.operand(1).is_alloca() && args.contains(&p.operand(1)) && !p.operand(0).ty().is_pointer();
        if !redo {
            break;
        }
    }
    call
}

pub fn anchor_index(b: crate::ir::Block, anchor: Value) -> usize {
    b.instructions().iter().position(|x| *x == anchor).expect("anchor in its block")
}
