//! The pass's internal-error path (`pass/plugin/src/lib.rs` `run`): a panic
//! while the plan is carried out, or an instrumented module that does not
//! verify, must fail the compile with dao's "internal error" diagnostic and
//! never crash the compiler or hand half-instrumented IR to the passes
//! after dao (the module's code is dropped, `dao_cxx_drop_code`).
//! `DAO_PASS_FAULT=panic|invalid` injects each failure after a module was
//! instrumented; C (clang), C++ (comdats, constructor aliases, static
//! constructors: what dropping the code must also handle) and Fortran
//! (flang, which exits through `DAO_EXIT_ON_ERROR`).

use std::process::Command;

use dao_tests::build::dao_env;
use dao_tests::paths::{fresh_dir, tools};

fn check(tool: &str, rel: &str, flags: &[&str]) {
    let out = fresh_dir(&format!("pass-fault-{tool}"));
    for fault in ["panic", "invalid"] {
        for opt in ["-O0", "-O2"] {
            let obj = out.join(format!("{fault}{opt}.o"));
            let mut cmd = Command::new(&tools().dao);
            cmd.args([tool, opt, "-c"]).args(flags).arg(tools().repo.join(rel)).arg("-o").arg(&obj).current_dir(&out);
            dao_env(&mut cmd);
            cmd.env("DAO_PASS_FAULT", fault);
            let r = cmd.output().expect("run dao");
            let stderr = String::from_utf8_lossy(&r.stderr);
            let label = format!("{tool} {rel} {opt} DAO_PASS_FAULT={fault}");
            assert!(!r.status.success(), "[{label}] compiled successfully; stderr:\n{stderr}");
            assert!(stderr.contains("dao: internal error"), "[{label}] no internal-error diagnostic; stderr:\n{stderr}");
            for crash in ["after its code was dropped", "PLEASE submit a bug report", "Stack dump:", "Segmentation fault", "Assertion", "LLVM ERROR"] {
                assert!(!stderr.contains(crash), "[{label}] the compiler crashed ({crash}); stderr:\n{stderr}");
            }
            assert!(!obj.exists(), "[{label}] an object file was written");
        }
    }
    // and without the fault the same compile succeeds
    let mut cmd = Command::new(&tools().dao);
    cmd.args([tool, "-O2", "-c"]).args(flags).arg(tools().repo.join(rel)).arg("-o").arg(out.join("ok.o")).current_dir(&out);
    dao_env(&mut cmd);
    let r = cmd.output().expect("run dao");
    assert!(r.status.success(), "{tool} {rel}: {}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn c_internal_error_fails_cleanly() {
    check("cc", "test-programs/omp/c/host_teams.c", &["-fopenmp"]);
}

#[test]
fn cxx_internal_error_fails_cleanly() {
    check("c++", "test-programs/cxx/templates_uptr.cc", &[]);
}

#[test]
fn fortran_internal_error_fails_cleanly() {
    check("fc", "test-programs/omp/fortran/host_teams.f90", &["-fopenmp"]);
}
