//! The C++ shim's entry points (cpp/shim.cpp). All calls into C++ go through
//! this module.
use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_uint};

extern "C" {
    pub fn dao_cxx_register_callbacks(pb: *mut c_void);
    pub fn dao_cxx_promote(f: LLVMValueRef, allocas: *mut LLVMValueRef, n: c_uint);
    pub fn dao_cxx_clone_function(f: LLVMValueRef, name: *const c_char) -> LLVMValueRef;
    pub fn dao_cxx_diagnose(m: LLVMModuleRef, severity: c_int, msg: *const c_char);
    pub fn dao_cxx_split_before(inst: LLVMValueRef, name: *const c_char) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_demangle(name: *const c_char, out: *mut c_char, cap: usize) -> usize;
    pub fn dao_cxx_split_invoke_normal(invoke: LLVMValueRef, name: *const c_char) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_param_nocapture(call: LLVMValueRef, i: c_uint) -> c_int;
    pub fn dao_cxx_strip_offset(p: LLVMValueRef, off: *mut i64) -> LLVMValueRef;
    pub fn dao_cxx_verify(m: LLVMModuleRef) -> c_int;
    pub fn dao_cxx_drop_code(m: LLVMModuleRef);
    pub fn dao_cxx_shim_phase(i: c_uint, name: *mut *const std::os::raw::c_char, ms: *mut f64) -> c_uint;
    pub fn dao_cxx_loop_facts(f: LLVMValueRef, inits: *mut LLVMValueRef, n: c_uint, elig: *mut LLVMValueRef, n_elig: c_uint, writer_globals: *mut LLVMValueRef, writer_funcs: *mut LLVMValueRef, n_writers: c_uint, bind_arg: *mut c_uint, bind_slot: *mut i64, bind_global: *mut LLVMValueRef, n_bind: c_uint, repl_from: *mut LLVMValueRef, repl_to: *mut LLVMValueRef, n_repl: c_uint) -> *mut c_void;
    pub fn dao_cxx_loop_facts_team(h: *mut c_void) -> c_int;
    pub fn dao_cxx_loop_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_loop_get(h: *mut c_void, i: c_uint, out: *mut DaoLoopOut);
    pub fn dao_cxx_loop_guard_block(h: *mut c_void, i: c_uint, j: c_uint) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_loop_guard_req(h: *mut c_void, i: c_uint, j: c_uint, out: *mut DaoGuardReqOut);
    pub fn dao_cxx_loop_block(h: *mut c_void, i: c_uint, j: c_uint) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_section_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_read_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_read_get(h: *mut c_void, i: c_uint, out: *mut DaoSectionOut);
    pub fn dao_cxx_read_inst(h: *mut c_void, i: c_uint) -> LLVMValueRef;
    pub fn dao_cxx_dropped_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_dropped_get(h: *mut c_void, i: c_uint) -> llvm_sys::prelude::LLVMBasicBlockRef;
    pub fn dao_cxx_bound_edge_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_bound_edge_get(h: *mut c_void, i: c_uint, from: *mut llvm_sys::prelude::LLVMBasicBlockRef, to: *mut llvm_sys::prelude::LLVMBasicBlockRef, out: *mut DaoGuardReqOut);
    pub fn dao_cxx_argread_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_argread_get(h: *mut c_void, i: c_uint, out: *mut DaoSectionOut);
    pub fn dao_cxx_argread_info(h: *mut c_void, i: c_uint, param: *mut c_int, callee: *mut LLVMValueRef, callee_arg: *mut c_uint);
    pub fn dao_cxx_section_get(h: *mut c_void, i: c_uint, out: *mut DaoSectionOut);
    pub fn dao_cxx_loop_facts_free(h: *mut c_void);
    pub fn dao_cxx_relw_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_relr_count(h: *mut c_void) -> c_uint;
    pub fn dao_cxx_rel_get(h: *mut c_void, which: c_int, i: c_uint, out: *mut DaoRelOut);
    pub fn dao_cxx_relr_write(h: *mut c_void, i: c_uint, j: c_uint) -> c_uint;
    pub fn dao_cxx_relr_wstart(h: *mut c_void, i: c_uint, j: c_uint) -> i64;
}

/// One iteration-relative box (shim.cpp `DaoRelOut`).
#[repr(C)]
pub struct DaoRelOut {
    pub loop_ix: c_uint,
    pub base: LLVMValueRef,
    pub inst: LLVMValueRef,
    pub start: i64,
    pub size: u64,
    pub step: i64,
    pub ndims: c_uint,
    pub stride: [i64; 8],
    pub count: [u64; 8],
    pub nwrites: c_uint,
    pub sym_mask: c_uint,
    pub sym_global: [LLVMValueRef; 8],
    pub sym_off: [i64; 8],
    pub sym_bytes: [c_uint; 8],
    pub sym_signed: [c_int; 8],
    pub sym_add: [i64; 8],
    pub sym_low: [i64; 8],
    pub sym_floor: [i64; 8],
}

/// One loop of a function (shim.cpp `DaoLoopOut`).
#[repr(C)]
pub struct DaoLoopOut {
    pub preheader: llvm_sys::prelude::LLVMBasicBlockRef,
    pub header: llvm_sys::prelude::LLVMBasicBlockRef,
    pub init: LLVMValueRef,
    pub nblocks: c_uint,
    pub stores: c_uint,
    pub sections: c_uint,
    pub guard_top: llvm_sys::prelude::LLVMBasicBlockRef,
    pub nguard_chain: c_uint,
    pub nguard_reqs: c_uint,
}

/// One requirement of a loop's guard chain (shim.cpp `DaoGuardReqOut`).
#[repr(C)]
pub struct DaoGuardReqOut {
    pub global: LLVMValueRef,
    pub off: i64,
    pub bytes: c_uint,
    pub sgn: c_int,
    pub min: i64,
}

/// One store's byte box for one loop (shim.cpp `DaoSectionOut`).
#[repr(C)]
pub struct DaoSectionOut {
    pub loop_ix: c_uint,
    pub base: LLVMValueRef,
    pub start: i64,
    pub size: u64,
    pub ndims: c_uint,
    pub stride: [i64; 8],
    pub count: [u64; 8],
    /// Dims whose count is symbolic: `sym_add[d]` + the value of the
    /// `sym_bytes[d]`-wide integer at `sym_off[d]` of `sym_global[d]`.
    pub sym_mask: c_uint,
    pub sym_global: [LLVMValueRef; 8],
    pub sym_off: [i64; 8],
    pub sym_bytes: [c_uint; 8],
    pub sym_signed: [c_int; 8],
    pub sym_add: [i64; 8],
    pub sym_low: [i64; 8],
    /// Requirements of inner loops' zero-trip guards: the integer at
    /// `req_off[r]` of `req_global[r]` must be at least `req_min[r]`.
    pub nreqs: c_uint,
    pub req_global: [LLVMValueRef; 4],
    pub req_off: [i64; 4],
    pub req_bytes: [c_uint; 4],
    pub req_signed: [c_int; 4],
    pub req_min: [i64; 4],
    /// Reads only: a symbolic dim's count is at most
    /// max(`sym_floor[d]`, `sym_add[d]` + the value), the value at least
    /// `sym_low[d]`.
    pub sym_floor: [i64; 8],
    /// Writes: a symbolic dim's count is `sym_add[d]` + floor((the value +
    /// `sym_pre[d]`) / `sym_div[d]`).
    pub sym_div: [i64; 8],
    pub sym_pre: [i64; 8],
    /// A requirement's value must also be at most `req_max[r]`.
    pub req_max: [i64; 4],
    /// Writes of heap objects: a symbolic dim's count times `sym_mul[d]`,
    /// or times `sym_add2[d]` + the value of (`sym_g2[d]`, `sym_off2[d]`,
    /// `sym_bytes2[d]`, `sym_signed2[d]`) when `sym_g2[d]` is set.
    pub sym_g2: [LLVMValueRef; 8],
    pub sym_off2: [i64; 8],
    pub sym_bytes2: [c_uint; 8],
    pub sym_signed2: [c_int; 8],
    pub sym_add2: [i64; 8],
    pub sym_mul: [u64; 8],
}
