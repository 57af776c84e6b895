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
//!   name (the pass does not track it); the variant `-DFIXED_N` (n a
//!   constant: blocks of sizes known at compile time, killed without a
//!   cover condition) leaves out the same blocks as the plain build;
//! - `dao inspect --json` of a checkpoint lists `w` as a heap object not
//!   saved, with what rewrites it first, and `u` as saved;
//! - a run killed right after a checkpoint and restarted with
//!   `DAO_DEAD=poison` (every byte left out, heap blocks included, filled
//!   with 0xff) prints, appended to the killed run's output, exactly the
//!   clean build's output.
//!
//! `test-programs/omp/c/heap_flat.c` is Rodinia SRAD's shape: extents in
//! `main`'s locals (`rows`, `cols`, read by the regions through their
//! captures: the pass makes them globals), rows x cols floats indexed
//! `i * cols + j` (a flattened nest: its cover condition is the inner count
//! times the outer one). `img` (carried) and `up` (written before the step
//! loop) are live, `d` and `c` (rewritten by a `parallel for` at the top of
//! each step) dead at -O2 (at -O0 the index, computed in `int` and sign
//! extended, gives no box: kept); the twins keep `d`: `-DSHORT_ROWS` skips
//! its last row, `-DREAD_D` reads an old element, `-DMOVE_COLS` writes
//! `cols` again in the step loop (no condition on it holds).
//!
//! Run: `cargo test --release -p dao-tests --test heap`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{compare_outputs, run, RunSpec};
use dao_tests::{Lang, Opt, Variant};

const EVERY: &str = "4";
const THREADS: &str = "2";

/// One test program: its arguments, its blocks (name, bytes) and which of
/// them a build must leave out.
struct Program {
    name: &'static str,
    args: &'static [&'static str],
    blocks: &'static [(&'static str, u64)],
    /// The blocks the analysis must leave out (the others it must save).
    dead: fn(Opt, Option<&str>) -> &'static [&'static str],
    /// A block `dao inspect` must list as left out, with what rewrites it
    /// first, in the plain build at -O2; and one it must list as saved.
    inspect: (&'static str, &'static str),
}

/// heap_scratch: n = 32768 doubles per block.
const SCRATCH: Program = Program {
    name: "heap_scratch",
    args: &["30", "32768"],
    blocks: &[("u", 32768 * 8), ("w", 32768 * 8), ("t", 32768 * 8), ("o", 32769 * 8)],
    dead: |opt, twin| match (opt, twin) {
        (Opt::O0, None | Some("FIXED_N")) => &["w", "o"],
        (_, None | Some("FIXED_N")) => &["w"],
        (Opt::O0, Some(_)) => &["o"],
        (_, Some(_)) => &[],
    },
    inspect: ("w", "u"),
};

/// heap_flat: 128 x 128 floats per block, `up` 128 ints.
const FLAT: Program = Program {
    name: "heap_flat",
    args: &["30", "128", "128"],
    blocks: &[("img", 128 * 128 * 4), ("d", 128 * 128 * 4), ("c", 128 * 128 * 4), ("up", 128 * 4)],
    dead: |opt, twin| match (opt, twin) {
        (Opt::O0, _) => &[],
        (_, None) => &["d", "c"],
        (_, Some("READ_D")) => &["c"],
        (_, Some(_)) => &[],
    },
    inspect: ("d", "img"),
};

fn binary(p: &Program, opt: Opt, twin: Option<&str>, variant: Variant) -> PathBuf {
    let t = format!("{}-{}-{}", p.name, opt.name(), twin.unwrap_or("plain"));
    let v = if variant == Variant::Clean { "clean" } else { "inst" };
    let mut flags = vec!["-fopenmp".to_string()];
    if let Some(d) = twin {
        flags.push(format!("-D{d}"));
    }
    let src = tools().repo.join(format!("test-programs/omp/c/{}.c", p.name));
    build_once(&format!("heap-{t}-{v}"), || build_sources(Lang::C, &[src.clone()], &flags, opt, variant, &tools().out.join("heap-build").join(&t)))
        .unwrap_or_else(|e| panic!("build of {t} ({v}): {e}"))
}

fn env(dir: &Path, name: &str, extra: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    dao_tests::sizes::env_every(dir, name, EVERY, extra)
}

fn go(p: &Program, exe: &Path, dir: &Path, name: &str, out: &str, env: Vec<(&'static str, String)>) -> dao_tests::process::Finished {
    let spec = RunSpec { exe, args: p.args, env, stdout_append: dir.join(out), stderr: dir.join(format!("{name}.stderr")) };
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

fn check(p: &Program, opt: Opt, twin: Option<&str>) {
    let label = format!("{} {} {}", p.name, opt.name(), twin.unwrap_or("plain"));
    let clean = binary(p, opt, twin, Variant::Clean);
    let inst = binary(p, opt, twin, Variant::Instrumented);
    let dir = fresh_dir(&format!("heap/{}-{}-{}", p.name, opt.name(), twin.unwrap_or("plain")));

    let r = go(p, &clean, &dir, "clean", "clean.stdout", vec![("OMP_NUM_THREADS", THREADS.into())]);
    assert!(r.status.success(), "[{label}] clean run: {}", r.describe());
    let r = go(p, &inst, &dir, "live", "live.stdout", env(&dir, "live", &[]));
    assert!(r.status.success(), "[{label}] instrumented run: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("live.stdout")).unwrap_or_else(|e| panic!("[{label}] {e}"));
    let r = go(p, &inst, &dir, "all", "all.stdout", env(&dir, "all", &[("DAO_SAVE", "all")]));
    assert!(r.status.success(), "[{label}] DAO_SAVE=all run: {}", r.describe());
    let live = heap_bytes(&dir.join("live.stats"));
    let all = heap_bytes(&dir.join("all.stats"));
    assert!(live.len() >= 3, "[{label}] only {} checkpoints in {}", live.len(), dir.join("live.stats").display());

    // killed right after a checkpoint that is not the first, restarted with
    // every byte left out poisoned
    let k = live.iter().map(|c| c.0).find(|&s| s >= 2).expect("a checkpoint after the first");
    let r = go(p, &inst, &dir, "crash", "crash.stdout", env(&dir, "crash", &[("DAO_CRASH_AFTER", &k.to_string())]));
    assert!(r.killed_by(9), "[{label}] not killed after checkpoint {k}: {}", r.describe());
    if twin.is_none() && opt == Opt::O2 {
        inspect_heap(p, &label, &dao_tests::paths::checkpoint_file(&dir.join("crash.ckpt"), k));
    }
    let r = go(p, &inst, &dir, "resume", "crash.stdout", env(&dir, "crash", &[("DAO_DEAD", "poison")]));
    assert!(r.status.success(), "[{label}] restart: {}", r.describe());
    assert!(r.stderr.contains("dao: resuming"), "[{label}] the restart did not resume: {}", r.describe());
    compare_outputs(&dir.join("clean.stdout"), &dir.join("crash.stdout")).unwrap_or_else(|e| panic!("[{label}] after a restart from checkpoint {k} with the dead bytes poisoned: {e}"));

    // sizes: every block the build keeps saved, the dead ones left out
    let dead = (p.dead)(opt, twin);
    let kept: u64 = p.blocks.iter().filter(|b| !dead.contains(&b.0)).map(|b| b.1).sum();
    let every: u64 = p.blocks.iter().map(|b| b.1).sum();
    let smallest_dead = p.blocks.iter().filter(|b| dead.contains(&b.0)).map(|b| b.1).min().unwrap_or(u64::MAX);
    eprintln!("[{label}] heap bytes per checkpoint (seq, bytes): live {live:?}, all {all:?}; left out here: {dead:?}");
    let mut failures = vec![];
    for (&(seq, l), &(_, a)) in live.iter().zip(&all) {
        if l < kept {
            failures.push(format!("checkpoint {seq}: {l} heap bytes, less than the blocks this build keeps ({kept}): a live block left out"));
        }
        if !dead.is_empty() && l >= kept + smallest_dead / 2 {
            failures.push(format!("checkpoint {seq}: {l} heap bytes, want < {} (the kept blocks and half the smallest dead one): a dead block {dead:?} saved", kept + smallest_dead / 2));
        }
        if a < every {
            failures.push(format!("checkpoint {seq}: DAO_SAVE=all saves {a} heap bytes, want every block ({every})"));
        }
    }
    assert!(failures.is_empty(), "[{label}] ({}):\n  {}", dir.display(), failures.join("\n  "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dao inspect --json` lists the heap objects of the checkpoint: the
/// program's dead block not saved, with what rewrites it first; its live
/// one saved.
fn inspect_heap(p: &Program, label: &str, file: &Path) {
    let out = std::process::Command::new(&tools().dao).arg("inspect").arg("--json").arg(file).output().expect("run dao inspect");
    assert!(out.status.success(), "[{label}] dao inspect --json {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("dao inspect --json prints JSON");
    let objs = r["heap_objects"].as_array().unwrap_or_else(|| panic!("[{label}] no heap_objects: {r}"));
    let find = |name: &str| objs.iter().find(|o| o["name"] == name).unwrap_or_else(|| panic!("[{label}] {name} not among the heap objects: {objs:?}"));
    let size = |name: &str| p.blocks.iter().find(|b| b.0 == name).unwrap().1;
    let (dead, live) = p.inspect;
    let w = find(dead);
    assert_eq!((w["saved"].as_bool(), w["size"].as_u64()), (Some(false), Some(size(dead))), "[{label}] {dead}: {w}");
    assert!(w["why"].as_str().is_some_and(|s| s.contains(&format!("{}.c:", p.name))), "[{label}] {dead}: no file:line of what rewrites it first: {w}");
    let u = find(live);
    assert_eq!((u["saved"].as_bool(), u["size"].as_u64()), (Some(true), Some(size(live))), "[{label}] {live}: {u}");
}

#[test]
fn scratch_o0() {
    check(&SCRATCH, Opt::O0, None)
}

#[test]
fn scratch_o2() {
    check(&SCRATCH, Opt::O2, None)
}

/// Sizes and extents known at compile time (`-DFIXED_N`): the blocks are
/// objects of that size, killed without a cover condition, the same blocks
/// left out.
#[test]
fn scratch_o0_fixed_n() {
    check(&SCRATCH, Opt::O0, Some("FIXED_N"))
}

#[test]
fn scratch_o2_fixed_n() {
    check(&SCRATCH, Opt::O2, Some("FIXED_N"))
}

#[test]
fn scratch_o0_read_first() {
    check(&SCRATCH, Opt::O0, Some("READ_FIRST"))
}

#[test]
fn scratch_o2_read_first() {
    check(&SCRATCH, Opt::O2, Some("READ_FIRST"))
}

#[test]
fn scratch_o0_short() {
    check(&SCRATCH, Opt::O0, Some("SHORT"))
}

#[test]
fn scratch_o2_short() {
    check(&SCRATCH, Opt::O2, Some("SHORT"))
}

#[test]
fn scratch_o0_escape() {
    check(&SCRATCH, Opt::O0, Some("ESCAPE"))
}

#[test]
fn scratch_o2_escape() {
    check(&SCRATCH, Opt::O2, Some("ESCAPE"))
}

#[test]
fn flat_o0() {
    check(&FLAT, Opt::O0, None)
}

#[test]
fn flat_o2() {
    check(&FLAT, Opt::O2, None)
}

#[test]
fn flat_o2_short_rows() {
    check(&FLAT, Opt::O2, Some("SHORT_ROWS"))
}

#[test]
fn flat_o2_read_d() {
    check(&FLAT, Opt::O2, Some("READ_D"))
}

#[test]
fn flat_o2_move_cols() {
    check(&FLAT, Opt::O2, Some("MOVE_COLS"))
}

/// `-Rdao` names every allocation call the liveness does not follow, with
/// the reason (issue #33, item 2: a user who sees "heap blocks by
/// reachability" needs to know which allocation and why): an address
/// stored where other files can read it (heap_scratch `-DESCAPE`, and no
/// line for the four blocks the plain build follows), a helper function
/// (grid3d at -O0), a call in a loop (grid3d's rows, inlined into `main`
/// at -O2), and a Fortran ALLOCATE (allocatable.f90).
#[test]
fn allocations_not_followed_are_named() {
    let repo = &tools().repo;
    let dir = fresh_dir("heap-untracked");
    let remarks = |driver: &str, opt: &str, src: &str, defs: &[&str]| -> Vec<String> {
        let out = std::process::Command::new(&tools().dao)
            .args([driver, opt, "-fopenmp", "-c", "-Rdao"])
            .args(defs)
            .arg(repo.join(src))
            .arg("-o")
            .arg(dir.join("x.o"))
            .current_dir(&dir)
            .output()
            .expect("run dao");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{src}: {err}");
        err.lines().filter(|l| l.contains("are saved whenever a saved pointer reaches them")).map(str::to_string).collect()
    };
    let plain = remarks("cc", "-O2", "test-programs/omp/c/heap_scratch.c", &[]);
    assert!(plain.is_empty(), "heap_scratch's four blocks are followed: {plain:?}");
    let esc = remarks("cc", "-O2", "test-programs/omp/c/heap_scratch.c", &["-DESCAPE"]);
    assert_eq!(esc.len(), 1, "{esc:?}");
    assert!(esc[0].contains("heap_scratch.c:76: heap blocks of 'malloc' in 'main'") && esc[0].contains("stored into memory other than a local variable or a global of this file at ") && esc[0].contains("heap_scratch.c:80"), "{esc:?}");
    let o0 = remarks("cc", "-O0", "test-programs/c/grid3d.c", &[]);
    for line in [22, 24, 26] {
        assert!(o0.iter().any(|l| l.contains(&format!("grid3d.c:{line}: heap blocks of")) && l.contains("allocated in 'alloc_grid', not in the main program")), "grid3d.c:{line} at -O0: {o0:?}");
    }
    let o2 = remarks("cc", "-O2", "test-programs/c/grid3d.c", &[]);
    assert!(o2.iter().any(|l| l.contains("grid3d.c:24: heap blocks of 'malloc'") && l.contains("in 'main'") && l.contains("the call is in a loop")), "{o2:?}");
    let f = remarks("fc", "-O2", "test-programs/fortran/allocatable.f90", &[]);
    assert!(f.iter().any(|l| l.contains("allocatable.f90:77: heap blocks of '_FortranAAllocatableAllocate") && l.contains("an ALLOCATE statement")), "{f:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
