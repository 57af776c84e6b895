//! Array-section liveness (issue #15): what a checkpoint saves when global
//! arrays are completely overwritten by static worksharing loop nests.
//!
//! `test-programs/omp/{c,fortran}/sections_dead` hold seven global int64
//! arrays of 64 x 512 elements (256 KiB each). At the marker at the top of
//! the step loop (between regions) `work1` (overwritten whole by a combined
//! `parallel for collapse(2) schedule(static)` nest in the same function:
//! one loop whose indices are its quotient and remainder), `work2`
//! (overwritten whole by an orphaned `omp for` / `!$omp do` three calls
//! deep, in a region a callee opens) and `work3` (rewritten row by row by a
//! worksharing loop whose iteration reads back the row it has just
//! written) are dead; `state` (carried), `part`
//! (only its interior rewritten, the halo read), `cond` (rewritten only on
//! input-dependent steps) and `subset` (rewritten by thread 0 only) are
//! live, but of `part` only the halo ring (9184 of its 262144 bytes: the
//! interior is rewritten first, byte-level liveness). For each program at
//! -O0 and -O2 with 2 threads:
//!
//! - the DAO_STATS `checkpoint` events whose `at` is the top-of-loop marker
//!   (its `file:line`, found in the source by its comment) must save at
//!   least the three live arrays and the halo, and less than that plus half
//!   an array (so no work array and not the interior of `part` is saved;
//!   the rest is frames and small globals, a few hundred bytes);
//! - with `DAO_SAVE=all` the same checkpoints (same `DAO_EVERY`: the same
//!   candidates) must be larger by at least the three work arrays and the
//!   interior of `part` (so the test fails if the analysis stops killing
//!   them, or if the baseline stops saving them);
//! - a run killed right after a top-of-loop checkpoint and restarted (its
//!   `restart` event names that checkpoint) with `DAO_DEAD=poison` (every
//!   byte left out filled with 0xff, the interior of `part` included) must
//!   print, appended to the killed run's output, exactly the clean build's
//!   output: the bytes left out of the checkpoint were indeed dead, and the
//!   halo saved alone was put back exactly.
//!
//! With a pass that saves every global (before issue #15's analysis) the
//! size checks fail (1835536-1914948 bytes at the top-of-loop marker,
//! the bound is 1179648); the restart part runs first and passes.
//!
//! The crash/restart matrix of these programs (thread counts, protocols,
//! the in-region marker) is in omp.rs; this file is about the sizes. The
//! shapes of third-party codes (NPB's padded arrays, extents through
//! parameters, boundary planes, ...) are in shapes.rs.
//! Run: `cargo test --release -p dao-tests --test sections`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{compare_outputs, run, RunSpec};
use dao_tests::sizes::{defs_run, env, events, saved, THREADS};
use dao_tests::{Lang, Opt, Variant};

/// One array: 64 x 512 int64.
const ARRAY: u64 = 64 * 512 * 8;
/// The halo ring of `part`: its first and last rows (2 x 512 int64) and
/// the first and last element of the 62 rows between.
const HALO: u64 = (2 * 512 + 2 * 62) * 8;
/// state, cond, subset, and the halo of part.
const LIVE: u64 = 3 * ARRAY + HALO;
/// work1, work2, work3, and the interior of part.
const DEAD: u64 = 3 * ARRAY + (ARRAY - HALO);
/// Time steps: two candidates per step (top of the loop, then in the region).
const STEPS: &str = "40";
// DAO_EVERY is sizes::EVERY (7), odd, so the checkpoints alternate between
// the two markers: candidates 7, 21, 35, ... are top-of-loop ones (odd
// candidate numbers), 14, 28, ... in the region; 2 threads.
/// The comment on the top-of-loop marker's line in both sources.
const TOP_MARKER_TAG: &str = "top of the step loop: work1, work2 dead (and work3)";

fn source(lang: Lang) -> PathBuf {
    let (sub, ext) = match lang {
        Lang::C => ("c", "c"),
        Lang::Fortran => ("fortran", "f90"),
    };
    tools().repo.join(format!("test-programs/omp/{sub}/sections_dead.{ext}"))
}

fn tag(lang: Lang, opt: Opt) -> String {
    match lang {
        Lang::C => format!("c-{}", opt.name()),
        Lang::Fortran => format!("f-{}", opt.name()),
    }
}

fn binary(lang: Lang, opt: Opt, variant: Variant) -> PathBuf {
    let src = source(lang);
    let t = tag(lang, opt);
    let v = if variant == Variant::Clean { "clean" } else { "inst" };
    build_once(&format!("sections-{t}-{v}"), || {
        build_sources(lang, &[src.clone()], &["-fopenmp".to_string()], opt, variant, &tools().out.join("sections-build").join(&t))
    })
    .unwrap_or_else(|e| panic!("build of sections_dead ({t}, {v}): {e}"))
}

/// `file:line)` ending the `at` of a checkpoint taken at the top-of-loop
/// marker (`at` is `function#site (file:line)`; the file is the path the
/// compiler was given, or only its name).
fn top_marker_suffix(lang: Lang) -> String {
    let src = source(lang);
    let text = std::fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    let lines: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(TOP_MARKER_TAG) && l.contains("dao_potential_checkpoint")).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{}: want exactly one marker line with the comment {TOP_MARKER_TAG:?}", src.display());
    format!("{}:{})", src.file_name().unwrap().to_string_lossy(), lines[0])
}

/// Run `exe` to its end (or its crash), stdout appended to `dir/<out>`.
fn go(exe: &Path, dir: &Path, name: &str, out: &str, env: Vec<(&'static str, String)>) -> dao_tests::process::Finished {
    let spec = RunSpec { exe, args: &[STEPS], env, stdout_append: dir.join(out), stderr: dir.join(format!("{name}.stderr")) };
    run(&spec, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"))
}

/// (seq, bytes saved) of the checkpoints taken at the top-of-loop marker.
fn top_checkpoints(stats: &Path, suffix: &str) -> Vec<(u64, u64)> {
    events(stats, "checkpoint")
        .iter()
        .filter(|e| e["at"].as_str().is_some_and(|a| a.ends_with(suffix)))
        .map(|e| (e["seq"].as_u64().unwrap(), saved(e)))
        .collect()
}

fn check(lang: Lang, opt: Opt) {
    let label = format!("sections_dead {}", tag(lang, opt));
    let clean = binary(lang, opt, Variant::Clean);
    let inst = binary(lang, opt, Variant::Instrumented);
    let suffix = top_marker_suffix(lang);
    let dir = fresh_dir(&format!("sections/{}", tag(lang, opt)));

    // the reference output
    let r = go(&clean, &dir, "clean", "clean.stdout", vec![("OMP_NUM_THREADS", THREADS.into())]);
    assert!(r.status.success(), "[{label}] clean run: {}", r.describe());

    // live (the default) and all
    let r = go(&inst, &dir, "live", "live.stdout", env(&dir, "live", &[]));
    assert!(r.status.success(), "[{label}] instrumented run: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("live.stdout")).unwrap_or_else(|e| panic!("[{label}] {e}"));
    let r = go(&inst, &dir, "all", "all.stdout", env(&dir, "all", &[("DAO_SAVE", "all")]));
    assert!(r.status.success(), "[{label}] DAO_SAVE=all run: {}", r.describe());
    let live = top_checkpoints(&dir.join("live.stats"), &suffix);
    let all = top_checkpoints(&dir.join("all.stats"), &suffix);
    eprintln!("[{label}] top-of-loop checkpoints (seq, bytes): live {live:?}, all {all:?}; want live in [{LIVE}, {}), all >= live + {DEAD}", LIVE + ARRAY / 2);
    assert!(live.len() >= 3, "[{label}] only {} checkpoints at the top-of-loop marker (`at` ending with {suffix:?}) in {}", live.len(), dir.join("live.stats").display());
    assert_eq!(
        live.iter().map(|c| c.0).collect::<Vec<_>>(),
        all.iter().map(|c| c.0).collect::<Vec<_>>(),
        "[{label}] DAO_SAVE=all checkpointed at other candidates"
    );
    // killed right after a top-of-loop checkpoint (not the first: the
    // restart must not simply redo the run), restarted; before the size
    // checks, so that a failing size still shows whether the restart works
    let k = live.iter().map(|c| c.0).find(|&s| s >= 2).expect("a top-of-loop checkpoint after the first");
    let r = go(&inst, &dir, "crash", "crash.stdout", env(&dir, "crash", &[("DAO_CRASH_AFTER", &k.to_string())]));
    assert!(r.killed_by(9), "[{label}] not killed after checkpoint {k}: {}", r.describe());
    inspect_dead(&label, &dao_tests::paths::checkpoint_file(&dir.join("crash.ckpt"), k as u64));
    // the dead work arrays are poisoned (0xff) by the restart, and the
    // output must not change
    let r = go(&inst, &dir, "resume", "crash.stdout", env(&dir, "crash", &[("DAO_DEAD", "poison"), ("DAO_VERBOSE", "1")]));
    assert!(r.status.success(), "[{label}] restart: {}", r.describe());
    let poisoned: u64 = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("dao: DAO_DEAD=poison: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("[{label}] the restart with DAO_DEAD=poison DAO_VERBOSE=1 did not say what it poisoned: {}", r.describe()));
    assert!(poisoned >= DEAD, "[{label}] the restart poisoned {poisoned} bytes, want at least the three dead work arrays and the interior of part ({DEAD})");
    assert!(
        r.stderr.contains("dao: resuming"),
        "[{label}] the restart did not resume: {}",
        r.describe()
    );
    let restarts = events(&dir.join("crash.stats"), "restart");
    assert!(restarts.len() == 1 && restarts[0]["seq"] == k, "[{label}] want one restart from checkpoint {k}: {restarts:?}");
    compare_outputs(&dir.join("clean.stdout"), &dir.join("crash.stdout")).unwrap_or_else(|e| panic!("[{label}] after a restart from top-of-loop checkpoint {k}: {e}"));

    let mut failures = vec![];
    for (&(seq, l), &(_, a)) in live.iter().zip(&all) {
        if l < LIVE {
            failures.push(format!("checkpoint {seq}: {l} bytes saved, less than the three live arrays and the halo of part ({LIVE}): live data was left out"));
        }
        if l >= LIVE + ARRAY / 2 {
            failures.push(format!(
                "checkpoint {seq}: {l} bytes saved, want < {} (the live arrays and halo {LIVE} + half an array): work1/work2/work3 or the interior of part ({DEAD}) saved although dead",
                LIVE + ARRAY / 2
            ));
        }
        if a < l + DEAD {
            failures.push(format!("checkpoint {seq}: DAO_SAVE=all saves {a} bytes, want >= live {l} + the three work arrays and the interior of part {DEAD}"));
        }
    }
    assert!(failures.is_empty(), "[{label}] top-of-loop marker `{suffix}` ({}):\n  {}", dir.display(), failures.join("\n  "));

    let _ = std::fs::remove_dir_all(&dir);
}

/// `dao inspect --json` of a top-of-loop checkpoint lists the dead globals
/// (format 5; the file is format 8, issue #33's continued records): the three work arrays not saved at all, each with what
/// rewrites it first (the pass's words, from the candidate's descriptor),
/// and `part` saved only in its halo.
fn inspect_dead(label: &str, file: &Path) {
    let out = std::process::Command::new(&tools().dao).arg("inspect").arg("--json").arg(file).output().expect("run dao inspect");
    assert!(out.status.success(), "[{label}] dao inspect --json {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("dao inspect --json prints JSON");
    assert_eq!(r["format_version"], 10, "[{label}] {r}");
    let dead = r["dead_globals"].as_array().unwrap_or_else(|| panic!("[{label}] no dead_globals: {r}"));
    let find = |name: &str| dead.iter().find(|d| d["name"].as_str().is_some_and(|n| n.to_ascii_lowercase().contains(name))).unwrap_or_else(|| panic!("[{label}] {name} not among the dead globals: {dead:?}"));
    for w in ["work1", "work2", "work3"] {
        let d = find(w);
        assert_eq!((d["size"].as_u64(), d["saved"].as_u64(), d["dead"].as_u64()), (Some(ARRAY), Some(0), Some(ARRAY)), "[{label}] {w}: {d}");
        assert!(d["why"].as_str().is_some_and(|s| s.contains("sections_dead.")), "[{label}] {w}: no file:line of what rewrites it first: {d}");
    }
    let p = find("part");
    assert_eq!((p["saved"].as_u64(), p["dead"].as_u64()), (Some(HALO), Some(ARRAY - HALO)), "[{label}] part: {p}");
    for live in ["state", "subset"] {
        assert!(!dead.iter().any(|d| d["name"].as_str().is_some_and(|n| n.to_ascii_lowercase().ends_with(live))), "[{label}] {live} listed as dead: {dead:?}");
    }
}

#[test]
fn c_o0() {
    check(Lang::C, Opt::O0)
}

#[test]
fn c_o2() {
    check(Lang::C, Opt::O2)
}

#[test]
fn fortran_o0() {
    check(Lang::Fortran, Opt::O0)
}

#[test]
fn fortran_o2() {
    check(Lang::Fortran, Opt::O2)
}

// ---- runtime-checked conditions (sections_cond.c): extents read from the
// command line decide whether `work` and `scan` are dead at the top of the
// step loop

/// Runs sections_cond with `args`: clean, instrumented (sizes), killed after
/// its second checkpoint and restarted with the dead globals poisoned
/// (output as the clean run's). Returns the bytes of each checkpoint.
fn cond_run(opt: Opt, args: &[&str], tag: &str) -> Vec<(u64, u64)> {
    prog_run("sections_cond", opt, args, tag)
}

/// [`cond_run`] for test program `stem` (test-programs/omp/c/`stem`.c).
fn prog_run(stem: &str, opt: Opt, args: &[&str], tag: &str) -> Vec<(u64, u64)> {
    defs_run(stem, &[], opt, args, tag)
}

/// Full extents: `scan` (a serial recurrence), `vec` (a loop -O2
/// vectorises, read through its scalar copy) and `work` (a worksharing
/// nest; at -O2 its inner loop sits under its own zero-trip guard in every
/// row, which adds a requirement to the condition) are dead; one short
/// row: all saved, and the restarts stay exact.
fn cond_check(opt: Opt, dead: u64) {
    let full = cond_run(opt, &["40"], "full");
    let short = cond_run(opt, &["40", "63", "512"], "short");
    // state (and a few scalars, frames) is always saved
    for &(seq, b) in &full {
        assert!(
            b >= ARRAY && b + dead <= 4 * ARRAY + 4096,
            "[sections_cond {}] checkpoint {seq} with full extents saved {b} bytes: want state ({ARRAY}) and not the {dead} bytes of dead arrays",
            opt.name()
        );
    }
    for &(seq, b) in &short {
        assert!(b >= 4 * ARRAY, "[sections_cond {}] checkpoint {seq} with short extents saved {b} bytes, want state, work, scan and vec ({})", opt.name(), 4 * ARRAY);
    }
}

#[test]
fn cond_c_o0() {
    cond_check(Opt::O0, 3 * ARRAY)
}

#[test]
fn cond_c_o2() {
    cond_check(Opt::O2, 3 * ARRAY)
}

// ---- an NPB 3.0 BT-style program (sections_bt3.c): big global work
// arrays (`lhs`, `fjac`, `njac`, `rhs`, ...) rewritten by every time step
// in called functions' worksharing loops over extents read from a global
// (`grid_points`); only `u` and `forcing` carry state

/// `u` and `forcing`: 20^3 cells of 5 doubles each.
const BT3_CARRIED: u64 = 2 * 20 * 20 * 20 * 5 * 8;
/// Every array of the program: u, forcing, rhs (5 doubles per cell), us,
/// vs, rho_i, qs (1), fjac, njac (25), lhs (75).
const BT3_ALL: u64 = 20 * 20 * 20 * 8 * (3 * 5 + 4 + 2 * 25 + 75);

/// Full grid: each checkpoint at the top of the step saves `u` and
/// `forcing` and at most `extra` bytes more (-O0: frames and scalars; -O2:
/// also `rhs`, which compute_rhs copies and then updates in loops the
/// shim cannot describe yet at -O2); a grid of 17 points: every array
/// saved (its conditions fail).
/// Both killed and restarted with the dead globals poisoned.
fn bt3_check(opt: Opt, extra: u64) {
    let full = prog_run("sections_bt3", opt, &["30"], "full");
    for &(seq, b) in &full {
        assert!(
            b >= BT3_CARRIED && b <= BT3_CARRIED + extra,
            "[sections_bt3 {}] checkpoint {seq} saved {b} bytes: want u and forcing ({BT3_CARRIED}) plus at most {extra} (save-all: {BT3_ALL})",
            opt.name()
        );
    }
    // a grid of 17 points: the rest of each array keeps its start-up
    // values and is never read (nothing writes `grid_points` once the
    // step loop runs: issue #33), so `lhs`, `rho_i` and `qs`, whose reads
    // all stay inside the extents, are dead still; at least u and forcing
    // are saved
    let short = prog_run("sections_bt3", opt, &["30", "17"], "short");
    for &(seq, b) in &short {
        assert!(
            b >= BT3_CARRIED && b + BT3_LHS_RHO_QS <= BT3_ALL + 16384,
            "[sections_bt3 {}] checkpoint {seq} with 17 grid points saved {b} bytes: want u and forcing ({BT3_CARRIED}), not lhs, rho_i and qs ({BT3_LHS_RHO_QS}; every array: {BT3_ALL})",
            opt.name()
        );
    }
}

/// `lhs` (75 doubles per cell), `rho_i` and `qs` (1 each).
const BT3_LHS_RHO_QS: u64 = 20 * 20 * 20 * 8 * (75 + 2);

#[test]
fn bt3_c_o0() {
    bt3_check(Opt::O0, 16384)
}

#[test]
fn bt3_c_o2() {
    // rhs too: 320000 bytes
    bt3_check(Opt::O2, 320000 + 16384)
}
