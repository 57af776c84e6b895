//! NPB kill/restart tests: our NAS Parallel Benchmark ports (npb-ports/: C
//! CG, MG, FT, BT; Fortran CG, MG; C/Fortran + OpenMP, 8 markers each)
//! through the scenarios of `dao_tests::scenario` (clean vs instrumented,
//! crash after k, crash while writing k, random SIGKILL, two crashes in a
//! row), at OMP_NUM_THREADS = 1, 2 and 3 (class W rows at 2 or 3).
//!
//! Per (port, class): the clean build (`dao cc|fc --dao-no-pass -fopenmp
//! -O3`, markers compiled out) and the instrumented build (`dao cc|fc
//! -fopenmp -O3`, the ports' default optimisation) are built ONCE per test
//! process and shared by the three thread-count tests (`build_once`). The
//! sources and flags are those of the ports' Makefiles (`-DCLASS_X`,
//! `-I npb-ports/common`, `-lm`; Fortran: the two common modules first, then
//! the port's own files in the Makefile's order).
//!
//! Checks per thread count: the clean run prints
//! ` Verification    =               SUCCESSFUL` and ` Total threads   = <t>`;
//! every instrumented run (uninterrupted, and the output appended across
//! kills and restarts) equals the clean run's output at the same thread
//! count once the timing lines are left out; every restart says
//! `dao: resuming` and resumes from the expected checkpoint (DAO_STATS).
//! The ports are deterministic per thread count (npb-ports/README.md).
//!
//! Timing lines left out (npb-ports/README.md, ft/README.md, bt/README.md):
//! ` Time initialisation =`, ` Time in seconds =`, ` Mop/s total     =`,
//! ` Mop/s/thread    =`. Deliberately NOT the README's `^ (Time|Mop/s)`,
//! which would also drop BT's progress lines ` Time step   20`.
//!
//! Classes: S for every port; W too where the clean W run takes well under
//! a second here (C CG, MG, FT; Fortran CG, MG: 0.1-0.35 s; Fortran CG W
//! with its 12 checkpoints 0.35-0.45 s). Not W: BT (1.5-2 s clean, 200
//! steps) -- the file must stay under ~10 minutes on 2 cores. Fortran CG
//! keeps per-thread data in flang threadprivate common blocks (RNG state,
//! row ranges set in its first region, partial sums live across a marker:
//! npb-ports/README.md), so its rows check that the workers' copies come
//! back.
//!
//! DAO_EVERY gives 11-13 checkpoints per run; the candidate counts (markers
//! reached, counted with DAO_EVERY=1 and DAO_STATS; the same for 1, 2 and 3
//! threads) are noted per row. Crash points lie in that range (the harness
//! checks that the uninterrupted run writes enough checkpoints).
//!
//! Run one port: `cargo test --release -p dao-tests --test npb c_bt_s`.
//! Outputs: `tests/out/npb/<port>.<class>/{clean,inst}/prog` (the builds) and
//! `tests/out/npb/<port>.<class>-O3-t<threads>/` (the runs).
//! Replay a random kill: `DAO_TEST_SEED=<seed printed by the test>`.

use std::path::PathBuf;

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::{check_plan, Lang, Opt, Plan, Variant};

/// One port, as its Makefile builds it.
#[derive(Debug, Clone, Copy)]
struct Port {
    /// Binary name of the Makefile (`cg`, `cg_f`, ...).
    name: &'static str,
    lang: Lang,
    /// Directory under npb-ports/ (`cg`, `fortran/cg`, ...).
    dir: &'static str,
    /// Sources relative to npb-ports/, in compilation order.
    sources: &'static [&'static str],
}

const CG: Port = Port { name: "cg", lang: Lang::C, dir: "cg", sources: &["cg/cg.c", "common/npb_common.c"] };
const MG: Port = Port { name: "mg", lang: Lang::C, dir: "mg", sources: &["mg/mg.c", "common/npb_common.c"] };
const FT: Port = Port { name: "ft", lang: Lang::C, dir: "ft", sources: &["ft/ft.c"] };
const BT: Port = Port { name: "bt", lang: Lang::C, dir: "bt", sources: &["bt/bt.c"] };
const CG_F: Port = Port {
    name: "cg_f",
    lang: Lang::Fortran,
    dir: "fortran/cg",
    sources: &["common/dao_markers.F90", "common/npb_random.F90", "fortran/cg/cg_work.F90", "fortran/cg/cg.F90"],
};
const MG_F: Port = Port {
    name: "mg_f",
    lang: Lang::Fortran,
    dir: "fortran/mg",
    sources: &["common/dao_markers.F90", "common/npb_random.F90", "fortran/mg/mg.F90"],
};

/// One row: a port at a class, with DAO_EVERY and the crash points.
#[derive(Debug, Clone, Copy)]
struct Row {
    port: Port,
    class: char,
    every: u64,
    crash_after: &'static [u64],
    crash_in: &'static [u64],
}

const OPT: Opt = Opt::O3;
const THREADS: [u32; 3] = [1, 2, 3];
/// Timing lines (see the module comment).
const TIMING: &[&str] = &[" Time initialisation", " Time in seconds", " Mop/s"];

fn npb_dir() -> PathBuf {
    tools().repo.join("npb-ports")
}

/// The clean or instrumented binary of `row`, built once per test process.
fn binary(row: &Row, variant: Variant) -> PathBuf {
    let tag = format!("{}.{}", row.port.name, row.class);
    let vname = if variant == Variant::Clean { "clean" } else { "inst" };
    let key = format!("{tag}-{}-{vname}", OPT.name());
    build_once(&key, || {
        let npb = npb_dir();
        let sources: Vec<PathBuf> = row.port.sources.iter().map(|s| npb.join(s)).collect();
        let flags = vec![
            "-fopenmp".to_string(),
            format!("-DCLASS_{}", row.class),
            format!("-I{}", npb.join("common").display()),
        ];
        let dir = tools().out.join("npb").join(&tag);
        build_sources(row.port.lang, &sources, &flags, OPT, variant, &dir)
    })
    .unwrap_or_else(|e| panic!("{vname} build of {tag}: {e}"))
}

fn check_npb(row: &Row, threads: u32) {
    let clean = binary(row, Variant::Clean);
    let inst = binary(row, Variant::Instrumented);
    let label = format!("{}.{} {} t={threads}", row.port.name, row.class, OPT.name());
    let dir = fresh_dir(&format!("npb/{}.{}-{}-t{threads}", row.port.name, row.class, OPT.name()));
    check_plan(&Plan {
        label,
        dir,
        clean,
        inst,
        args: &[],
        env: vec![("OMP_NUM_THREADS", threads.to_string())],
        every: row.every,
        crash_after: row.crash_after,
        crash_in: row.crash_in,
        drop_lines: TIMING,
        reference_lines: vec![
            " Verification    =               SUCCESSFUL".to_string(),
            format!(" Total threads   = {threads:>24}"),
        ],
        exact_count: true,
    });
}

/// A test per thread count named in the row (`t1`, `t2`, `t3`: THREADS[0..3]).
macro_rules! thread_test {
    ($row:expr, t1) => { #[test] fn t1() { check_npb(&$row, THREADS[0]) } };
    ($row:expr, t2) => { #[test] fn t2() { check_npb(&$row, THREADS[1]) } };
    ($row:expr, t3) => { #[test] fn t3() { check_npb(&$row, THREADS[2]) } };
}

macro_rules! rows {
    ($($id:ident [$($t:ident)*] => $row:expr;)*) => {
        /// The table, for the coverage test below.
        const ROWS: &[Row] = &[$($row),*];
        $(
            mod $id {
                use super::*;
                $(thread_test!($row, $t);)*
            }
        )*
    };
}

const A: &[u64] = &[1, 4, 7, 10];
const B: &[u64] = &[2, 7];

rows! {
    // candidates reached (DAO_EVERY=1) in a comment per row; class S at 1,
    // 2 and 3 threads, class W (the same code, bigger) at 2 or 3, the
    // ports alternating so that both counts meet C and Fortran
    // (representative matrix: the W rows at 1 thread took 4 of the suite's
    // minutes and repeated the S rows' single-thread path; W at both 2 and
    // 3 on every port took 4 more, and CI went over its 50 minutes)
    c_cg_s [t1 t2 t3] => Row { port: CG,   class: 'S', every: 36, crash_after: A, crash_in: B }; // 436
    c_cg_w [t3] => Row { port: CG,   class: 'W', every: 36, crash_after: A, crash_in: B }; // 436
    c_mg_s [t1 t2 t3] => Row { port: MG,   class: 'S', every: 4,  crash_after: A, crash_in: B }; // 48
    c_mg_w [t2] => Row { port: MG,   class: 'W', every: 5,  crash_after: A, crash_in: B }; // 68
    c_ft_s [t1 t2 t3] => Row { port: FT,   class: 'S', every: 2,  crash_after: A, crash_in: B }; // 23
    c_ft_w [t3] => Row { port: FT,   class: 'W', every: 2,  crash_after: A, crash_in: B }; // 23
    c_bt_s [t1 t2 t3] => Row { port: BT,   class: 'S', every: 6,  crash_after: A, crash_in: B }; // 70
    f_cg_s [t1 t2 t3] => Row { port: CG_F, class: 'S', every: 36, crash_after: A, crash_in: B }; // 436
    f_cg_w [t2] => Row { port: CG_F, class: 'W', every: 36, crash_after: A, crash_in: B }; // 436
    f_mg_s [t1 t2 t3] => Row { port: MG_F, class: 'S', every: 4,  crash_after: A, crash_in: B }; // 48
    f_mg_w [t3] => Row { port: MG_F, class: 'W', every: 5,  crash_after: A, crash_in: B }; // 68
}

/// Every port in npb-ports/ (a directory with a Makefile; Fortran ones under
/// npb-ports/fortran/) has a class S row, so a new port cannot silently go
/// untested.
#[test]
fn table_covers_every_port() {
    let npb = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("npb-ports");
    let mut ports = vec![];
    for (sub, prefix) in [("", ""), ("fortran", "fortran/")] {
        for e in std::fs::read_dir(npb.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.join("Makefile").is_file() {
                ports.push(format!("{prefix}{}", p.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(ports.len() >= 6, "expected at least the 6 ports, found {ports:?}");
    let missing: Vec<&String> = ports.iter().filter(|d| !ROWS.iter().any(|r| r.port.dir == d.as_str() && r.class == 'S')).collect();
    assert!(missing.is_empty(), "ports without a class S row in the table: {missing:?}");
    for r in ROWS {
        for s in r.port.sources {
            assert!(npb.join(s).is_file(), "{}: source {s} not found", r.port.name);
        }
        assert_eq!(r.port.lang == Lang::Fortran, r.port.dir.starts_with("fortran/"), "{}", r.port.name);
    }
}
