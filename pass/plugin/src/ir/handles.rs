//! The handles of the wrapper: [`Module`], [`Type`], [`Value`] (also an
//! instruction, a function, a global) and [`Block`], their queries and the
//! constants, types and declarations a module makes; and the shim's
//! whole-function operations (a function's clone, promotion of allocas).
//! See `ir/mod.rs` for the safety argument.
#![allow(unsafe_code)]

use crate::ffi;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMTypeKind};
use std::ffi::CString;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Value(pub LLVMValueRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Block(pub LLVMBasicBlockRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Type(pub LLVMTypeRef);
#[derive(Clone, Copy)]
pub struct Module(pub LLVMModuleRef);

pub use llvm_sys::LLVMOpcode as Opcode;

pub(super) fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap()
}

fn string_from(ptr: *const libc::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a pointer to `len` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

impl Module {
    pub fn context(self) -> LLVMContextRef {
        unsafe { LLVMGetModuleContext(self.0) }
    }
    /// A new, empty module in this module's context with its data layout
    /// and target: a home for values the planning needs that must not be
    /// in the user's module (the heap objects' stand-ins, `heap.rs`).
    /// Dispose of it with [`Module::dispose`] once nothing uses its values.
    pub fn scratch_module(self, name: &str) -> Module {
        let c = cstr(name);
        // SAFETY: a fresh module in this module's live context; the data
        // layout and target strings are copied by LLVM
        unsafe {
            let s = LLVMModuleCreateWithNameInContext(c.as_ptr(), self.context());
            LLVMSetDataLayout(s, LLVMGetDataLayoutStr(self.0));
            LLVMSetTarget(s, LLVMGetTarget(self.0));
            Module(s)
        }
    }
    /// Dispose of a module made by [`Module::scratch_module`].
    pub fn dispose(self) {
        // SAFETY: the caller owns the module and nothing uses its values
        unsafe { LLVMDisposeModule(self.0) }
    }
    pub fn functions(self) -> Vec<Value> {
        let mut v = Vec::new();
        let mut f = unsafe { LLVMGetFirstFunction(self.0) };
        while !f.is_null() {
            v.push(Value(f));
            f = unsafe { LLVMGetNextFunction(f) };
        }
        v
    }
    pub fn globals(self) -> Vec<Value> {
        let mut v = Vec::new();
        let mut g = unsafe { LLVMGetFirstGlobal(self.0) };
        while !g.is_null() {
            v.push(Value(g));
            g = unsafe { LLVMGetNextGlobal(g) };
        }
        v
    }
    pub fn function(self, name: &str) -> Option<Value> {
        let c = cstr(name);
        let f = unsafe { LLVMGetNamedFunction(self.0, c.as_ptr()) };
        (!f.is_null()).then_some(Value(f))
    }
    pub fn global(self, name: &str) -> Option<Value> {
        let c = cstr(name);
        let g = unsafe { LLVMGetNamedGlobal(self.0, c.as_ptr()) };
        (!g.is_null()).then_some(Value(g))
    }
    pub fn source_name(self) -> String {
        let mut len = 0usize;
        let p = unsafe { LLVMGetSourceFileName(self.0, &mut len) };
        string_from(p, len)
    }
    /// Whether the module has the module flag `key` (`!llvm.module.flags`).
    pub fn has_module_flag(self, key: &str) -> bool {
        unsafe { !LLVMGetModuleFlag(self.0, key.as_ptr().cast(), key.len()).is_null() }
    }
    pub fn identifier(self) -> String {
        let mut len = 0usize;
        let p = unsafe { LLVMGetModuleIdentifier(self.0, &mut len) };
        string_from(p, len)
    }
    pub fn store_size(self, t: Type) -> u64 {
        unsafe { LLVMStoreSizeOfType(LLVMGetModuleDataLayout(self.0), t.0) }
    }
    pub fn alloc_size(self, t: Type) -> u64 {
        unsafe { LLVMABISizeOfType(LLVMGetModuleDataLayout(self.0), t.0) }
    }
    pub fn abi_align(self, t: Type) -> u64 {
        unsafe { LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(self.0), t.0) as u64 }
    }
    pub fn is_sized(self, t: Type) -> bool {
        unsafe { LLVMTypeIsSized(t.0) != 0 }
    }
    // ---- types ----
    pub fn i8(self) -> Type {
        Type(unsafe { LLVMInt8TypeInContext(self.context()) })
    }
    pub fn i32(self) -> Type {
        Type(unsafe { LLVMInt32TypeInContext(self.context()) })
    }
    pub fn i64(self) -> Type {
        Type(unsafe { LLVMInt64TypeInContext(self.context()) })
    }
    pub fn void(self) -> Type {
        Type(unsafe { LLVMVoidTypeInContext(self.context()) })
    }
    pub fn ptr(self) -> Type {
        Type(unsafe { LLVMPointerTypeInContext(self.context(), 0) })
    }
    pub fn array(self, elem: Type, n: u64) -> Type {
        Type(unsafe { LLVMArrayType2(elem.0, n) })
    }
    pub fn struct_ty(self, fields: &[Type]) -> Type {
        let mut f: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        Type(unsafe { LLVMStructTypeInContext(self.context(), f.as_mut_ptr(), f.len() as u32, 0) })
    }
    pub fn fn_ty(self, ret: Type, params: &[Type]) -> Type {
        let mut p: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        Type(unsafe { LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, 0) })
    }
    // ---- constants ----
    pub fn const_int(self, ty: Type, v: u64) -> Value {
        Value(unsafe { LLVMConstInt(ty.0, v, 0) })
    }
    pub fn const_i32(self, v: u32) -> Value {
        Value(unsafe { LLVMConstInt(self.i32().0, v as u64, 0) })
    }
    pub fn const_i64(self, v: u64) -> Value {
        Value(unsafe { LLVMConstInt(self.i64().0, v, 0) })
    }
    pub fn const_null(self) -> Value {
        Value(unsafe { LLVMConstPointerNull(self.ptr().0) })
    }
    pub fn const_struct(self, ty: Type, fields: &[Value]) -> Value {
        let mut f: Vec<LLVMValueRef> = fields.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMConstNamedStruct(ty.0, f.as_mut_ptr(), f.len() as u32) })
    }
    pub fn const_array(self, elem: Type, vals: &[Value]) -> Value {
        let mut f: Vec<LLVMValueRef> = vals.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMConstArray2(elem.0, f.as_mut_ptr(), f.len() as u64) })
    }
    pub fn const_gep(self, ty: Type, base: Value, idx: &[Value]) -> Value {
        let mut i: Vec<LLVMValueRef> = idx.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMConstInBoundsGEP2(ty.0, base.0, i.as_mut_ptr(), i.len() as u32) })
    }
    /// An internal, writable global holding `init`.
    pub fn add_internal_global(self, ty: Type, name: &str, init: Value) -> Value {
        let c = cstr(name);
        let g = unsafe { LLVMAddGlobal(self.0, ty.0, c.as_ptr()) };
        unsafe {
            LLVMSetInitializer(g, init.0);
            LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        }
        Value(g)
    }
    /// A private constant global holding `init`.
    pub fn add_const_global(self, ty: Type, name: &str, init: Value) -> Value {
        let c = cstr(name);
        let g = unsafe { LLVMAddGlobal(self.0, ty.0, c.as_ptr()) };
        unsafe {
            LLVMSetInitializer(g, init.0);
            LLVMSetGlobalConstant(g, 1);
            LLVMSetLinkage(g, LLVMLinkage::LLVMPrivateLinkage);
            LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        }
        Value(g)
    }
    /// A global without initializer yet (set it with `set_initializer`).
    pub fn add_global_decl(self, ty: Type, name: &str) -> Value {
        let c = cstr(name);
        let g = unsafe { LLVMAddGlobal(self.0, ty.0, c.as_ptr()) };
        unsafe {
            LLVMSetGlobalConstant(g, 1);
            LLVMSetLinkage(g, LLVMLinkage::LLVMPrivateLinkage);
        }
        Value(g)
    }
    /// An external global variable declaration (defined by the runtime).
    pub fn extern_global(self, ty: Type, name: &str) -> Value {
        if let Some(g) = self.global(name) {
            return g;
        }
        let c = cstr(name);
        Value(unsafe { LLVMAddGlobal(self.0, ty.0, c.as_ptr()) })
    }
    /// A linkonce_odr hidden initial-exec thread-local variable (one per
    /// program after linking), created if the module does not have it.
    pub fn tls_var(self, name: &str, ty: Type, init: Value) -> Value {
        if let Some(g) = self.global(name) {
            return g;
        }
        let c = cstr(name);
        unsafe {
            let g = LLVMAddGlobal(self.0, ty.0, c.as_ptr());
            LLVMSetInitializer(g, init.0);
            LLVMSetLinkage(g, LLVMLinkage::LLVMLinkOnceODRLinkage);
            LLVMSetVisibility(g, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
            LLVMSetThreadLocal(g, 1);
            LLVMSetThreadLocalMode(g, llvm_sys::LLVMThreadLocalMode::LLVMInitialExecTLSModel);
            LLVMSetAlignment(g, 8);
            Value(g)
        }
    }
    /// A private constant NUL-terminated string; returns a pointer to it.
    pub fn const_string(self, name: &str, s: &str) -> Value {
        let bytes = s.replace('\0', "");
        let init = unsafe { LLVMConstStringInContext2(self.context(), bytes.as_ptr() as *const _, bytes.len(), 0) };
        let ty = self.array(self.i8(), bytes.len() as u64 + 1);
        self.add_const_global(ty, name, Value(init))
    }
    pub fn get_or_declare(self, name: &str, fty: Type) -> Value {
        if let Some(f) = self.function(name) {
            return f;
        }
        let c = cstr(name);
        Value(unsafe { LLVMAddFunction(self.0, c.as_ptr(), fty.0) })
    }
    pub fn add_function(self, name: &str, fty: Type) -> Value {
        let c = cstr(name);
        Value(unsafe { LLVMAddFunction(self.0, c.as_ptr(), fty.0) })
    }
    pub fn append_block(self, f: Value, name: &str) -> Block {
        let c = cstr(name);
        Block(unsafe { LLVMAppendBasicBlockInContext(self.context(), f.0, c.as_ptr()) })
    }
    // ---- shim ----
    pub fn verify(self) -> bool {
        unsafe { ffi::dao_cxx_verify(self.0) == 0 }
    }
    pub fn diagnose(self, severity: i32, msg: &str) {
        let c = cstr(msg);
        unsafe { ffi::dao_cxx_diagnose(self.0, severity, c.as_ptr()) }
    }
    /// Drop all the module's code after an internal error (every function
    /// and variable an external declaration): no later pass sees a
    /// half-instrumented module.
    pub fn drop_code(self) {
        unsafe { ffi::dao_cxx_drop_code(self.0) }
    }
    /// Append (priority, fn) to llvm.global_ctors.
    pub fn add_global_ctor(self, f: Value, priority: u32) {
        let entry_ty = self.struct_ty(&[self.i32(), self.ptr(), self.ptr()]);
        let entry = unsafe {
            let mut fields = [self.const_i32(priority).0, f.0, self.const_null().0];
            LLVMConstStructInContext(self.context(), fields.as_mut_ptr(), 3, 0)
        };
        let mut entries = vec![Value(entry)];
        if let Some(old) = self.global("llvm.global_ctors") {
            let init = unsafe { LLVMGetInitializer(old.0) };
            if !init.is_null() {
                let n = unsafe { LLVMGetNumOperands(init) };
                let mut prev: Vec<Value> = (0..n).map(|i| Value(unsafe { LLVMGetOperand(init, i as u32) })).collect();
                prev.append(&mut entries);
                entries = prev;
            }
            unsafe { LLVMDeleteGlobal(old.0) };
        }
        let arr_ty = self.array(entry_ty, entries.len() as u64);
        let c = cstr("llvm.global_ctors");
        let mut vals: Vec<LLVMValueRef> = entries.iter().map(|v| v.0).collect();
        unsafe {
            let g = LLVMAddGlobal(self.0, arr_ty.0, c.as_ptr());
            LLVMSetInitializer(g, LLVMConstArray2(entry_ty.0, vals.as_mut_ptr(), vals.len() as u64));
            LLVMSetLinkage(g, LLVMLinkage::LLVMAppendingLinkage);
        }
    }
}

impl Type {
    pub fn kind(self) -> LLVMTypeKind {
        unsafe { LLVMGetTypeKind(self.0) }
    }
    pub fn is_void(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVoidTypeKind
    }
    pub fn is_pointer(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMPointerTypeKind
    }
    /// Types whose values can be stored to memory (slots).
    pub fn is_storable(self) -> bool {
        !matches!(
            self.kind(),
            LLVMTypeKind::LLVMVoidTypeKind
                | LLVMTypeKind::LLVMLabelTypeKind
                | LLVMTypeKind::LLVMMetadataTypeKind
                | LLVMTypeKind::LLVMTokenTypeKind
                | LLVMTypeKind::LLVMFunctionTypeKind
                | LLVMTypeKind::LLVMX86_AMXTypeKind
                | LLVMTypeKind::LLVMTargetExtTypeKind
        )
    }
    pub fn fn_param_count(self) -> u32 {
        unsafe { LLVMCountParamTypes(self.0) }
    }
    pub fn fn_return(self) -> Type {
        Type(unsafe { LLVMGetReturnType(self.0) })
    }
    pub fn fn_params(self) -> Vec<Type> {
        let n = self.fn_param_count() as usize;
        let mut v = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetParamTypes(self.0, v.as_mut_ptr()) };
        v.into_iter().map(Type).collect()
    }
    /// The type as LLVM prints it (`void (ptr, i32, ...)` for a function type).
    pub fn print(self) -> String {
        unsafe {
            let p = LLVMPrintTypeToString(self.0);
            let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
            LLVMDisposeMessage(p);
            s
        }
    }
    pub fn int_width(self) -> Option<u32> {
        (self.kind() == LLVMTypeKind::LLVMIntegerTypeKind).then(|| unsafe { LLVMGetIntTypeWidth(self.0) })
    }
}

impl Value {
    pub fn name(self) -> String {
        let mut len = 0usize;
        let p = unsafe { LLVMGetValueName2(self.0, &mut len) };
        string_from(p, len)
    }
    pub fn set_name(self, n: &str) {
        unsafe { LLVMSetValueName2(self.0, n.as_ptr() as *const _, n.len()) }
    }
    pub fn ty(self) -> Type {
        Type(unsafe { LLVMTypeOf(self.0) })
    }
    pub fn is_instruction(self) -> bool {
        unsafe { !LLVMIsAInstruction(self.0).is_null() }
    }
    pub fn is_argument(self) -> bool {
        unsafe { !LLVMIsAArgument(self.0).is_null() }
    }
    /// The function a parameter belongs to (None: not a parameter).
    pub fn param_parent(self) -> Option<Value> {
        self.is_argument().then(|| Value(unsafe { LLVMGetParamParent(self.0) }))
    }
    pub fn is_function(self) -> bool {
        unsafe { !LLVMIsAFunction(self.0).is_null() }
    }
    pub fn is_global_var(self) -> bool {
        unsafe { !LLVMIsAGlobalVariable(self.0).is_null() }
    }
    pub fn is_constant(self) -> bool {
        unsafe { LLVMIsConstant(self.0) != 0 }
    }
    pub fn is_const_expr(self) -> bool {
        unsafe { !LLVMIsAConstantExpr(self.0).is_null() }
    }
    pub fn const_opcode(self) -> Opcode {
        unsafe { LLVMGetConstOpcode(self.0) }
    }
    pub fn is_const_int(self) -> bool {
        unsafe { !LLVMIsAConstantInt(self.0).is_null() }
    }
    pub fn const_int_value(self) -> Option<u64> {
        self.is_const_int().then(|| unsafe { LLVMConstIntGetZExtValue(self.0) })
    }
    /// A constant integer of at most 64 bits, sign-extended.
    pub fn const_int_sext(self) -> Option<i64> {
        (self.is_const_int() && self.ty().int_width().is_some_and(|w| w <= 64)).then(|| unsafe { LLVMConstIntGetSExtValue(self.0) })
    }
    /// An `icmp`'s predicate.
    pub fn icmp_predicate(self) -> Option<llvm_sys::LLVMIntPredicate> {
        (self.is_instruction() && self.opcode() == LLVMOpcode::LLVMICmp).then(|| unsafe { LLVMGetICmpPredicate(self.0) })
    }
    pub fn opcode(self) -> Opcode {
        unsafe { LLVMGetInstructionOpcode(self.0) }
    }
    /// A call or an invoke (C++: a call with an exception edge; a
    /// terminator, whose result is defined on its normal edge only).
    pub fn is_call(self) -> bool {
        self.is_instruction() && matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
    }
    pub fn is_invoke(self) -> bool {
        self.is_instruction() && self.opcode() == LLVMOpcode::LLVMInvoke
    }
    /// The block an invoke continues in when the callee returns.
    pub fn invoke_normal_dest(self) -> Block {
        Block(unsafe { LLVMGetNormalDest(self.0) })
    }
    pub fn is_phi(self) -> bool {
        self.is_instruction() && self.opcode() == LLVMOpcode::LLVMPHI
    }
    pub fn is_alloca(self) -> bool {
        self.is_instruction() && self.opcode() == LLVMOpcode::LLVMAlloca
    }
    pub fn num_operands(self) -> u32 {
        unsafe { LLVMGetNumOperands(self.0) as u32 }
    }
    pub fn operand(self, i: u32) -> Value {
        Value(unsafe { LLVMGetOperand(self.0, i) })
    }
    pub fn operands(self) -> Vec<Value> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }
    pub fn set_operand(self, i: u32, v: Value) {
        unsafe { LLVMSetOperand(self.0, i, v.0) }
    }
    pub fn parent_block(self) -> Block {
        Block(unsafe { LLVMGetInstructionParent(self.0) })
    }
    pub fn next_instruction(self) -> Option<Value> {
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }
    pub fn previous_instruction(self) -> Option<Value> {
        let n = unsafe { LLVMGetPreviousInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }
    pub fn erase(self) {
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }
    pub fn replace_all_uses_with(self, with: Value) {
        unsafe { LLVMReplaceAllUsesWith(self.0, with.0) }
    }
    /// Every user of this value (deduplicated, in use-list order).
    pub fn users(self) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            let user = Value(unsafe { LLVMGetUser(u) });
            if !out.contains(&user) {
                out.push(user);
            }
            u = unsafe { LLVMGetNextUse(u) };
        }
        out
    }
    // ---- calls ----
    /// The value this pointer is a constant byte offset from (through
    /// GEPs and casts), and the offset.
    pub fn strip_offset(self) -> Option<(Value, i64)> {
        let mut off = 0i64;
        // SAFETY: `self` is a live value of the module; the shim only reads it.
        let b = unsafe { crate::ffi::dao_cxx_strip_offset(self.0, &mut off) };
        (!b.is_null()).then_some((Value(b), off))
    }
    pub fn called_value(self) -> Value {
        Value(unsafe { LLVMGetCalledValue(self.0) })
    }
    /// The directly called function, looking through no casts.
    pub fn called_function(self) -> Option<Value> {
        let c = self.called_value();
        c.is_function().then_some(c)
    }
    pub fn num_args(self) -> u32 {
        unsafe { LLVMGetNumArgOperands(self.0) }
    }
    pub fn args(self) -> Vec<Value> {
        (0..self.num_args()).map(|i| self.operand(i)).collect()
    }
    pub fn call_fn_type(self) -> Type {
        Type(unsafe { LLVMGetCalledFunctionType(self.0) })
    }
    /// (An invoke is never a tail call: nothing to do.)
    pub fn set_tail_call(self, tail: bool) {
        if !self.is_invoke() {
            unsafe { LLVMSetTailCall(self.0, tail as i32) }
        }
    }
    pub fn is_musttail(self) -> bool {
        !self.is_invoke() && unsafe { LLVMGetTailCallKind(self.0) == llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail }
    }
    pub fn arg_nocapture(self, i: u32) -> bool {
        unsafe { ffi::dao_cxx_param_nocapture(self.0, i) != 0 }
    }
    // ---- functions ----
    pub fn is_declaration(self) -> bool {
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }
    pub fn function_type(self) -> Type {
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }
    pub fn params(self) -> Vec<Value> {
        let n = unsafe { LLVMCountParams(self.0) };
        (0..n).map(|i| Value(unsafe { LLVMGetParam(self.0, i) })).collect()
    }
    pub fn blocks(self) -> Vec<Block> {
        let mut v = Vec::new();
        let mut b = unsafe { LLVMGetFirstBasicBlock(self.0) };
        while !b.is_null() {
            v.push(Block(b));
            b = unsafe { LLVMGetNextBasicBlock(b) };
        }
        v
    }
    pub fn entry_block(self) -> Block {
        Block(unsafe { LLVMGetEntryBasicBlock(self.0) })
    }
    pub fn linkage(self) -> LLVMLinkage {
        unsafe { LLVMGetLinkage(self.0) }
    }
    pub fn set_linkage(self, l: LLVMLinkage) {
        unsafe { LLVMSetLinkage(self.0, l) }
    }
    pub fn is_local_linkage(self) -> bool {
        matches!(self.linkage(), LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage)
    }
    pub fn delete_function(self) {
        unsafe { LLVMDeleteFunction(self.0) }
    }
    // ---- globals ----
    pub fn global_value_type(self) -> Type {
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }
    pub fn is_global_constant(self) -> bool {
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }
    /// The initializer of a global variable, if it has one.
    pub fn initializer(self) -> Option<Value> {
        let i = unsafe { LLVMGetInitializer(self.0) };
        (!i.is_null()).then_some(Value(i))
    }
    /// Element `i` of a constant array, vector or struct (a
    /// `ConstantDataArray` included), if it has one.
    pub fn aggregate_element(self, i: u32) -> Option<Value> {
        if !self.is_constant() {
            return None;
        }
        let e = unsafe { LLVMGetAggregateElement(self.0, i) };
        (!e.is_null()).then_some(Value(e))
    }
    /// A null pointer constant.
    pub fn is_null_constant(self) -> bool {
        self.is_constant() && unsafe { LLVMIsNull(self.0) != 0 }
    }
    /// The bytes of a constant string (a `ConstantDataSequential` of i8,
    /// such as a global's initializer), without a trailing NUL.
    pub fn const_string_value(self) -> Option<String> {
        // SAFETY: LLVMIsAConstantDataSequential checks the kind first;
        // LLVMGetAsString returns a pointer into the constant, valid while
        // the module lives, with its length.
        unsafe {
            if LLVMIsAConstantDataSequential(self.0).is_null() || LLVMIsConstantString(self.0) == 0 {
                return None;
            }
            let mut len = 0usize;
            let p = LLVMGetAsString(self.0, &mut len);
            if p.is_null() {
                return None;
            }
            let b = std::slice::from_raw_parts(p as *const u8, len);
            Some(String::from_utf8_lossy(b).trim_end_matches('\0').to_string())
        }
    }
    pub fn is_thread_local(self) -> bool {
        unsafe { LLVMIsThreadLocal(self.0) != 0 }
    }
    pub fn set_initializer(self, init: Value) {
        unsafe { LLVMSetInitializer(self.0, init.0) }
    }
    pub fn set_alignment(self, a: u32) {
        unsafe { LLVMSetAlignment(self.0, a) }
    }
    // ---- instructions ----
    pub fn allocated_type(self) -> Type {
        Type(unsafe { LLVMGetAllocatedType(self.0) })
    }
    pub fn incoming_count(self) -> u32 {
        unsafe { LLVMCountIncoming(self.0) }
    }
    pub fn incoming_block(self, i: u32) -> Block {
        Block(unsafe { LLVMGetIncomingBlock(self.0, i) })
    }
    /// "file.c:12" from the instruction's debug location, if any.
    pub fn debug_loc(self) -> Option<String> {
        if !self.is_instruction() {
            return None;
        }
        let line = unsafe { LLVMGetDebugLocLine(self.0) };
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let p = unsafe { LLVMGetDebugLocFilename(self.0, &mut len) };
        let file = string_from(p, len as usize);
        Some(format!("{file}:{line}"))
    }
}

impl Block {
    /// The function the block belongs to.
    pub fn parent_function(self) -> Value {
        Value(unsafe { LLVMGetBasicBlockParent(self.0) })
    }
    pub fn instructions(self) -> Vec<Value> {
        let mut v = Vec::new();
        let mut i = unsafe { LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            v.push(Value(i));
            i = unsafe { LLVMGetNextInstruction(i) };
        }
        v
    }
    pub fn first_instruction(self) -> Option<Value> {
        let i = unsafe { LLVMGetFirstInstruction(self.0) };
        (!i.is_null()).then_some(Value(i))
    }
    pub fn terminator(self) -> Option<Value> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Value(t))
    }
    pub fn successors(self) -> Vec<Block> {
        match self.terminator() {
            None => vec![],
            Some(t) => {
                let n = unsafe { LLVMGetNumSuccessors(t.0) };
                (0..n).map(|i| Block(unsafe { LLVMGetSuccessor(t.0, i) })).collect()
            }
        }
    }
    /// The first instruction that is not a phi (where stores of phis go).
    pub fn first_non_phi(self) -> Option<Value> {
        self.instructions().into_iter().find(|i| !i.is_phi())
    }
    /// The landingpad that opens this block (an invoke's unwind
    /// destination), if it is one.
    pub fn landing_pad(self) -> Option<Value> {
        self.first_non_phi().filter(|i| i.opcode() == LLVMOpcode::LLVMLandingPad)
    }
    /// Where code may be inserted first: after the phis and the
    /// landingpad, if any.
    pub fn first_insertion_point(self) -> Option<Value> {
        match self.landing_pad() {
            Some(lp) => lp.next_instruction(),
            None => self.first_non_phi(),
        }
    }
    /// Split before `inst` (which must be in this block); the new block
    /// starts at `inst`, the old one ends with a branch to it.
    pub fn split_before(inst: Value, name: &str) -> Block {
        let c = cstr(name);
        Block(unsafe { ffi::dao_cxx_split_before(inst.0, c.as_ptr()) })
    }
    /// A new block on the normal edge of `invoke` (the old destination's
    /// phis now name it): the first place after the invoke where its
    /// result is defined.
    pub fn split_invoke_normal(invoke: Value, name: &str) -> Block {
        assert!(invoke.is_invoke(), "split_invoke_normal of a non-invoke");
        let c = cstr(name);
        Block(unsafe { ffi::dao_cxx_split_invoke_normal(invoke.0, c.as_ptr()) })
    }
}

/// The demangled form of a C++ (Itanium) name, e.g.
/// `Domain::CalcForceForNodes()` for `_ZN6Domain17CalcForceForNodesEv`; any
/// other name unchanged (LLVM's demangler, through the shim).
pub fn demangle(name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    let c = cstr(name);
    let mut buf = vec![0u8; 256];
    loop {
        // SAFETY: `c` is NUL-terminated, `buf` has `buf.len()` writable bytes.
        let n = unsafe { ffi::dao_cxx_demangle(c.as_ptr(), buf.as_mut_ptr() as *mut _, buf.len()) };
        if n < buf.len() {
            return String::from_utf8_lossy(&buf[..n]).into_owned();
        }
        buf.resize(n + 1, 0);
    }
}

/// A copy of function `f` in its module, internal, named `name`, without
/// the attributes that describe its memory effects (shim.cpp).
pub fn clone_function(f: Value, name: &str) -> Value {
    let c = cstr(name);
    Value(unsafe { ffi::dao_cxx_clone_function(f.0, c.as_ptr()) })
}

impl Value {
    /// A volatile load or store, or an atomic one (any ordering).
    pub fn is_volatile_or_atomic(self) -> bool {
        unsafe {
            LLVMGetVolatile(self.0) != 0 || LLVMGetOrdering(self.0) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        }
    }
    /// Add an incoming value to phi `self`.
    pub fn add_incoming(self, v: Value, from: Block) {
        let mut vs = [v.0];
        let mut bs = [from.0];
        unsafe { LLVMAddIncoming(self.0, vs.as_mut_ptr(), bs.as_mut_ptr(), 1) }
    }
    /// The alignment of a load or store.
    pub fn alignment(self) -> u32 {
        unsafe { LLVMGetAlignment(self.0) }
    }
    /// Make call `self` call `f` (same type).
    pub fn set_callee(self, f: Value) {
        let n = self.num_operands();
        self.set_operand(n - 1, f);
    }
}

pub fn promote_allocas(f: Value, allocas: &[Value]) {
    let mut v: Vec<LLVMValueRef> = allocas.iter().map(|a| a.0).collect();
    unsafe { ffi::dao_cxx_promote(f.0, v.as_mut_ptr(), v.len() as u32) }
}

/// Run `f` over a raw module handle received from the pass manager.
pub fn with_module<R>(m: LLVMModuleRef, f: impl FnOnce(Module) -> R) -> R {
    f(Module(m))
}
