//! flang's threadprivate (issue #14) beyond the crash scenarios of omp.rs:
//! a restart with another OMP_NUM_THREADS.
//!
//! `tp_common_solver` keeps per-thread row ranges in a threadprivate common
//! block set only in its first parallel region (the NPB pattern): a team of
//! another size would compute wrongly with them, so a restart from a
//! checkpoint between regions with another thread count must stop, naming
//! the variable, and a restart with the checkpoint's count must give the
//! uninterrupted run's output. A checkpoint inside a region keeps its team
//! (a warning says so) and restarts correctly.
use std::path::{Path, PathBuf};
use std::time::Duration;

use dao_tests::build::{build_once, build_sources};
use dao_tests::{Lang, Opt, Variant};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{run, Finished, RunSpec};

const PROG: &str = "tp_common_solver";
const ARG: &str = "40";

fn binary(variant: Variant) -> PathBuf {
    let src = tools().repo.join("test-programs/omp/fortran").join(format!("{PROG}.f90"));
    let key = format!("{PROG}-tp-{}", if variant == Variant::Clean { "clean" } else { "inst" });
    build_once(&key, || build_sources(Lang::Fortran, &[src.clone()], &["-fopenmp".to_string()], Opt::O2, variant, &tools().out.join("threadprivate").join(PROG))).unwrap_or_else(|e| panic!("build of {PROG}: {e}"))
}

fn go(exe: &Path, dir: &Path, out: &str, env: &[(&'static str, String)]) -> Finished {
    let spec = RunSpec { exe, args: &[ARG], env: env.to_vec(), stdout_append: dir.join(out), stderr: dir.join(format!("{out}.stderr")) };
    run(&spec, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"))
}

/// Kill at a checkpoint between regions after the first region (the
/// serial marker of a later outer step: with DAO_EVERY=1 every candidate the
/// master reaches is one; the first k whose checkpoint lies outside a
/// region and holds live worker copies), then restart with 2 threads
/// instead of 4.
#[test]
fn another_thread_count_between_regions_names_the_live_variable() {
    let inst = binary(Variant::Instrumented);
    let mut found = None;
    for k in 2..100u32 {
        let dir = fresh_dir(&format!("threadprivate/threads-{k}"));
        let ck = dir.join("ck");
        let mut env = vec![("OMP_NUM_THREADS", "4".to_string()), ("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "1".into()), ("DAO_CRASH_AFTER", k.to_string())];
        let f = go(&inst, &dir, "run.out", &env);
        assert!(f.killed_by(9), "the run was not killed at checkpoint {k}: {}", f.describe());
        let inspect = std::process::Command::new(&tools().dao).args(["inspect", "--json"]).arg(dao_tests::paths::checkpoint_file(&ck, k as u64)).output().unwrap();
        let j: serde_json::Value = serde_json::from_slice(&inspect.stdout).unwrap_or_else(|e| panic!("dao inspect --json: {e}"));
        let live_copies = j["workers"].as_array().is_some_and(|ws| {
            ws.iter().any(|w| w["threadprivate_copies"].as_array().is_some_and(|c| c.iter().any(|v| v["size"].as_u64().unwrap_or(0) > 0)))
        });
        if j["team_size"].as_u64() == Some(0) && live_copies {
            env.retain(|(k, _)| *k != "DAO_CRASH_AFTER");
            found = Some((dir, env));
            break;
        }
    }
    let (dir, _) = found.expect("no checkpoint between regions with live worker copies among the first 100");
    let ck = dir.join("ck");
    let base = |t: u32| vec![("OMP_NUM_THREADS", t.to_string()), ("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "1".into())];
    let f = go(&inst, &dir, "run.out", &base(2));
    assert!(!f.status.success() && !f.killed_by(9), "the restart with 2 threads should stop: {}", f.describe());
    assert!(f.stderr.contains("holds the threadprivate variable") && f.stderr.contains("restart with OMP_NUM_THREADS=4"), "{}", f.describe());
    // the same checkpoint, restarted with its own thread count, completes
    // with the uninterrupted run's output
    let g = go(&inst, &dir, "run.out", &base(4));
    assert!(g.status.success(), "{}", g.describe());
    let clean = binary(Variant::Clean);
    let c = go(&clean, &dir, "clean.out", &[("OMP_NUM_THREADS", "4".into())]);
    assert!(c.status.success(), "{}", c.describe());
    let got = std::fs::read(dir.join("run.out")).unwrap();
    let want = std::fs::read(dir.join("clean.out")).unwrap();
    assert!(got == want, "restarted output differs from the clean run's ({})", dir.display());
}
