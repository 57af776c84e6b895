//! The instruction builder ([`Builder`], made by [`Module::builder`]) and
//! the edits made with one: moving an instruction, branch weights.
#![allow(unsafe_code)]

use super::handles::{cstr, Block, Module, Type, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate;

impl Module {
    pub fn builder(self) -> Builder {
        Builder { b: unsafe { LLVMCreateBuilderInContext(self.context()) }, m: self }
    }
}

impl Value {
    /// Move this instruction right before `before`.
    pub fn move_before(self, before: Value, b: &Builder) {
        unsafe {
            // keep the name (LLVMInsertIntoBuilder would clear it)
            let mut len = 0usize;
            let p = LLVMGetValueName2(self.0, &mut len);
            let name = std::ffi::CString::new(std::slice::from_raw_parts(p as *const u8, len)).unwrap_or_default();
            LLVMInstructionRemoveFromParent(self.0);
            LLVMPositionBuilderBefore(b.b, before.0);
            LLVMInsertIntoBuilderWithName(b.b, self.0, name.as_ptr());
        }
    }
}

pub struct Builder {
    b: LLVMBuilderRef,
    m: Module,
}

impl Drop for Builder {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

impl Builder {
    pub fn before(&self, inst: Value) -> &Self {
        unsafe { LLVMPositionBuilderBefore(self.b, inst.0) };
        self
    }
    pub fn at_end(&self, b: Block) -> &Self {
        unsafe { LLVMPositionBuilderAtEnd(self.b, b.0) };
        self
    }
    pub fn alloca(&self, ty: Type, name: &str, align: u32) -> Value {
        let c = cstr(name);
        let v = Value(unsafe { LLVMBuildAlloca(self.b, ty.0, c.as_ptr()) });
        v.set_alignment(align);
        v
    }
    pub fn store(&self, val: Value, ptr: Value) -> Value {
        Value(unsafe { LLVMBuildStore(self.b, val.0, ptr.0) })
    }
    pub fn store_aligned(&self, val: Value, ptr: Value, align: u32) -> Value {
        let s = self.store(val, ptr);
        s.set_alignment(align);
        s
    }
    pub fn load(&self, ty: Type, ptr: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildLoad2(self.b, ty.0, ptr.0, c.as_ptr()) })
    }
    pub fn load_aligned(&self, ty: Type, ptr: Value, name: &str, align: u32) -> Value {
        let l = self.load(ty, ptr, name);
        l.set_alignment(align);
        l
    }
    pub fn byte_gep(&self, base: Value, offset: u64, name: &str) -> Value {
        let c = cstr(name);
        let mut idx = [self.m.const_i64(offset).0];
        Value(unsafe { LLVMBuildInBoundsGEP2(self.b, self.m.i8().0, base.0, idx.as_mut_ptr(), 1, c.as_ptr()) })
    }
    pub fn struct_gep(&self, ty: Type, base: Value, field: u32, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildStructGEP2(self.b, ty.0, base.0, field, c.as_ptr()) })
    }
    pub fn call(&self, fty: Type, f: Value, args: &[Value], name: &str) -> Value {
        let c = cstr(name);
        let mut a: Vec<LLVMValueRef> = args.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMBuildCall2(self.b, fty.0, f.0, a.as_mut_ptr(), a.len() as u32, c.as_ptr()) })
    }
    /// A relaxed ("monotonic") atomic load: the runtime's flags and counters.
    pub fn load_relaxed(&self, ty: Type, ptr: Value, name: &str, align: u32) -> Value {
        let l = self.load_aligned(ty, ptr, name, align);
        unsafe { LLVMSetOrdering(l.0, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic) };
        l
    }
    /// An acquire atomic load: the guard flag (what the master saved
    /// before clearing it happens-before the guarded write).
    pub fn load_acquire(&self, ty: Type, ptr: Value, name: &str, align: u32) -> Value {
        let l = self.load_aligned(ty, ptr, name, align);
        unsafe { LLVMSetOrdering(l.0, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingAcquire) };
        l
    }
    pub fn store_relaxed(&self, val: Value, ptr: Value, align: u32) -> Value {
        let s = self.store_aligned(val, ptr, align);
        unsafe { LLVMSetOrdering(s.0, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic) };
        s
    }
    pub fn ptr_to_int(&self, v: Value, ty: Type, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildPtrToInt(self.b, v.0, ty.0, c.as_ptr()) })
    }
    pub fn add(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildAdd(self.b, a.0, b.0, c.as_ptr()) })
    }
    pub fn mul(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildMul(self.b, a.0, b.0, c.as_ptr()) })
    }
    pub fn lshr(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildLShr(self.b, a.0, b.0, c.as_ptr()) })
    }
    pub fn and(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildAnd(self.b, a.0, b.0, c.as_ptr()) })
    }
    /// `getelementptr inbounds ty, base, idx...`
    pub fn gep(&self, ty: Type, base: Value, idx: &[Value], name: &str) -> Value {
        let c = cstr(name);
        let mut i: Vec<LLVMValueRef> = idx.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMBuildInBoundsGEP2(self.b, ty.0, base.0, i.as_mut_ptr(), i.len() as u32, c.as_ptr()) })
    }
    /// An empty phi of type `ty`; fill it with [`Value::add_incoming`].
    pub fn phi(&self, ty: Type, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildPhi(self.b, ty.0, c.as_ptr()) })
    }
    pub fn zext(&self, v: Value, ty: Type, name: &str) -> Value {
        if v.ty() == ty {
            return v;
        }
        let c = cstr(name);
        Value(unsafe { LLVMBuildZExt(self.b, v.0, ty.0, c.as_ptr()) })
    }
    pub fn sub(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildSub(self.b, a.0, b.0, c.as_ptr()) })
    }
    pub fn or(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildOr(self.b, a.0, b.0, c.as_ptr()) })
    }
    pub fn icmp_sle(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntSLE, a.0, b.0, c.as_ptr()) })
    }
    pub fn br(&self, dest: Block) -> Value {
        Value(unsafe { LLVMBuildBr(self.b, dest.0) })
    }
    pub fn cond_br(&self, cond: Value, then_b: Block, else_b: Block) -> Value {
        Value(unsafe { LLVMBuildCondBr(self.b, cond.0, then_b.0, else_b.0) })
    }
    pub fn icmp_ne(&self, a: Value, b: Value, name: &str) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntNE, a.0, b.0, c.as_ptr()) })
    }
    pub fn switch(&self, v: Value, default: Block, cases: &[(Value, Block)]) -> Value {
        let s = unsafe { LLVMBuildSwitch(self.b, v.0, default.0, cases.len() as u32) };
        for (c, b) in cases {
            unsafe { LLVMAddCase(s, c.0, b.0) };
        }
        Value(s)
    }
    pub fn unreachable(&self) -> Value {
        Value(unsafe { LLVMBuildUnreachable(self.b) })
    }
    pub fn ret(&self, v: Option<Value>) -> Value {
        Value(match v {
            Some(v) => unsafe { LLVMBuildRet(self.b, v.0) },
            None => unsafe { LLVMBuildRetVoid(self.b) },
        })
    }
}

/// Mark a branch as unlikely to be taken towards its first successor.
pub fn set_unlikely_first(m: Module, br: Value) {
    unsafe {
        let ctx = m.context();
        let name = LLVMMDStringInContext2(ctx, "branch_weights".as_ptr() as *const _, 14);
        let one = LLVMValueAsMetadata(m.const_i32(1).0);
        let big = LLVMValueAsMetadata(m.const_i32(1 << 20).0);
        let mut ops = [name, one, big];
        let md = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
        let kind = LLVMGetMDKindIDInContext(ctx, "prof".as_ptr() as *const _, 4);
        LLVMSetMetadata(br.0, kind, LLVMMetadataAsValue(ctx, md));
    }
}

