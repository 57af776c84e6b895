//! Checkpoint sizes of a test program: what `sections.rs` and `shapes.rs`
//! measure. [`run_program`] builds `test-programs/omp/c/<stem>.c` with some
//! `-D` flags, runs it clean, instrumented (its DAO_STATS checkpoint
//! events: the bytes each saved), killed after its second checkpoint and
//! restarted with the dead bytes poisoned (`DAO_DEAD=poison`; the output
//! must be the clean run's), and optionally reads the last checkpoint with
//! `dao inspect --json` (the bytes saved of each global, by name).
//!
//! Every run of [`run_program`] has 2 threads and `DAO_EVERY=7`
//! ([`env_every`] gives other tests another `DAO_EVERY`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::build::{build_once, build_sources, Lang, Opt, Variant};
use crate::paths::{fresh_dir, tools};
use crate::process::{compare_outputs, run, RunSpec};

/// OMP_NUM_THREADS of every run.
pub const THREADS: &str = "2";
/// DAO_EVERY of every instrumented run: odd, so that programs with two
/// markers per step alternate between them.
pub const EVERY: &str = "7";

/// The environment of an instrumented run named `name` in `dir`:
/// [`THREADS`], [`EVERY`], its checkpoint directory and DAO_STATS file,
/// plus `extra`.
pub fn env(dir: &Path, name: &str, extra: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    env_every(dir, name, EVERY, extra)
}

/// [`env`] with DAO_EVERY `every`.
pub fn env_every(dir: &Path, name: &str, every: &str, extra: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    let mut e: Vec<(&'static str, String)> = vec![
        ("OMP_NUM_THREADS", THREADS.into()),
        ("DAO_OMP_TIMEOUT", "20".into()),
        ("DAO_DIR", dir.join(format!("{name}.ckpt")).display().to_string()),
        ("DAO_EVERY", every.into()),
        ("DAO_STATS", dir.join(format!("{name}.stats")).display().to_string()),
    ];
    e.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    e
}

/// The events of kind `kind` of a DAO_STATS file.
pub fn events(stats: &Path, kind: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(stats)
        .unwrap_or_else(|e| panic!("{}: {e}", stats.display()))
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == kind)
        .collect()
}

/// slots + stack + globals + heap of a checkpoint event.
pub fn saved(ev: &serde_json::Value) -> u64 {
    ["slots", "stack", "globals", "heap"].iter().map(|k| ev["bytes"][k].as_u64().unwrap_or_else(|| panic!("no bytes.{k} in {ev}"))).sum()
}

/// (seq, bytes saved) of every checkpoint of a run.
pub fn all_checkpoints(stats: &Path) -> Vec<(u64, u64)> {
    events(stats, "checkpoint").iter().map(|e| (e["seq"].as_u64().unwrap(), saved(e))).collect()
}

/// test-programs/omp/c/`stem`.c built with `-fopenmp` and `defs` (`-D...`).
pub fn flags_binary(stem: &str, defs: &[&str], opt: Opt, variant: Variant) -> PathBuf {
    let src = tools().repo.join(format!("test-programs/omp/c/{stem}.c"));
    let v = if variant == Variant::Clean { "clean" } else { "inst" };
    let tag = std::iter::once(stem.to_string()).chain(defs.iter().map(|d| d.trim_start_matches("-D").to_lowercase())).collect::<Vec<_>>().join("-");
    let mut flags = vec!["-fopenmp".to_string()];
    flags.extend(defs.iter().map(|d| d.to_string()));
    build_once(&format!("sections-{tag}-{}-{v}", opt.name()), || build_sources(Lang::C, &[src.clone()], &flags, opt, variant, &tools().out.join("sections-build").join(format!("{tag}-{}", opt.name()))))
        .unwrap_or_else(|e| panic!("build of {tag} ({}, {v}): {e}", opt.name()))
}

/// Runs test-programs/omp/c/`stem`.c built with `defs` and given `args`:
/// clean, instrumented (sizes), killed after its second checkpoint and
/// restarted with the dead bytes poisoned (output as the clean run's).
/// Returns the bytes of each checkpoint of the instrumented run and, with
/// `inspect`, the bytes its last checkpoint holds of each global, by name
/// (`dao inspect --json`; empty without).
pub fn run_program(stem: &str, defs: &[&str], opt: Opt, args: &[&str], tag: &str, inspect: bool) -> (Vec<(u64, u64)>, HashMap<String, u64>) {
    let label = format!("{stem} {defs:?} {} {tag}", opt.name());
    let clean = flags_binary(stem, defs, opt, Variant::Clean);
    let inst = flags_binary(stem, defs, opt, Variant::Instrumented);
    let dir = fresh_dir(&format!("sections/{stem}{}-{}-{tag}", defs.concat().to_lowercase(), opt.name()));
    let go = |exe: &Path, name: &str, out: &str, env: Vec<(&'static str, String)>| {
        let spec = RunSpec { exe, args, env, stdout_append: dir.join(out), stderr: dir.join(format!("{name}.stderr")) };
        run(&spec, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"))
    };
    let r = go(&clean, "clean", "clean.stdout", vec![("OMP_NUM_THREADS", THREADS.into())]);
    assert!(r.status.success(), "[{label}] clean run: {}", r.describe());
    let r = go(&inst, "live", "live.stdout", env(&dir, "live", &[]));
    assert!(r.status.success(), "[{label}] instrumented run: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("live.stdout")).unwrap_or_else(|e| panic!("[{label}] {e}"));
    let r = go(&inst, "crash", "crash.stdout", env(&dir, "crash", &[("DAO_CRASH_AFTER", "2")]));
    assert!(r.killed_by(9), "[{label}] not killed after checkpoint 2: {}", r.describe());
    let r = go(&inst, "resume", "crash.stdout", env(&dir, "crash", &[("DAO_DEAD", "poison")]));
    assert!(r.status.success() && r.stderr.contains("dao: resuming"), "[{label}] restart: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("crash.stdout")).unwrap_or_else(|e| panic!("[{label}] after a restart from checkpoint 2: {e}"));
    let sizes = all_checkpoints(&dir.join("live.stats"));
    assert!(sizes.len() >= 3, "[{label}] only {} checkpoints", sizes.len());
    let mut objs = HashMap::new();
    if inspect {
        let evs = events(&dir.join("live.stats"), "checkpoint");
        let last = evs.last().and_then(|e| e["file"].as_str()).map(PathBuf::from).unwrap_or_else(|| panic!("[{label}] no file in the last checkpoint event"));
        let out = std::process::Command::new(&tools().dao).arg("inspect").arg("--json").arg(&last).output().expect("run dao inspect");
        assert!(out.status.success(), "[{label}] dao inspect --json {}: {}", last.display(), String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("dao inspect --json prints JSON");
        for g in r["globals"].as_array().unwrap_or_else(|| panic!("[{label}] no globals: {r}")) {
            *objs.entry(g["name"].as_str().unwrap_or("?").to_string()).or_insert(0) += g["size"].as_u64().unwrap_or(0);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (sizes, objs)
}

/// [`run_program`]'s sizes.
pub fn defs_run(stem: &str, defs: &[&str], opt: Opt, args: &[&str], tag: &str) -> Vec<(u64, u64)> {
    run_program(stem, defs, opt, args, tag, false).0
}

/// [`run_program`] with `dao inspect`.
pub fn defs_run_objs(stem: &str, defs: &[&str], opt: Opt, args: &[&str], tag: &str) -> (Vec<(u64, u64)>, HashMap<String, u64>) {
    run_program(stem, defs, opt, args, tag, true)
}
