//! Checkpoint placement end to end (issue #7): NPB CG class S, one thread,
//! through profile -> `dao place` -> run with the placement -> kill ->
//! restart.
//!
//! Invariants:
//! - a profiling run (DAO_PROFILE, no DAO_DIR) prints the clean run's
//!   output and writes a profile naming every candidate instance reached
//!   (1..=N, times non-decreasing, sizes > 0) and this executable's hash;
//! - with the placement file (DAO_PLACEMENT) the checkpoints are taken at
//!   exactly the chosen candidate numbers (each checkpoint file's saved
//!   candidate count), no others;
//! - killed after its 1st checkpoint and restarted, the run resumes
//!   (`dao: resuming`), takes exactly the remaining chosen checkpoints, and
//!   the appended output equals the clean run's (timing lines left out);
//! - misuse is a clear error: a placement for another executable, DAO_PROFILE
//!   with DAO_DIR (runtime, exit 3), and an interval shorter than a stretch
//!   without candidates (`dao place`, exit 2, naming the stretch).
//!
//! Outputs under `tests/out/placement/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dao_tests::build::{build_sources, dao_env};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{compare_outputs_filtered, run, Finished, RunSpec};
use dao_tests::{Lang, Opt, Variant};

const TIMING: &[&str] = &[" Time initialisation", " Time in seconds", " Mop/s"];
const LIMIT: Duration = Duration::from_secs(120);

fn build(name: &str, class: char, variant: Variant, dir: &Path) -> PathBuf {
    let npb = tools().repo.join("npb-ports");
    let sources = vec![npb.join(format!("{name}/{name}.c")), npb.join("common/npb_common.c")];
    let flags = vec!["-fopenmp".to_string(), format!("-DCLASS_{class}"), format!("-I{}", npb.join("common").display())];
    build_sources(Lang::C, &sources, &flags, Opt::O3, variant, &dir.join(format!("{name}.{class}")))
        .unwrap_or_else(|e| panic!("build of {name}.{class}: {e}"))
}

fn go(exe: &Path, dir: &Path, tag: &str, out: &Path, env: Vec<(&'static str, String)>) -> Finished {
    let mut env = env;
    env.push(("OMP_NUM_THREADS", "1".into()));
    let spec = RunSpec { exe, args: &[], env, stdout_append: out.to_path_buf(), stderr: dir.join(format!("{tag}.stderr")) };
    run(&spec, LIMIT).unwrap_or_else(|e| panic!("{tag}: {e}"))
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dao(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(&tools().dao);
    cmd.args(args);
    dao_env(&mut cmd);
    cmd.output().expect("run dao")
}

/// Candidate counts saved in the checkpoint files of `ck`, by sequence number.
fn checkpoint_candidates(ck: &Path) -> Vec<u64> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(ck)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dao" || x == "dst"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let o = dao(&["inspect", f.to_str().unwrap(), "--json"]);
            assert!(o.status.success(), "dao inspect {}: {}", f.display(), String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            v["candidates"].as_u64().unwrap_or_else(|| panic!("no candidates in {v}"))
        })
        .collect()
}

#[test]
fn cg_s_profile_place_run_kill_restart() {
    let dir = fresh_dir("placement");
    let clean = build("cg", 'S', Variant::Clean, &dir);
    let inst = build("cg", 'S', Variant::Instrumented, &dir);

    let reference = dir.join("clean.stdout");
    let r = go(&clean, &dir, "clean", &reference, vec![]);
    assert!(r.status.success(), "clean run: {}", r.describe());
    assert!(std::fs::read_to_string(&reference).unwrap().contains(" Verification    =               SUCCESSFUL"));

    // 1. Profile.
    let prof = dir.join("cg.profile.json");
    let out = dir.join("profile.stdout");
    let r = go(&inst, &dir, "profile", &out, vec![("DAO_PROFILE", prof.display().to_string())]);
    assert!(r.status.success(), "profiling run: {}", r.describe());
    compare_outputs_filtered(&reference, &out, TIMING).unwrap_or_else(|e| panic!("profiling run: {e}"));
    let p = json(&prof);
    assert_eq!(p["format"], "dao-profile");
    let hash = format!("{:016x}", xxh3(&inst));
    assert_eq!(p["executable"]["hash"], hash.as_str());
    let instances = p["instances"].as_array().unwrap();
    let n = instances.len() as u64;
    assert!(n >= 100, "CG.S reaches 436 candidates, the profile has {n}");
    let mut last = 0.0;
    for (k, i) in instances.iter().enumerate() {
        assert_eq!(i["n"].as_u64(), Some(k as u64 + 1), "instance {k}: {i}");
        let t = i["time_s"].as_f64().unwrap();
        assert!(t >= last, "times must not decrease: {i}");
        last = t;
        let th = &i["threads"][0];
        assert_eq!(th["role"], "master");
        let bytes = i["shared"]["globals"].as_u64().unwrap() + i["shared"]["heap"].as_u64().unwrap() + th["slots"].as_u64().unwrap() + th["stack"].as_u64().unwrap();
        assert!(bytes > 0, "{i}");
    }
    let total = p["total_time_s"].as_f64().unwrap();
    assert!(total >= last && p["overhead_s"].as_f64().unwrap() > 0.0);

    // 2. Place: T_itvl about T / 5, but at least the longest stretch
    // without a candidate (CG's initialisation), so that it is feasible.
    let mut gap = 0.0f64;
    let mut prev = 0.0;
    for i in instances {
        let t = i["time_s"].as_f64().unwrap();
        gap = gap.max(t - prev);
        prev = t;
    }
    gap = gap.max(total - prev);
    let t_itvl = (total / 5.0).max(1.05 * gap);
    let mtbf = t_itvl / -(0.99f64.ln());
    let placement = dir.join("cg.placement.json");
    let o = dao(&["place", "--profile", prof.to_str().unwrap(), "--mtbf", &format!("{mtbf}"), "-o", placement.to_str().unwrap()]);
    assert!(o.status.success(), "dao place: {}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("least bytes within T_itvl") && report.contains("Young periodic"), "{report}");
    let chosen: Vec<u64> = json(&placement)["instances"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    // Normally T_itvl = T / 5 and the optimum takes several instances. A
    // stall of the loaded machine longer than T / 2 between two candidates
    // forces T_itvl above T / 2, and one checkpoint may then suffice.
    let min_chosen = if t_itvl < total / 2.0 { 2 } else { 1 };
    assert!(chosen.len() >= min_chosen && (chosen.len() as u64) < n, "chosen {chosen:?} of {n} (T_itvl {t_itvl} s of T {total} s, longest gap {gap} s)");

    // 3. Run with the placement: checkpoints exactly at the chosen instances.
    let ck = dir.join("full.ckpt");
    let out = dir.join("full.stdout");
    let env = |extra: &[(&'static str, String)]| {
        let mut e = vec![
            ("DAO_DIR", ck.display().to_string()),
            ("DAO_PLACEMENT", placement.display().to_string()),
            ("DAO_KEEP_CHAINS", "1000".to_string()),
        ];
        e.extend(extra.iter().cloned());
        e
    };
    let r = go(&inst, &dir, "full", &out, env(&[]));
    assert!(r.status.success(), "run with placement: {}", r.describe());
    compare_outputs_filtered(&reference, &out, TIMING).unwrap_or_else(|e| panic!("run with placement: {e}"));
    assert_eq!(checkpoint_candidates(&ck), chosen, "checkpoints must be taken exactly at the chosen instances");

    // 4. Kill after the 1st checkpoint, restart.
    let ck = dir.join("crash.ckpt");
    let out = dir.join("crash.stdout");
    let env = |extra: &[(&'static str, String)]| {
        let mut e = vec![
            ("DAO_DIR", ck.display().to_string()),
            ("DAO_PLACEMENT", placement.display().to_string()),
            ("DAO_KEEP_CHAINS", "1000".to_string()),
        ];
        e.extend(extra.iter().cloned());
        e
    };
    let r = go(&inst, &dir, "crash1", &out, env(&[("DAO_CRASH_AFTER", "1".into())]));
    assert!(r.killed_by(9), "DAO_CRASH_AFTER=1 should kill the run: {}", r.describe());
    assert_eq!(checkpoint_candidates(&ck), chosen[..1]);
    let r = go(&inst, &dir, "crash2", &out, env(&[]));
    assert!(r.status.success(), "restart: {}", r.describe());
    assert!(r.stderr.contains("dao: resuming"), "the restart must resume: {}", r.describe());
    assert_eq!(checkpoint_candidates(&ck), chosen, "after the restart the remaining chosen instances checkpoint, and only they");
    compare_outputs_filtered(&reference, &out, TIMING).unwrap_or_else(|e| panic!("killed and restarted: {e}"));

    // 5. Misuse.
    let other = build("mg", 'S', Variant::Instrumented, &dir);
    let r = go(&other, &dir, "foreign", &dir.join("foreign.stdout"), vec![("DAO_PLACEMENT", placement.display().to_string())]);
    assert_eq!(r.status.code(), Some(3), "{}", r.describe());
    assert!(r.stderr.contains("was computed for another executable"), "{}", r.describe());
    let r = go(&inst, &dir, "both", &dir.join("both.stdout"), vec![("DAO_PROFILE", "x.json".into()), ("DAO_DIR", dir.join("x").display().to_string())]);
    assert_eq!(r.status.code(), Some(3), "{}", r.describe());
    assert!(r.stderr.contains("DAO_PROFILE and DAO_DIR are both set"), "{}", r.describe());
    let first = instances[0]["time_s"].as_f64().unwrap();
    let tiny = first / 2.0 / -(0.99f64.ln());
    let o = dao(&["place", "--profile", prof.to_str().unwrap(), "--mtbf", &format!("{tiny}")]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no placement meets T_itvl") && err.contains("the program's start") && err.contains("candidate instance 1 at main#"), "{err}");
}

/// The runtime's identity of an executable: xxh3-64 of the file.
fn xxh3(path: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&std::fs::read(path).unwrap())
}
