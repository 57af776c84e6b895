//! Compiles this crate with `cfg(loom)`: the runtime's protocol files it
//! includes (`runtime/src/protocol/{sync,handshake}.rs`) then use loom's
//! atomics. The cfg is this crate's only; the runtime never sees it.
fn main() {
    println!("cargo:rustc-check-cfg=cfg(loom)");
    println!("cargo:rustc-cfg=loom");
    println!("cargo:rerun-if-changed=build.rs");
}
