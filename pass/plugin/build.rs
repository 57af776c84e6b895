//! Builds the C++ shim (cpp/shim.cpp) against LLVM 19's headers. LLVM's symbols
//! are not linked: the plugin is loaded into clang/flang/opt, which provide them.
use std::process::Command;

fn llvm_config(arg: &str) -> String {
    let cfg = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-19".into());
    let out = Command::new(&cfg)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cfg} (install llvm-19-dev, or set LLVM_CONFIG): {e}"));
    assert!(out.status.success(), "{cfg} {arg} failed");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn main() {
    println!("cargo:rerun-if-changed=cpp/shim.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    let mut b = cc::Build::new();
    b.cpp(true).file("cpp/shim.cpp").include(llvm_config("--includedir"));
    for flag in llvm_config("--cxxflags").split_whitespace() {
        if flag.starts_with("-I") || flag.starts_with("-std") || flag.starts_with("-D") || flag == "-fno-exceptions" || flag == "-fno-rtti" {
            b.flag(flag);
        }
    }
    b.flag_if_supported("-Wno-unused-parameter");
    b.compile("dao_shim");
    // libstdc++ is already loaded in clang/opt; linking it keeps the .so self-describing.
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
