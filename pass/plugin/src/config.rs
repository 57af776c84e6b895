//! The environment variables the pass reads (at compile time, in the
//! compiler process that loads the plugin):
//!
//! - `DAO_REMARKS` (set, not empty and not `0`; `dao cc -Rdao` sets it):
//!   print one remark per labelled site with what is live there, the guard
//!   counts, and the declarations the external-function table did not
//!   recognise because of their type.
//! - `DAO_GUARDS=0`: insert no shared-write guards; the module is then
//!   marked unguarded and the runtime uses the blocking protocol.
//! - `DAO_EXIT_ON_ERROR=1`: when the plan has errors, also print them to
//!   stderr as `error: ...` and exit the compiler with status 1, instead of
//!   only reporting them through LLVM's diagnostics and leaving the module
//!   unchanged. For front ends that do not show diagnostics raised through
//!   the LLVMContext (flang-new-19); `dao fc` sets it.
//! - `DAO_SECTIONS=0`: no array-section kills (issue #15): liveness as
//!   before it, with whole-object kills by single stores, memset and memcpy
//!   only, and calls reading every global their callees may read. For
//!   side-by-side measurements, and as a way out if a user suspects the
//!   analysis. `DAO_SECTIONS=whole`: section kills of whole objects only,
//!   no partial ones (every partly rewritten global saved whole, as before
//!   the byte-level liveness), for the same measurements. Kills under
//!   runtime-checked conditions (extents read from globals, `cond.rs`)
//!   are whole-object kills: on under `whole`, off under `0`.
//! - `DAO_DEBUG_LOOPS=1`: for developers of the section analysis, print
//!   each function's loop facts (loops, write boxes, every read's box of a
//!   global, whether its bounds are frozen), each conditional kill's
//!   reads, and (from `shim.cpp`, which reads the variable itself) why a
//!   read got no box.

//! - `DAO_PASS_TIME=1`: print the pass's own time per phase for each
//!   module to stderr (`timing.rs`; the shim's loop facts, the
//!   translations, the summaries and sites of both worlds, apply, verify),
//!   for the pass's compile-time budget (issue #33: under 10% of a
//!   compile); `DAO_PASS_TIME=2` also one line per run of the shim.
//! - `DAO_PASS_FAULT=panic|invalid`: for dao's own tests of the pass's
//!   internal-error path: after instrumenting a module, panic, or leave a
//!   block without a terminator (the verifier fails); either way the
//!   module's code is dropped and the compile fails with dao's internal
//!   error, never with a crash of the compiler (`lib.rs`).

fn var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

/// `DAO_REMARKS`: print remarks.
pub fn remarks() -> bool {
    var("DAO_REMARKS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `DAO_GUARDS`: insert guards unless it is `0`.
pub fn guards() -> bool {
    var("DAO_GUARDS").map_or(true, |v| v != "0")
}

/// `DAO_EXIT_ON_ERROR=1`: exit the compiler on a planning error.
pub fn exit_on_error() -> bool {
    var("DAO_EXIT_ON_ERROR").is_some_and(|v| v == "1")
}

/// `DAO_SECTIONS`: array-section kills unless it is `0`.
pub fn sections() -> bool {
    var("DAO_SECTIONS").map_or(true, |v| v != "0")
}

/// `DAO_SECTIONS`: partial kills (bytes of a global a loop or call
/// rewrites, the rest saved alone) unless it is `0` or `whole`.
pub fn partial() -> bool {
    sections() && var("DAO_SECTIONS").map_or(true, |v| v != "whole")
}

/// `DAO_DEBUG_LOOPS=1`: print the shim's loop facts per function (for
/// developers of the section analysis).
pub fn debug_loops() -> bool {
    var("DAO_DEBUG_LOOPS").is_some_and(|v| v == "1")
}

/// `DAO_PASS_FAULT`: after instrumenting `m`, panic (`panic`) or break its
/// IR (`invalid`: an empty block appended to its first defined function),
/// for the tests of the internal-error path.
pub fn fault(m: crate::ir::Module) {
    match var("DAO_PASS_FAULT").as_ref().and_then(|v| v.to_str()) {
        Some("panic") => panic!("DAO_PASS_FAULT=panic"),
        Some("invalid") => {
            if let Some(f) = m.functions().into_iter().find(|f| !f.is_declaration()) {
                m.append_block(f, "dao.fault");
            }
        }
        _ => {}
    }
}
