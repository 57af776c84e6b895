//! The C++ shim's entry points (cpp/shim.cpp). All calls into C++ go through
//! this module.
use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_uint};

extern "C" {
    pub fn dao_cxx_register_callbacks(pb: *mut c_void);
    pub fn dao_cxx_promote(f: LLVMValueRef, allocas: *mut LLVMValueRef, n: c_uint);
    pub fn dao_cxx_diagnose(m: LLVMModuleRef, severity: c_int, msg: *const c_char);
    pub fn dao_cxx_split_before(inst: LLVMValueRef, name: *const c_char) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_param_nocapture(call: LLVMValueRef, i: c_uint) -> c_int;
    pub fn dao_cxx_verify(m: LLVMModuleRef) -> c_int;
    pub fn dao_cxx_clone(m: LLVMModuleRef) -> LLVMModuleRef;
    pub fn dao_cxx_dispose(m: LLVMModuleRef);
}
