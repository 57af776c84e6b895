//! Whole-program kill/restart tests with the storage engine (the default
//! storage, DAO_STORE=engine), and a smaller matrix of the older single
//! files (DAO_STORE=file, `check_file`): every store mode (full, incremental, differential,
//! adaptive) with synchronous writing and with async flush (DAO_ASYNC=wait),
//! on C, Fortran, OpenMP (checkpoints inside parallel regions, 2 threads)
//! and NPB programs, through the scenarios of `dao_tests::scenario` (clean
//! vs instrumented, crash after k, crash while writing k, random SIGKILLs,
//! two crashes in a row).
//!
//! Invariant: the output appended across crashes and restarts equals the
//! clean run's, every restart resumes from the expected checkpoint (rebuilt
//! from its base and deltas), and the checkpoints really were written by
//! the engine in the mode asked for (DAO_STATS `storage`, `store.kind`,
//! `store.flush`; adaptive: incremental checkpoints where some deltas are
//! small, `Prog::adaptive_deltas`, only full ones where none is); after
//! two crashes in a row, the resumed run's first checkpoint continues the
//! restored chain (incremental: a delta whose parent is the checkpoint it
//! resumed from).
//!
//! Cost: every (program, mode, flush) cell is a full `check_plan` (about 20
//! runs), so the table does not hold every cell: each program runs 3-4 of
//! the 8 (mode, flush) pairs and each pair runs on 3-4 programs (table
//! below). One extra test runs DAO_ASYNC=skip, whose checkpoint count
//! depends on timing (`exact_count: false`).
//! Run one: `cargo test --release -p dao-tests --test store grid3d`.

use std::path::PathBuf;

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::{check_plan, Lang, Opt, Plan, Variant};

/// A program and how the scenarios run it.
#[derive(Clone, Copy)]
struct Prog {
    /// Label and output directory.
    name: &'static str,
    lang: Lang,
    /// Sources relative to the repository, in compilation order.
    sources: &'static [&'static str],
    flags: &'static [&'static str],
    opt: Opt,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    every: u64,
    crash_after: &'static [u64],
    crash_in: &'static [u64],
    drop_lines: &'static [&'static str],
    reference_lines: &'static [&'static str],
    /// What `DAO_INCREMENTAL=adaptive` must write after the first (full)
    /// checkpoint: `true`, at least one incremental checkpoint (some
    /// deltas stay under `DAO_DELTA_MAX` = 0.5 of the state); `false`, only
    /// full ones (every checkpoint changes more than half of the state:
    /// measured in incremental mode, stored/live bytes 0.96-1.0 for
    /// allocatable, 0.68 for stencil3d_heap).
    adaptive_deltas: bool,
}

const NPB_TIMING: &[&str] = &[" Time initialisation", " Time in seconds", " Mop/s"];

const GRID3D: Prog = Prog {
    name: "grid3d",
    lang: Lang::C,
    sources: &["test-programs/c/grid3d.c"],
    flags: &[],
    opt: Opt::O2,
    args: &["80"],
    env: &[],
    every: 60,
    crash_after: &[2, 7],
    crash_in: &[4],
    drop_lines: &[],
    reference_lines: &[],
    adaptive_deltas: true,
};
const HASH_TABLE: Prog = Prog {
    name: "hash_table",
    sources: &["test-programs/c/hash_table.c"],
    args: &["150000"],
    every: 30,
    ..GRID3D
};
const LINKED_LIST: Prog = Prog { name: "linked_list", sources: &["test-programs/c/linked_list.c"], args: &["6000"], every: 12, ..GRID3D };
const REALLOC_BUFFER: Prog =
    Prog { name: "realloc_buffer", sources: &["test-programs/c/realloc_buffer.c"], args: &["300000"], every: 3, ..GRID3D };
const ALLOCATABLE: Prog = Prog {
    name: "allocatable_f",
    lang: Lang::Fortran,
    sources: &["test-programs/fortran/allocatable.f90"],
    args: &["400"],
    every: 130,
    adaptive_deltas: false,
    ..GRID3D
};
/// Small state, frequent candidates: with DAO_ASYNC=skip most candidates
/// come while a flush runs (fsync) and are skipped.
const FP_ACCUM: Prog = Prog { name: "fp_accum", sources: &["test-programs/c/fp_accum.c"], args: &["16000000"], every: 40, ..GRID3D };
/// Checkpoints inside a parallel region (team of 2, shared heap grids).
const STENCIL_OMP: Prog = Prog {
    name: "stencil3d_heap_t2",
    sources: &["test-programs/omp/c/stencil3d_heap.c"],
    flags: &["-fopenmp"],
    args: &["30"],
    env: &[("OMP_NUM_THREADS", "2"), ("DAO_OMP_TIMEOUT", "20")],
    every: 170,
    adaptive_deltas: false,
    ..GRID3D
};
/// NPB MG class S, 2 threads (npb.rs builds it the same way).
const MG_S: Prog = Prog {
    name: "npb_mg_S_t2",
    sources: &["npb-ports/mg/mg.c", "npb-ports/common/npb_common.c"],
    flags: &["-fopenmp", "-DCLASS_S", "-INPB_COMMON"],
    opt: Opt::O3,
    args: &[],
    env: &[("OMP_NUM_THREADS", "2")],
    every: 4,
    drop_lines: NPB_TIMING,
    reference_lines: &[" Verification    =               SUCCESSFUL"],
    ..GRID3D
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Full,
    Incremental,
    Differential,
    Adaptive,
}

impl Mode {
    fn var(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Incremental => "incremental",
            Mode::Differential => "differential",
            Mode::Adaptive => "adaptive",
        }
    }
}

fn repo() -> PathBuf {
    tools().repo.clone()
}

fn binary(p: &Prog, variant: Variant) -> PathBuf {
    let vname = if variant == Variant::Clean { "clean" } else { "inst" };
    build_once(&format!("store-{}-{vname}", p.name), || {
        let r = repo();
        let sources: Vec<PathBuf> = p.sources.iter().map(|s| r.join(s)).collect();
        let flags: Vec<String> =
            p.flags.iter().map(|f| f.replace("NPB_COMMON", &r.join("npb-ports/common").display().to_string())).collect();
        build_sources(p.lang, &sources, &flags, p.opt, variant, &tools().out.join("store-builds").join(p.name))
    })
    .unwrap_or_else(|e| panic!("{vname} build of {}: {e}", p.name))
}

fn events(path: &std::path::Path, event: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .filter(|e| e["event"] == event)
        .collect()
}

/// Runs the scenarios of `p` with the engine in `mode`, flushing `flush`
/// (`off`, `wait` or `skip`: DAO_ASYNC, a forked writer running the engine
/// in the background; `copy-wait`: the engine's own staging copy and flush
/// thread, DAO_SNAPSHOT=copy DAO_ASYNC=wait), then checks what the engine
/// wrote.
fn check_store(p: &Prog, mode: Mode, flush: &str) {
    let (flush, snapshot) = match flush.strip_prefix("copy-") {
        Some(f) => (f, "copy"),
        None if flush == "off" => (flush, "none"),
        None => (flush, "fork"),
    };
    let clean = binary(p, Variant::Clean);
    let inst = binary(p, Variant::Instrumented);
    let label = format!("{} store={} async={flush} snapshot={snapshot}", p.name, mode.var());
    let dir = fresh_dir(&format!("store/{}-{}-{flush}-{snapshot}", p.name, mode.var()));
    let mut env: Vec<(&'static str, String)> = p.env.iter().map(|(k, v)| (*k, v.to_string())).collect();
    env.push(("DAO_STORE", "engine".into()));
    env.push(("DAO_INCREMENTAL", mode.var().into()));
    env.push(("DAO_ASYNC", flush.into()));
    if snapshot == "copy" {
        env.push(("DAO_SNAPSHOT", "copy".into()));
    }
    let skip = flush == "skip";
    check_plan(&Plan {
        label: label.clone(),
        dir: dir.clone(),
        clean,
        inst,
        args: p.args,
        env,
        every: p.every,
        // skip: fewer checkpoints, at moments that depend on timing
        crash_after: if skip { &[1, 2] } else { p.crash_after },
        crash_in: if skip { &[2] } else { p.crash_in },
        drop_lines: p.drop_lines,
        reference_lines: p.reference_lines.iter().map(|s| s.to_string()).collect(),
        exact_count: !skip,
    });

    // The uninterrupted run's checkpoints: written by the engine, in the
    // mode and flush asked for.
    let cps = events(&dir.join("uninterrupted.stats"), "checkpoint");
    assert!(cps.len() >= 2, "[{label}] {} checkpoints", cps.len());
    if skip {
        // not asserted: whether a candidate comes during a flush depends on the disk
        eprintln!("[{label}] the uninterrupted run committed {} checkpoints (candidates due while a flush ran were skipped)", cps.len());
    }
    let kinds: Vec<&str> = cps.iter().map(|e| e["store"]["kind"].as_str().unwrap_or("?")).collect();
    for e in &cps {
        assert_eq!(e["storage"], "engine", "[{label}] {e}");
        assert_eq!(e["store"]["flush"], if flush == "off" { "sync" } else { flush }, "[{label}] {e}");
        // a forked writer running the engine, or the engine's staging copy
        assert_eq!(e["store"]["snapshot"], snapshot, "[{label}] {e}");
        assert_eq!(e.get("background").is_some(), snapshot == "fork", "[{label}] {e}");
        let (live, stored) = (e["store"]["live_bytes"].as_u64().unwrap(), e["store"]["stored_bytes"].as_u64().unwrap());
        assert!(stored <= live, "[{label}] {e}");
        // a forked writer builds the skeleton and the regions and reports them
        assert!(e["store"]["regions"].as_u64() > Some(0) && e["store"]["skeleton_bytes"].as_u64() > Some(0) && e["encode_s"].as_f64().is_some(), "[{label}] {e}");
    }
    assert_eq!(kinds[0], "full", "[{label}] the first checkpoint of a fresh run is full: {kinds:?}");
    match mode {
        Mode::Full => assert!(kinds.iter().all(|k| *k == "full"), "[{label}] {kinds:?}"),
        Mode::Incremental => assert!(kinds[1..].contains(&"incremental") && !kinds.contains(&"differential"), "[{label}] {kinds:?}"),
        Mode::Differential => assert!(kinds[1..].contains(&"differential") && !kinds.contains(&"incremental"), "[{label}] {kinds:?}"),
        Mode::Adaptive => {
            assert!(!kinds.contains(&"differential"), "[{label}] {kinds:?}");
            if p.adaptive_deltas {
                assert!(kinds[1..].contains(&"incremental"), "[{label}] adaptive wrote no incremental checkpoint: {kinds:?}");
            } else {
                assert!(kinds.iter().all(|k| *k == "full"), "[{label}] every delta exceeds DAO_DELTA_MAX here: {kinds:?}");
            }
        }
    }
    // Two crashes in a row: run 2 resumed checkpoint 1 and wrote checkpoint
    // 2; in incremental mode the engine continued the restored chain.
    let r2 = dir.join("crash-twice.run2.stats");
    let restarts = events(&r2, "restart");
    assert_eq!(restarts.len(), 1, "[{label}] {}", r2.display());
    assert_eq!(restarts[0]["storage"], "engine", "[{label}] the restart read the store: {}", restarts[0]);
    if mode == Mode::Incremental {
        let cp = events(&r2, "checkpoint");
        assert_eq!(cp.len(), 1, "[{label}] {}", r2.display());
        assert_eq!(cp[0]["store"]["kind"], "incremental", "[{label}] resumed chain: {}", cp[0]);
        assert_eq!(cp[0]["store"]["parent"], 1, "[{label}] resumed chain: {}", cp[0]);
    }
    // passing cases leave no checkpoints behind (disk)
    let _ = std::fs::remove_dir_all(&dir);
}

macro_rules! cells {
    ($($id:ident => ($prog:expr, $mode:expr, $flush:expr);)*) => {
        $(
            #[test]
            fn $id() { check_store(&$prog, $mode, $flush) }
        )*
    };
}

use Mode::*;

// Every (mode, flush) pair on 3-4 programs, every program in 3-4 pairs.
cells! {
    grid3d_incremental_sync        => (GRID3D, Incremental, "off");
    grid3d_differential_wait       => (GRID3D, Differential, "wait");
    grid3d_full_sync               => (GRID3D, Full, "off");
    hash_table_incremental_wait    => (HASH_TABLE, Incremental, "wait");
    hash_table_adaptive_sync       => (HASH_TABLE, Adaptive, "off");
    hash_table_full_wait           => (HASH_TABLE, Full, "wait");
    linked_list_differential_sync  => (LINKED_LIST, Differential, "off");
    linked_list_adaptive_wait      => (LINKED_LIST, Adaptive, "wait");
    linked_list_incremental_sync   => (LINKED_LIST, Incremental, "off");
    realloc_buffer_adaptive_wait   => (REALLOC_BUFFER, Adaptive, "wait");
    realloc_buffer_differential_sync => (REALLOC_BUFFER, Differential, "off");
    realloc_buffer_full_sync       => (REALLOC_BUFFER, Full, "off");
    allocatable_f_incremental_wait => (ALLOCATABLE, Incremental, "wait");
    allocatable_f_adaptive_sync    => (ALLOCATABLE, Adaptive, "off");
    allocatable_f_differential_wait => (ALLOCATABLE, Differential, "wait");
    allocatable_f_full_sync        => (ALLOCATABLE, Full, "off");
    stencil_omp_incremental_sync   => (STENCIL_OMP, Incremental, "off");
    stencil_omp_adaptive_wait      => (STENCIL_OMP, Adaptive, "wait");
    stencil_omp_differential_wait  => (STENCIL_OMP, Differential, "wait");
    stencil_omp_full_wait          => (STENCIL_OMP, Full, "wait");
    npb_mg_s_adaptive_sync         => (MG_S, Adaptive, "off");
    npb_mg_s_incremental_wait      => (MG_S, Incremental, "wait");
    npb_mg_s_differential_sync     => (MG_S, Differential, "off");
    npb_mg_s_full_wait             => (MG_S, Full, "wait");
    fp_accum_incremental_skip      => (FP_ACCUM, Incremental, "skip");
    // the engine's own staging copy and flush thread (DAO_SNAPSHOT=copy)
    grid3d_incremental_copy        => (GRID3D, Incremental, "copy-wait");
    stencil_omp_adaptive_copy      => (STENCIL_OMP, Adaptive, "copy-wait");
    npb_mg_s_differential_copy     => (MG_S, Differential, "copy-wait");
}

/// The older format (`DAO_STORE=file`, one dao-format file per checkpoint,
/// the default before the engine) keeps a smaller matrix: the scenarios on
/// four programs, one per DAO_ASYNC policy (auto, the default; off, where
/// checkpoints inside stencil3d_heap's region are written by the team,
/// DAO_WRITERS=team; wait), and every checkpoint line must be a single
/// file's.
fn check_file(p: &Prog, flush: &str) {
    let label = format!("{} store=file async={flush}", p.name);
    let dir = fresh_dir(&format!("store/{}-file-{flush}", p.name));
    let mut env: Vec<(&'static str, String)> = p.env.iter().map(|(k, v)| (*k, v.to_string())).collect();
    env.push(("DAO_STORE", "file".into()));
    env.push(("DAO_ASYNC", flush.into()));
    check_plan(&Plan {
        label: label.clone(),
        dir: dir.clone(),
        clean: binary(p, Variant::Clean),
        inst: binary(p, Variant::Instrumented),
        args: p.args,
        env,
        every: p.every,
        crash_after: p.crash_after,
        crash_in: p.crash_in,
        drop_lines: p.drop_lines,
        reference_lines: p.reference_lines.iter().map(|s| s.to_string()).collect(),
        exact_count: true,
    });
    let cps = events(&dir.join("uninterrupted.stats"), "checkpoint");
    assert!(cps.len() >= 2, "[{label}] {} checkpoints", cps.len());
    for e in &cps {
        assert!(e.get("storage").is_none() && e["file"].as_str().is_some_and(|f| f.ends_with(".dao")), "[{label}] a single file: {e}");
    }
    let restarts = events(&dir.join("crash-twice.run2.stats"), "restart");
    assert!(restarts.len() == 1 && restarts[0].get("storage").is_none(), "[{label}] the restart read a single file: {restarts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_grid3d_auto() {
    check_file(&GRID3D, "auto")
}

#[test]
fn file_stencil_omp_team_sync() {
    check_file(&STENCIL_OMP, "off")
}

#[test]
fn file_mg_s_wait() {
    check_file(&MG_S, "wait")
}

#[test]
fn file_allocatable_f_auto() {
    check_file(&ALLOCATABLE, "auto")
}

/// The table holds every (mode, flush) pair on at least three programs.
#[test]
fn every_mode_and_flush_is_covered() {
    let src = include_str!("store.rs");
    for m in ["Full", "Incremental", "Differential", "Adaptive"] {
        for f in ["\"off\"", "\"wait\""] {
            let n = src.lines().filter(|l| l.contains("=> (") && l.contains(&format!(", {m}, {f})"))).count();
            assert!(n >= 3, "({m}, {f}) runs on {n} programs");
        }
    }
}

// ---- damage, foreign checkpoints, finished runs, switching formats ----

use dao_tests::process::{self, compare_outputs, RunSpec};
use std::time::Duration;

/// One run of `exe` (grid3d-sized) with DAO_DIR=`ck`, DAO_EVERY=60 and `env`,
/// stdout appended to `out`.
fn run(exe: &std::path::Path, ck: &std::path::Path, out: &std::path::Path, stats: &std::path::Path, env: &[(&'static str, &str)]) -> process::Finished {
    let mut e: Vec<(&'static str, String)> = vec![
        ("DAO_DIR", ck.display().to_string()),
        ("DAO_EVERY", "60".into()),
        ("DAO_STATS", stats.display().to_string()),
    ];
    e.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    let spec = RunSpec { exe, args: &["80"], env: e, stdout_append: out.to_path_buf(), stderr: stats.with_extension("stderr") };
    process::run(&spec, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"))
}

fn reference(dir: &std::path::Path) -> PathBuf {
    let clean = binary(&GRID3D, Variant::Clean);
    let r = dir.join("clean.stdout");
    let _ = std::fs::remove_file(&r);
    let spec = RunSpec { exe: &clean, args: &["80"], env: vec![], stdout_append: r.clone(), stderr: dir.join("clean.stderr") };
    assert!(process::run(&spec, Duration::from_secs(60)).unwrap().status.success());
    r
}

const ENGINE_INCR: &[(&str, &str)] = &[("DAO_STORE", "engine"), ("DAO_INCREMENTAL", "incremental")];

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    ENGINE_INCR.iter().copied().chain(extra.iter().copied()).collect()
}

fn flip_middle_byte(p: &std::path::Path) {
    let mut b = std::fs::read(p).unwrap();
    let i = b.len() / 2;
    b[i] ^= 0x40;
    std::fs::write(p, b).unwrap();
}

/// A damaged file in the middle of an incremental chain: the restart names
/// every checkpoint it passes over (the damaged one and the deltas built
/// on it), resumes from the newest intact one, and the output is still the
/// clean run's; `dao inspect` shows the same. Damage to the base of every
/// chain is a clear error (exit 3), not a fresh start.
#[test]
fn damaged_chain_falls_back_and_says_so() {
    let dir = fresh_dir("store/damaged");
    let (ck, out, st) = (dir.join("ck"), dir.join("out"), dir.join("st"));
    let want = reference(&dir);
    let inst = binary(&GRID3D, Variant::Instrumented);
    let r = run(&inst, &ck, &out, &st.with_extension("1"), &with(&[("DAO_CRASH_AFTER", "6")]));
    assert!(r.killed_by(9), "{}", r.describe());
    flip_middle_byte(&ck.join("store.000004.dst"));
    let listing = std::process::Command::new(&tools().dao).arg("inspect").arg(&ck).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    assert!(listing.contains("a restart would resume from store.000003.dst"), "{listing}");
    assert_eq!(listing.matches("invalid").count(), 3, "4, 5 and 6: {listing}");

    let r = run(&inst, &ck, &out, &st.with_extension("2"), ENGINE_INCR);
    assert!(r.status.success(), "{}", r.describe());
    for q in [4, 5, 6] {
        assert!(
            r.stderr.contains(&format!("store.00000{q}.dst is not restorable")) && r.stderr.contains("falling back to"),
            "checkpoint {q} is reported: {}",
            r.stderr
        );
    }
    assert!(r.stderr.contains("dao: resuming from") && r.stderr.contains("store.000003.dst (checkpoint 3"), "{}", r.stderr);
    let restarts = events(&st.with_extension("2"), "restart");
    assert_eq!(restarts[0]["seq"], 3);
    assert_eq!(restarts[0]["skipped"], 3);
    compare_outputs(&want, &out).unwrap();

    // `dao inspect` of a store file rebuilds it from its chain
    let o = std::process::Command::new(&tools().dao).arg("inspect").arg(ck.join("store.000003.dst")).arg("--json").arg("--binary").arg(&inst).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["seq"], 3);
    assert_eq!(j["store"]["kind"], "incremental");
    assert_eq!(j["store"]["chain"], serde_json::json!(["store.000001.dst", "store.000002.dst", "store.000003.dst"]));
    assert_eq!(j["binary_check"]["matches"], true);
    assert!(!j["label_stack"].as_array().unwrap().is_empty() && j["heap"]["blocks_saved"].as_u64().unwrap() > 0, "{j}");
    let o = std::process::Command::new(&tools().dao).arg("inspect").arg(ck.join("store.000005.dst")).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("store.000004.dst"), "a broken chain names the link");

    // the base of every chain damaged: nothing to resume, which is an error
    let (ck2, out2) = (dir.join("ck2"), dir.join("out2"));
    let r = run(&inst, &ck2, &out2, &st.with_extension("3"), &with(&[("DAO_CRASH_AFTER", "3")]));
    assert!(r.killed_by(9), "{}", r.describe());
    flip_middle_byte(&ck2.join("store.000001.dst"));
    let r = run(&inst, &ck2, &out2, &st.with_extension("4"), ENGINE_INCR);
    assert_eq!(r.status.code(), Some(3), "{}", r.describe());
    assert!(r.stderr.contains("dao: error: no valid checkpoint") && r.stderr.contains("store.000001.dst"), "{}", r.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another executable's store checkpoint is refused with exit 3; a run that
/// finished is not resumed, and the next run numbers after it, starting a
/// new chain with a full checkpoint.
#[test]
fn foreign_and_finished_store_checkpoints_are_not_resumed() {
    let dir = fresh_dir("store/foreign");
    let (ck, out, st) = (dir.join("ck"), dir.join("out"), dir.join("st"));
    let inst = binary(&GRID3D, Variant::Instrumented);
    let other = binary(&LINKED_LIST, Variant::Instrumented);
    let r = run(&inst, &ck, &out, &st.with_extension("1"), &with(&[("DAO_CRASH_AFTER", "2")]));
    assert!(r.killed_by(9), "{}", r.describe());
    let r = run(&other, &ck, &dir.join("out-other"), &st.with_extension("2"), ENGINE_INCR);
    assert_eq!(r.status.code(), Some(3), "{}", r.describe());
    assert!(r.stderr.contains("was written by a different executable"), "{}", r.stderr);

    let (ck, out) = (dir.join("ck-fin"), dir.join("out-fin"));
    let r = run(&inst, &ck, &out, &st.with_extension("3"), ENGINE_INCR);
    assert!(r.status.success(), "{}", r.describe());
    let n = events(&st.with_extension("3"), "checkpoint").len() as u64;
    assert!(n >= 2);
    let r = run(&inst, &ck, &out, &st.with_extension("4"), ENGINE_INCR);
    assert!(r.status.success() && !r.stderr.contains("resuming"), "{}", r.describe());
    let cps = events(&st.with_extension("4"), "checkpoint");
    assert_eq!(cps[0]["seq"], n + 1, "numbering continues after the finished run");
    assert_eq!(cps[0]["store"]["kind"], "full", "a new chain: {}", cps[0]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// DAO_STORE chooses how checkpoints are written; a restart reads either
/// kind, whichever is newest (one numbering): single files -> engine ->
/// single files -> engine, killed after two checkpoints each time, ends
/// with the clean run's output.
#[test]
fn switching_between_single_files_and_the_store() {
    let dir = fresh_dir("store/switch");
    let (ck, out, st) = (dir.join("ck"), dir.join("out"), dir.join("st"));
    let want = reference(&dir);
    let inst = binary(&GRID3D, Variant::Instrumented);
    let file: &[(&str, &str)] = &[("DAO_STORE", "file"), ("DAO_CRASH_AFTER", "2")];
    let engine: &[(&str, &str)] = &[("DAO_STORE", "engine"), ("DAO_CRASH_AFTER", "2"), ("DAO_ASYNC", "wait")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let steps: [(Env, Option<&str>); 4] =
        [(file, None), (engine, Some("ckpt.000002.dao")), (file, Some("store.000004.dst")), (engine, Some("ckpt.000006.dao"))];
    for (i, (env, from)) in steps.iter().enumerate() {
        let s = st.with_extension(i.to_string());
        let r = run(&inst, &ck, &out, &s, env);
        assert!(r.killed_by(9), "step {i}: {}", r.describe());
        if let Some(f) = from {
            let rs = events(&s, "restart");
            assert!(rs.len() == 1 && rs[0]["file"].as_str().unwrap().ends_with(f), "step {i} resumes {f}: {rs:?}");
        }
    }
    let r = run(&inst, &ck, &out, &st.with_extension("9"), &[("DAO_STORE", "engine")]);
    assert!(r.status.success(), "{}", r.describe());
    assert!(events(&st.with_extension("9"), "restart")[0]["file"].as_str().unwrap().ends_with("store.000008.dst"));
    compare_outputs(&want, &out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
