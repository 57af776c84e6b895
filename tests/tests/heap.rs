//! Heap objects (issue #33, item 3): blocks `main` allocates once, named by
//! the liveness one by one, so that a block the next step rewrites before
//! reading is left out of a checkpoint (the runtime checks at each
//! checkpoint that the loop's extent reaches the block's end).
//!
//! `test-programs/omp/c/heap_scratch.c` holds four blocks of n doubles
//! (n = 32768 here: 256 KiB each): `u` (carried), `w` (rewritten whole by a
//! `parallel for` at the top of each step), `t` (written before the step
//! loop, read every step), `o` (n + 1 doubles, rewritten whole by a serial
//! loop in main each step, read after). For each build, -O0 and -O2, with 2
//! threads:
//!
//! - the DAO_STATS `checkpoint` events must save at least `u` and `t` in
//!   heap bytes, and, where the analysis proves them dead (`w` at -O0 and
//!   -O2, `o` at -O0: at -O2 its loop is runtime-unrolled with a guarded
//!   last element, a shape the pass does not take yet), less than that plus
//!   half a block; with `DAO_SAVE=all` at least every block;
//! - the twins keep `w`: `-DREAD_FIRST` reads one of its old elements,
//!   `-DSHORT` rewrites all but its last one (the extent condition fails at
//!   run time), `-DESCAPE` stores its address in a global other files can
//!   name (the pass does not track it);
//! - `dao inspect --json` of a checkpoint lists `w` as a heap object not
//!   saved, with what rewrites it first, and `u` as saved;
//! - a run killed right after a checkpoint and restarted with
//!   `DAO_DEAD=poison` (every byte left out, heap blocks included, filled
//!   with 0xff) prints, appended to the killed run's output, exactly the
//!   clean build's output.
//!
//! Run: `cargo test --release -p dao-tests --test heap`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{compare_outputs, run, RunSpec};
use dao_tests::{Lang, Opt, Variant};

/// n doubles.
const N: u64 = 32768;
const BLOCK: u64 = N * 8;
const STEPS: &str = "30";
const EVERY: &str = "4";
const THREADS: &str = "2";

fn source() -> PathBuf {
    tools().repo.join("test-programs/omp/c/heap_scratch.c")
}

fn binary(opt: Opt, twin: Option<&str>, variant: Variant) -> PathBuf {
    let t = format!("{}-{}", opt.name(), twin.unwrap_or("plain"));
    let v = if variant == Variant::Clean { "clean" } else { "inst" };
    let mut flags = vec!["-fopenmp".to_string()];
    if let Some(d) = twin {
        flags.push(format!("-D{d}"));
    }
    build_once(&format!("heap-{t}-{v}"), || build_sources(Lang::C, &[source()], &flags, opt, variant, &tools().out.join("heap-build").join(&t)))
        .unwrap_or_else(|e| panic!("build of heap_scratch ({t}, {v}): {e}"))
}

fn env(dir: &Path, name: &str, extra: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    let mut e: Vec<(&'static str, String)> = vec![
        ("OMP_NUM_THREADS", THREADS.into()),
        ("DAO_OMP_TIMEOUT", "20".into()),
        ("DAO_DIR", dir.join(format!("{name}.ckpt")).display().to_string()),
        ("DAO_EVERY", EVERY.into()),
        ("DAO_STATS", dir.join(format!("{name}.stats")).display().to_string()),
    ];
    e.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    e
}

fn go(exe: &Path, dir: &Path, name: &str, out: &str, env: Vec<(&'static str, String)>) -> dao_tests::process::Finished {
    let n = N.to_string();
    let spec = RunSpec { exe, args: &[STEPS, &n], env, stdout_append: dir.join(out), stderr: dir.join(format!("{name}.stderr")) };
    run(&spec, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"))
}

/// (seq, heap bytes) of every checkpoint event.
fn heap_bytes(stats: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(stats)
        .unwrap_or_else(|e| panic!("{}: {e}", stats.display()))
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "checkpoint")
        .map(|e| (e["seq"].as_u64().unwrap(), e["bytes"]["heap"].as_u64().unwrap_or_else(|| panic!("no bytes.heap in {e}"))))
        .collect()
}

/// Blocks the analysis must leave out at `opt` (`w`, and `o` at -O0).
fn dead_blocks(opt: Opt, twin: Option<&str>) -> (u64, &'static str) {
    match (opt, twin) {
        (Opt::O0, None) => (BLOCK + (N + 1) * 8, "w and o"),
        (_, None) => (BLOCK, "w"),
        (Opt::O0, Some(_)) => ((N + 1) * 8, "o"),
        (_, Some(_)) => (0, "nothing"),
    }
}

fn check(opt: Opt, twin: Option<&str>) {
    let label = format!("heap_scratch {} {}", opt.name(), twin.unwrap_or("plain"));
    let clean = binary(opt, twin, Variant::Clean);
    let inst = binary(opt, twin, Variant::Instrumented);
    let dir = fresh_dir(&format!("heap/{}-{}", opt.name(), twin.unwrap_or("plain")));

    let r = go(&clean, &dir, "clean", "clean.stdout", vec![("OMP_NUM_THREADS", THREADS.into())]);
    assert!(r.status.success(), "[{label}] clean run: {}", r.describe());
    let r = go(&inst, &dir, "live", "live.stdout", env(&dir, "live", &[]));
    assert!(r.status.success(), "[{label}] instrumented run: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("live.stdout")).unwrap_or_else(|e| panic!("[{label}] {e}"));
    let r = go(&inst, &dir, "all", "all.stdout", env(&dir, "all", &[("DAO_SAVE", "all")]));
    assert!(r.status.success(), "[{label}] DAO_SAVE=all run: {}", r.describe());
    let live = heap_bytes(&dir.join("live.stats"));
    let all = heap_bytes(&dir.join("all.stats"));
    assert!(live.len() >= 3, "[{label}] only {} checkpoints in {}", live.len(), dir.join("live.stats").display());

    // killed right after a checkpoint that is not the first, restarted with
    // every byte left out poisoned
    let k = live.iter().map(|c| c.0).find(|&s| s >= 2).expect("a checkpoint after the first");
    let r = go(&inst, &dir, "crash", "crash.stdout", env(&dir, "crash", &[("DAO_CRASH_AFTER", &k.to_string())]));
    assert!(r.killed_by(9), "[{label}] not killed after checkpoint {k}: {}", r.describe());
    if twin.is_none() {
        inspect_heap(&label, &dao_tests::paths::checkpoint_file(&dir.join("crash.ckpt"), k));
    }
    let r = go(&inst, &dir, "resume", "crash.stdout", env(&dir, "crash", &[("DAO_DEAD", "poison")]));
    assert!(r.status.success(), "[{label}] restart: {}", r.describe());
    assert!(r.stderr.contains("dao: resuming"), "[{label}] the restart did not resume: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("crash.stdout")).unwrap_or_else(|e| panic!("[{label}] after a restart from checkpoint {k} with the dead bytes poisoned: {e}"));

    // sizes: u and t saved; the dead blocks left out, the rest kept
    let (dead, what) = dead_blocks(opt, twin);
    let every = 3 * BLOCK + (N + 1) * 8;
    eprintln!("[{label}] heap bytes per checkpoint (seq, bytes): live {live:?}, all {all:?}; dead here: {what}");
    let mut failures = vec![];
    for (&(seq, l), &(_, a)) in live.iter().zip(&all) {
        if l < 2 * BLOCK {
            failures.push(format!("checkpoint {seq}: {l} heap bytes, less than u and t ({}): live blocks left out", 2 * BLOCK));
        }
        if l >= every - dead + BLOCK / 2 {
            failures.push(format!("checkpoint {seq}: {l} heap bytes, want < {} (every block {every} less {what} {dead}, plus half a block): a dead block saved", every - dead + BLOCK / 2));
        }
        if dead < BLOCK && l < every - (N + 1) * 8 {
            failures.push(format!("checkpoint {seq}: {l} heap bytes, want at least u, w and t ({}): w left out though this build must keep it", 3 * BLOCK));
        }
        if a < every {
            failures.push(format!("checkpoint {seq}: DAO_SAVE=all saves {a} heap bytes, want every block ({every})"));
        }
    }
    assert!(failures.is_empty(), "[{label}] ({}):\n  {}", dir.display(), failures.join("\n  "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dao inspect --json` lists the heap objects of the checkpoint: `w` not
/// saved, with what rewrites it first; `u` saved.
fn inspect_heap(label: &str, file: &Path) {
    let out = std::process::Command::new(&tools().dao).arg("inspect").arg("--json").arg(file).output().expect("run dao inspect");
    assert!(out.status.success(), "[{label}] dao inspect --json {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("dao inspect --json prints JSON");
    let objs = r["heap_objects"].as_array().unwrap_or_else(|| panic!("[{label}] no heap_objects: {r}"));
    let find = |name: &str| objs.iter().find(|o| o["name"] == name).unwrap_or_else(|| panic!("[{label}] {name} not among the heap objects: {objs:?}"));
    let w = find("w");
    assert_eq!((w["saved"].as_bool(), w["size"].as_u64()), (Some(false), Some(BLOCK)), "[{label}] w: {w}");
    assert!(w["why"].as_str().is_some_and(|s| s.contains("heap_scratch.c:")), "[{label}] w: no file:line of what rewrites it first: {w}");
    let u = find("u");
    assert_eq!((u["saved"].as_bool(), u["size"].as_u64()), (Some(true), Some(BLOCK)), "[{label}] u: {u}");
}

#[test]
fn o0() {
    check(Opt::O0, None)
}

#[test]
fn o2() {
    check(Opt::O2, None)
}

#[test]
fn o0_read_first() {
    check(Opt::O0, Some("READ_FIRST"))
}

#[test]
fn o2_read_first() {
    check(Opt::O2, Some("READ_FIRST"))
}

#[test]
fn o0_short() {
    check(Opt::O0, Some("SHORT"))
}

#[test]
fn o2_short() {
    check(Opt::O2, Some("SHORT"))
}

#[test]
fn o0_escape() {
    check(Opt::O0, Some("ESCAPE"))
}

#[test]
fn o2_escape() {
    check(Opt::O2, Some("ESCAPE"))
}
