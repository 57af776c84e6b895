//! `libdao_rt.a` defines every runtime entry point and global of the
//! pass/runtime contract (`dao-abi`): a name the pass calls but the runtime
//! lacks would only show as a link error in a user's build.
use std::path::PathBuf;
use std::process::Command;

/// The static library cargo built beside this test (target/<profile>/).
fn staticlib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let lib = dir.join("libdao_rt.a");
    assert!(lib.exists(), "{} not built", lib.display());
    lib
}

#[test]
fn runtime_defines_the_contract() {
    let out = Command::new("nm").args(["--defined-only", "-g"]).arg(staticlib()).output().expect("run nm (binutils)");
    assert!(out.status.success(), "nm failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let defined: std::collections::HashSet<&str> = text.lines().filter_map(|l| l.split_whitespace().nth(2)).collect();
    let mut missing: Vec<&str> = dao_abi::entry::ALL.iter().map(|e| e.name).filter(|n| !defined.contains(n)).collect();
    missing.extend(dao_abi::global::ALL.iter().filter(|g| g.in_runtime && !defined.contains(g.name)).map(|g| g.name));
    assert!(missing.is_empty(), "libdao_rt.a does not define: {missing:?}");
    // and the modules' thread-locals are not the runtime's to define
    for g in dao_abi::global::ALL.iter().filter(|g| !g.in_runtime) {
        assert!(!defined.contains(g.name), "{} is defined by every instrumented module, not by the runtime", g.name);
    }
}
