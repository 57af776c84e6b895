//! `DAO_PASS_TIME` (pass/plugin/src/timing.rs): the pass's own time per
//! phase, for its compile-time budget (issue #33). The report must name
//! every phase, the shim's phases and (with `2`) each run of the shim, and
//! timing must not change what the pass does: the instrumented IR with and
//! without it is the same. The program has runtime-checked conditions, so
//! both worlds of the planning run.

use std::process::Command;

use dao_tests::build::dao_env;
use dao_tests::paths::{fresh_dir, tools};

fn compile(out: &std::path::Path, name: &str, time: Option<&str>) -> (String, String) {
    let ll = out.join(format!("{name}.ll"));
    let mut cmd = Command::new(&tools().dao);
    cmd.args(["cc", "-O2", "-fopenmp", "-S", "-emit-llvm"]).arg(tools().repo.join("test-programs/omp/c/padded_extents.c")).arg("-o").arg(&ll).current_dir(out);
    dao_env(&mut cmd);
    cmd.env_remove("DAO_PASS_TIME");
    if let Some(t) = time {
        cmd.env("DAO_PASS_TIME", t);
    }
    let r = cmd.output().expect("run dao");
    let stderr = String::from_utf8_lossy(&r.stderr).into_owned();
    assert!(r.status.success(), "dao cc failed:\n{stderr}");
    (std::fs::read_to_string(&ll).expect("the IR"), stderr)
}

#[test]
fn pass_time_reports_phases_and_changes_nothing() {
    let out = fresh_dir("pass-time");
    let (plain, quiet) = compile(&out, "plain", None);
    assert!(!quiet.contains("dao: pass time"), "a report without DAO_PASS_TIME:\n{quiet}");
    let (timed, report) = compile(&out, "timed", Some("2"));
    for phase in ["dao: pass time for", "shim loop facts", "translate", "summaries, world 0", "sites, world 0", "summaries, world 1", "sites, world 1", "apply", "verify", "shim: clone", "shim: write sections", "shim: reads"] {
        assert!(report.contains(phase), "no '{phase}' in the report:\n{report}");
    }
    assert!(report.lines().any(|l| l.starts_with("dao: shim loop facts of ") && l.ends_with(" ms")), "no line per shim run:\n{report}");
    // the pass's total is the largest of its phases' totals
    let total = |name: &str| -> f64 {
        let l = report.lines().find(|l| l.split_whitespace().nth(1) == Some(name) && l.split_whitespace().nth(2).is_some_and(|c| c.parse::<u32>().is_ok())).unwrap_or_else(|| panic!("no '{name}' line:\n{report}"));
        l.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    assert!(total("pass") >= total("planning") && total("planning") > 0.0, "{report}");
    let (_, one) = compile(&out, "one", Some("1"));
    assert!(one.contains("dao: pass time for") && !one.contains("dao: shim loop facts of "), "DAO_PASS_TIME=1 prints the phases only:\n{one}");
    let strip = |s: &str| s.lines().filter(|l| !l.starts_with("; ModuleID") && !l.starts_with("source_filename")).collect::<Vec<_>>().join("\n");
    assert!(strip(&plain) == strip(&timed), "DAO_PASS_TIME changed the instrumented IR");
}
