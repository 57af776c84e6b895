//! A thin typed wrapper over LLVM's C API (llvm-sys) and the C++ shim.
//!
//! This is the only module of the plugin with `unsafe` code. Every handle
//! here borrows from the module the pass manager gave us; none is owned or
//! disposed by Rust, which is why the plugin uses llvm-sys rather than
//! inkwell (whose `Module` owns and disposes the module it wraps).
//!
//! SAFETY (for every block below unless stated otherwise): the handles are
//! non-null values obtained from LLVM for the module currently being
//! transformed, which outlives the pass invocation; the C API functions are
//! called with the kinds of values they document (checked by the `is_*`
//! predicates at the call sites), and strings passed in are NUL-terminated.
#![allow(unsafe_code)]

use crate::ffi;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMTypeKind};
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

fn cstr(s: &str) -> CString {
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
    pub fn builder(self) -> Builder {
        Builder { b: unsafe { LLVMCreateBuilderInContext(self.context()) }, m: self }
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
    pub fn clone_module(self) -> Module {
        Module(unsafe { ffi::dao_cxx_clone(self.0) })
    }
    /// SAFETY: only for modules returned by `clone_module`.
    pub fn dispose_clone(self) {
        unsafe { ffi::dao_cxx_dispose(self.0) }
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
    pub fn opcode(self) -> Opcode {
        unsafe { LLVMGetInstructionOpcode(self.0) }
    }
    pub fn is_call(self) -> bool {
        self.is_instruction() && self.opcode() == LLVMOpcode::LLVMCall
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
    pub fn set_tail_call(self, tail: bool) {
        unsafe { LLVMSetTailCall(self.0, tail as i32) }
    }
    pub fn is_musttail(self) -> bool {
        unsafe { LLVMGetTailCallKind(self.0) == llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail }
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
    /// Split before `inst` (which must be in this block); the new block
    /// starts at `inst`, the old one ends with a branch to it.
    pub fn split_before(inst: Value, name: &str) -> Block {
        let c = cstr(name);
        Block(unsafe { ffi::dao_cxx_split_before(inst.0, c.as_ptr()) })
    }
}

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
    pub reads: Vec<(Value, Option<(i64, u64, Vec<(i64, u64)>)>)>,
}

/// `inits`: the static worksharing init calls of `f`, deleted in the team
/// view; `elig`: globals a loop bound may be read from, and `writers`: the
/// (global, function) pairs of the defined functions that may write them
/// (a loop bound loaded from one may be symbolic, [`SymCount`]).
/// `bind`: (argument index, slot offset or -1, global) of a function
/// analysed for one call site (`front::Bind`; the shim's
/// `dao_cxx_loop_facts`).
pub fn loop_facts(f: Value, inits: &[Value], elig: &[Value], writers: &[(Value, Value)], bind: &[(u32, i64, Value)]) -> LoopFacts {
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
        let h = ffi::dao_cxx_loop_facts(f.0, v.as_mut_ptr(), v.len() as u32, el.as_mut_ptr(), el.len() as u32, wg.as_mut_ptr(), wf.as_mut_ptr(), wg.len() as u32, ba.as_mut_ptr(), bs.as_mut_ptr(), bg.as_mut_ptr(), ba.len() as u32);
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
                            (SymCount { global: Value(q.global), off: q.off, bytes: q.bytes, signed: q.sgn != 0, add: 0, low: 0 }, q.min)
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
                        global: Value(o.sym_global[d]),
                        off: o.sym_off[d],
                        bytes: o.sym_bytes[d],
                        signed: o.sym_signed[d] != 0,
                        add: o.sym_add[d],
                        low: o.sym_low[d],
                    })
                })
                .collect();
            let reqs = (0..(o.nreqs as usize).min(4))
                .map(|r| (SymCount { global: Value(o.req_global[r]), off: o.req_off[r], bytes: o.req_bytes[r], signed: o.req_signed[r] != 0, add: 0, low: 0 }, o.req_min[r]))
                .collect();
            sections.push(SectionRec { loop_ix: o.loop_ix as usize, base: Value(o.base), start: o.start, size: o.size, dims, sym, reqs });
        }
        let mut reads = Vec::new();
        for i in 0..ffi::dao_cxx_read_count(h) {
            let mut o: ffi::DaoSectionOut = std::mem::zeroed();
            ffi::dao_cxx_read_get(h, i, &mut o);
            let n = (o.ndims as usize).min(8);
            let dims = (0..n).map(|d| (o.stride[d], o.count[d])).collect();
            reads.push((Value(o.base), (o.loop_ix == 0).then_some((o.start, o.size, dims))));
        }
        let rel = |which: i32, i: u32| {
            let mut o: ffi::DaoRelOut = std::mem::zeroed();
            ffi::dao_cxx_rel_get(h, which, i, &mut o);
            let n = (o.ndims as usize).min(8);
            let sec = dao_analysis::sections::Section { start: o.start, size: o.size, dims: (0..n).map(|d| (o.stride[d], o.count[d])).collect() };
            (o, sec)
        };
        let rel_writes: Vec<_> = (0..ffi::dao_cxx_relw_count(h)).map(|i| rel(0, i).1).collect();
        let mut rel_reads = Vec::new();
        for i in 0..ffi::dao_cxx_relr_count(h) {
            let (o, read) = rel(1, i);
            let writes = (0..o.nwrites).map(|j| rel_writes[ffi::dao_cxx_relr_write(h, i, j) as usize].clone()).collect();
            rel_reads.push(RelRead { loop_ix: o.loop_ix as usize, base: Value(o.base), inst: Value(o.inst), read, writes });
        }
        ffi::dao_cxx_loop_facts_free(h);
        LoopFacts { team, loops, sections, rel_reads, reads }
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

/// Run `f` over a raw module handle received from the pass manager.
pub fn with_module<R>(m: LLVMModuleRef, f: impl FnOnce(Module) -> R) -> R {
    f(Module(m))
}
