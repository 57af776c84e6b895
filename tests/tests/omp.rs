//! OpenMP checkpoint/restart tests: every program of test-programs/omp/ at
//! -O0 and -O2 and with OMP_NUM_THREADS = 1, 2, 3, 4, through the scenarios of
//! `dao_tests::scenario` (crash after k checkpoints, crash while writing one,
//! random SIGKILLs, two crashes in a row). Most checkpoints are taken inside
//! parallel regions, with every thread of the team at its own position.
//!
//! Invariant: the output appended across crashes and restarts equals the
//! clean (uninstrumented) run's at the same thread count. Every program is
//! deterministic for a given thread count (integer reductions, fixed
//! per-element results), so the comparison is exact.
//!
//! `master` is how often thread 0 reaches a marker at `args` with one thread
//! (test-programs/omp/README.md); with t threads about master / t (except the
//! programs whose markers are in serial code). DAO_EVERY is chosen for about
//! a dozen checkpoints per run.
//!
//! The protocol is explicit: each program's nonblocking cases (`o0_t1`..
//! `o2_t4`: all eight for the nb_figure8 (C) and nb_stress programs, four for the others, alternating between programs so that each
//! runs at -O0 and -O2 and at 1-4 threads, one for the `between` rows; see
//! `program_cases!`) run with `DAO_PROTOCOL=nonblocking` (each thread saves
//! its private state at its next marker and goes on; it waits only before
//! its next shared write until the master has saved the shared state); the
//! 14 rows marked `blocking` have two more, `blocking_o0_t3` and
//! `blocking_o2_t4`, with `DAO_PROTOCOL=blocking` (the master stops the
//! whole team, saves, releases; `blocking_cases!`). Each case then checks that the protocol
//! it asked for is the one that ran (`assert_protocol`: the `protocol` of
//! every in-region checkpoint in DAO_STATS, no fallback warning, and at
//! least one in-region checkpoint unless the program's markers are all
//! between regions). The `nb_*`
//! programs put shared writes right after markers, imbalance the threads
//! and let them leave loops early; `nonblocking_stress_thousands_of_rounds`
//! checkpoints at every master candidate of nb_stress.
//! Run one program: `cargo test --release -p dao-tests --test omp jacobi2d`;
//! the new programs: `... --test omp nb_`.

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::fresh_dir;
use dao_tests::{check_plan, Lang, Opt, Plan, Variant};

struct OmpCase {
    name: &'static str,
    lang: Lang,
    args: &'static [&'static str],
    /// Candidates reached by thread 0 with one thread.
    master: u64,
    /// Markers only in serial code (the count does not shrink with threads).
    serial: bool,
}

/// Where a program's builds go: under this checkout's tests/out (a shared
/// /tmp directory let two checkouts testing at once run each other's
/// binaries).
fn build_dir(name: &str) -> std::path::PathBuf {
    dao_tests::paths::tools().out.join("omp-build").join(name)
}

/// The team checkpoint protocol a case runs (`DAO_PROTOCOL`).
#[derive(Clone, Copy)]
enum Protocol {
    Nonblocking,
    Blocking,
}

impl Protocol {
    fn name(self) -> &'static str {
        match self {
            Protocol::Nonblocking => "nonblocking",
            Protocol::Blocking => "blocking",
        }
    }
}

fn check_omp(c: &OmpCase, opt: Opt, threads: u32, protocol: Protocol) {
    let sub = match c.lang {
        Lang::C => "c",
        Lang::Fortran => "fortran",
    };
    let ext = match c.lang {
        Lang::C => "c",
        Lang::Fortran => "f90",
    };
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join(format!("test-programs/omp/{sub}/{}.{ext}", c.name));
    // C and Fortran programs may share a name (parallel_if): keep their
    // builds, build-cache keys and output directories apart
    let tag = match c.lang {
        Lang::C => c.name.to_string(),
        Lang::Fortran => format!("f-{}", c.name),
    };
    let bdir = build_dir(&format!("{tag}-{}", opt.name()));
    let flags = vec!["-fopenmp".to_string()];
    let clean = build_once(&format!("{tag}-{}-clean", opt.name()), || build_sources(c.lang, &[src.clone()], &flags, opt, Variant::Clean, &bdir))
        .unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_once(&format!("{tag}-{}-inst", opt.name()), || build_sources(c.lang, &[src.clone()], &flags, opt, Variant::Instrumented, &bdir))
        .unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let per_master = if c.serial { c.master } else { c.master / threads as u64 };
    let every = (per_master / 12).max(1);
    // the two protocols share the builds, not the run outputs
    let dir = fresh_dir(&format!("omp-{tag}-{}-t{threads}-{}", opt.name(), protocol.name()));
    check_plan(&Plan {
        label: format!("{tag} {} t={threads} {}", opt.name(), protocol.name()),
        dir: dir.clone(),
        clean,
        inst,
        args: c.args,
        env: vec![
            ("OMP_NUM_THREADS", threads.to_string()),
            ("DAO_OMP_TIMEOUT", "20".into()),
            ("DAO_PROTOCOL", protocol.name().into()),
        ],
        every,
        // one crash point (plus crash-in, the random kills and the double
        // crash, whose second run resumes from checkpoint 1: a crash after
        // checkpoint 1 as well added nothing but two runs a case): about
        // 180 cases, the suite's largest binary (CI time)
        crash_after: &[6],
        crash_in: &[3],
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
    let label = format!("{tag} {} t={threads} {}", opt.name(), protocol.name());
    let in_region = !MARKERS_ONLY_BETWEEN_REGIONS.contains(&c.name) && !(threads == 1 && STRIDE_ON_SERIAL_MARKER_AT_1_THREAD.contains(&c.name));
    assert_protocol(&label, &dir, protocol, in_region);
    // 300 cases of about ten runs each: keep the outputs (checkpoints
    // included) only of a failing case (check_plan panics before this line)
    let _ = std::fs::remove_dir_all(&dir);
}

/// Programs whose checkpoint stride at 1 thread is a multiple of their
/// markers per round, so every checkpoint of the schedule lands on the
/// serial marker after the region (parallel_if: 41 markers a round, stride
/// 2460 / 12 = 205 = 5 x 41). Their in-region checkpoints are required at
/// 2 to 4 threads. (A prime stride avoids this one alignment but meets
/// another at 3 threads: every third round is serialised, a 69-marker
/// cycle, and stride 71 then drifts through the serialised round only,
/// where a checkpoint due in the region waits for the serial marker.)
const STRIDE_ON_SERIAL_MARKER_AT_1_THREAD: &[&str] = &["parallel_if"];

/// Programs whose markers are all in serial code between regions: their
/// checkpoints are serial ones, no protocol round runs.
const MARKERS_ONLY_BETWEEN_REGIONS: &[&str] = &["serial_between_regions", "sections_cond", "sections_bt3", "padded_extents", "line_local", "plane_scratch", "unsigned_bounds", "captured_extents", "unrolled_copy", "boundary_planes", "far_face", "row_copy", "blocked_rows", "vector_rows", "host_teams", "heap_scratch", "heap_flat"];

/// The protocol that actually ran, from what the runtime reports: every
/// checkpoint taken inside a parallel region has a DAO_STATS `checkpoint`
/// event with `"protocol":"nonblocking"|"blocking"` (runtime image.rs),
/// and a run that was asked for `nonblocking` but falls back to blocking
/// (a module compiled without guards, runtime startup.rs `choose_protocol`)
/// says so on stderr. Checks every `*.stats` and `*.stderr` file the runs of
/// `check_plan` left in `dir` (the uninterrupted run and every crashed and
/// resumed one): no fallback warning, every in-region checkpoint of the
/// wanted protocol, and -- when `in_region` (the program has markers inside
/// regions) -- at least one such checkpoint, so a test named nonblocking
/// cannot pass on blocking rounds or on serial checkpoints alone.
fn assert_protocol(label: &str, dir: &std::path::Path, protocol: Protocol, in_region: bool) {
    let mut rounds = 0usize;
    let mut stats_files = 0usize;
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("[{label}] {}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".stderr") {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            assert!(
                !text.contains("use the blocking protocol"),
                "[{label}] the runtime fell back to the blocking protocol ({}):\n{text}",
                p.display()
            );
        } else if name.ends_with(".stats") {
            stats_files += 1;
            for line in std::fs::read_to_string(&p).unwrap_or_default().lines() {
                // a killed run may leave a torn last line
                let Ok(ev) = serde_json::from_str::<serde_json::Value>(line) else { continue };
                if ev["event"] != "checkpoint" {
                    continue;
                }
                if let Some(got) = ev.get("protocol") {
                    assert!(
                        got == protocol.name(),
                        "[{label}] a checkpoint inside a region ran the {got} protocol, the case asks for {} ({})",
                        protocol.name(),
                        p.display()
                    );
                    rounds += 1;
                }
            }
        }
    }
    assert!(stats_files > 0, "[{label}] no DAO_STATS file in {}", dir.display());
    if in_region {
        assert!(rounds > 0, "[{label}] no checkpoint was taken inside a parallel region (DAO_STATS in {})", dir.display());
    }
}

/// The cases of one program. `all`: the eight nonblocking cases; `a` and
/// `b`: three of them each, so that every program runs at -O0 and -O2 and
/// at 2 and 3 threads, set `a` at 1 thread (-O0) too and set `b` at 4
/// (-O2); the two combinations neither set has (-O0 at 4 threads, -O2 at
/// 1) run on the `all` rows (nb_figure8, nb_stress). The full matrix on every program took 35
/// of the suite's minutes, four cases per program (every thread count on
/// each) about 7 of CI's. Rows marked `between` (serial checkpoints only)
/// get one of them; rows marked `blocking` get the two blocking cases too
/// (`blocking_cases!`).
macro_rules! program_cases {
    ($case:expr, all) => {
        #[test] fn o0_t1() { check_omp(&$case, Opt::O0, 1, Protocol::Nonblocking) }
        #[test] fn o0_t2() { check_omp(&$case, Opt::O0, 2, Protocol::Nonblocking) }
        #[test] fn o0_t3() { check_omp(&$case, Opt::O0, 3, Protocol::Nonblocking) }
        #[test] fn o0_t4() { check_omp(&$case, Opt::O0, 4, Protocol::Nonblocking) }
        #[test] fn o2_t1() { check_omp(&$case, Opt::O2, 1, Protocol::Nonblocking) }
        #[test] fn o2_t2() { check_omp(&$case, Opt::O2, 2, Protocol::Nonblocking) }
        #[test] fn o2_t3() { check_omp(&$case, Opt::O2, 3, Protocol::Nonblocking) }
        #[test] fn o2_t4() { check_omp(&$case, Opt::O2, 4, Protocol::Nonblocking) }
    };
    ($case:expr, a) => {
        #[test] fn o0_t1() { check_omp(&$case, Opt::O0, 1, Protocol::Nonblocking) }
        #[test] fn o0_t3() { check_omp(&$case, Opt::O0, 3, Protocol::Nonblocking) }
        #[test] fn o2_t2() { check_omp(&$case, Opt::O2, 2, Protocol::Nonblocking) }
    };
    ($case:expr, b) => {
        #[test] fn o0_t2() { check_omp(&$case, Opt::O0, 2, Protocol::Nonblocking) }
        #[test] fn o2_t3() { check_omp(&$case, Opt::O2, 3, Protocol::Nonblocking) }
        #[test] fn o2_t4() { check_omp(&$case, Opt::O2, 4, Protocol::Nonblocking) }
    };
    // a row marked `between`: its checkpoints are all serial ones, so the
    // thread count only changes the regions between the markers; one case,
    // -O0 at 2 threads for set a, -O2 at 3 for set b (the other rows cover
    // 1 and 4; these programs' section kills are checked at -O0 to -O3,
    // with poisoned restarts, in tests/shapes.rs)
    ($case:expr, a, between) => {
        #[test] fn o0_t2() { check_omp(&$case, Opt::O0, 2, Protocol::Nonblocking) }
    };
    ($case:expr, b, between) => {
        #[test] fn o2_t3() { check_omp(&$case, Opt::O2, 3, Protocol::Nonblocking) }
    };
    // a row marked `blocking`: its nonblocking cases as usual (the blocking
    // ones come from `blocking_cases!`)
    ($case:expr, $set:ident, blocking) => {
        program_cases!($case, $set);
    };
}

/// The two blocking cases, for the rows marked `blocking` only: the
/// blocking protocol (the master stops the team, saves, releases) is the
/// simpler one, with no per-thread state to race on; 14 programs that
/// between them have every construct of the table (reductions,
/// threadprivate in C and Fortran, critical/atomic, heap blocks, nowait,
/// single/copyprivate, the nb_* programs, flang's common blocks) run it at
/// -O0 with 3 threads and -O2 with 4 (on all 36 in-region programs they
/// took about 5 of CI's minutes and found nothing the 14 do not cover).
/// Never for a row marked `between` (its program's markers are all
/// between regions, MARKERS_ONLY_BETWEEN_REGIONS: every checkpoint is a
/// serial one, no protocol round runs).
macro_rules! blocking_cases {
    ($case:expr, blocking) => {
        #[test] fn blocking_o0_t3() { check_omp(&$case, Opt::O0, 3, Protocol::Blocking) }
        #[test] fn blocking_o2_t4() { check_omp(&$case, Opt::O2, 4, Protocol::Blocking) }
    };
    ($case:expr $(, $mark:ident)?) => {};
}

macro_rules! cases {
    ($($id:ident [$set:ident $(, $mark:ident)?] => $case:expr;)*) => {
        const CASES: &[OmpCase] = &[$($case),*];
        /// The rows marked `between` (checked against MARKERS_ONLY_BETWEEN_REGIONS).
        const BETWEEN_ROWS: &[Option<&str>] = &[$($(cases!(@name $mark $case),)?)*];
        $(
            mod $id {
                use super::*;
                program_cases!($case, $set $(, $mark)?);
                blocking_cases!($case $(, $mark)?);
            }
        )*
    };
    (@name between $case:expr) => { Some($case.name) };
    (@name blocking $case:expr) => { None };
}

cases! {
    reduction_sum [a, blocking]      => OmpCase { name: "reduction_sum",          lang: Lang::C, args: &["40"],  master: 19600, serial: false };
    first_last_private [b] => OmpCase { name: "first_last_private",     lang: Lang::C, args: &["80"],  master: 16560, serial: false };
    threadprivate_copyin [a, blocking] => OmpCase { name: "threadprivate_copyin",   lang: Lang::C, args: &["120"], master: 11880, serial: false };
    critical_atomic [b, blocking]    => OmpCase { name: "critical_atomic",        lang: Lang::C, args: &["30"],  master: 2970,  serial: false };
    orphaned_for [a]       => OmpCase { name: "orphaned_for",           lang: Lang::C, args: &["90"],  master: 4434,  serial: false };
    serial_between_regions [b, between] => OmpCase { name: "serial_between_regions", lang: Lang::C, args: &["400"], master: 2400,  serial: true };
    markers_in_and_between [a] => OmpCase { name: "markers_in_and_between", lang: Lang::C, args: &["150"], master: 9450,  serial: false };
    uneven_static [b]      => OmpCase { name: "uneven_static",          lang: Lang::C, args: &["30"],  master: 7860,  serial: false };
    jacobi2d [b, blocking]           => OmpCase { name: "jacobi2d",               lang: Lang::C, args: &["280"], master: 1680,  serial: false };
    stencil3d_heap [a]     => OmpCase { name: "stencil3d_heap",         lang: Lang::C, args: &["30"],  master: 4110,  serial: false };
    heap_blocks [b, blocking]        => OmpCase { name: "heap_blocks",            lang: Lang::C, args: &["140"], master: 13860, serial: false };
    solver_timestep [a]    => OmpCase { name: "solver_timestep",        lang: Lang::C, args: &["200"], master: 270,   serial: true };
    private_arrays [b]     => OmpCase { name: "private_arrays",         lang: Lang::C, args: &["50"],  master: 11750, serial: false };
    reduction_maxmin [a]   => OmpCase { name: "reduction_maxmin",       lang: Lang::C, args: &["20"],  master: 3940,  serial: false };
    static_chunk [b]       => OmpCase { name: "static_chunk",           lang: Lang::C, args: &["65"],  master: 17015, serial: false };
    deep_calls_region [a]  => OmpCase { name: "deep_calls_region",      lang: Lang::C, args: &["20"],  master: 2800,  serial: false };
    nowait_loops [b, blocking]       => OmpCase { name: "nowait_loops",           lang: Lang::C, args: &["65"],  master: 12805, serial: false };
    parallel_if [a]        => OmpCase { name: "parallel_if",            lang: Lang::C, args: &["60"],  master: 2460,  serial: false };
    single_copyprivate [b, blocking] => OmpCase { name: "single_copyprivate",     lang: Lang::C, args: &["100"], master: 11900, serial: false };
    f_parallel_do_reduction [a] => OmpCase { name: "parallel_do_reduction", lang: Lang::Fortran, args: &["45"],  master: 17640, serial: false };
    f_timestep_barrier [b, blocking] => OmpCase { name: "timestep_barrier",       lang: Lang::Fortran, args: &["650"], master: 4550,  serial: false };
    f_private_clauses [a]  => OmpCase { name: "private_clauses",        lang: Lang::Fortran, args: &["160"], master: 17440, serial: false };
    f_orphaned_do [b]      => OmpCase { name: "orphaned_do",            lang: Lang::Fortran, args: &["180"], master: 6498,  serial: false };
    f_parallel_if [a]      => OmpCase { name: "parallel_if",            lang: Lang::Fortran, args: &["60"],  master: 2460,  serial: false };
    f_num_threads_clause [b] => OmpCase { name: "num_threads_clause",     lang: Lang::Fortran, args: &["30"],  master: 7890,  serial: false };
    nb_figure8 [all, blocking]       => OmpCase { name: "nb_figure8",             lang: Lang::C, args: &["150"], master: 28950, serial: false };
    nb_imbalance [a]       => OmpCase { name: "nb_imbalance",           lang: Lang::C, args: &["60"],  master: 230460, serial: false };
    nb_early_exit [b, blocking]      => OmpCase { name: "nb_early_exit",          lang: Lang::C, args: &["30"],  master: 75883, serial: false };
    nb_stress [all, blocking]        => OmpCase { name: "nb_stress",              lang: Lang::C, args: &["400"], master: 47152, serial: false };
    f_nb_figure8 [b, blocking]     => OmpCase { name: "nb_figure8",             lang: Lang::Fortran, args: &["150"], master: 28950, serial: false };
    f_threadprivate_copyin [a, blocking] => OmpCase { name: "threadprivate_copyin",   lang: Lang::Fortran, args: &["100"], master: 5100,  serial: false };
    f_tp_common_solver [b, blocking] => OmpCase { name: "tp_common_solver",       lang: Lang::Fortran, args: &["250"], master: 26250, serial: false };
    f_tp_random_state [a]  => OmpCase { name: "tp_random_state",        lang: Lang::Fortran, args: &["75"],  master: 4950,  serial: false };
    f_tp_module_scratch [b] => OmpCase { name: "tp_module_scratch",      lang: Lang::Fortran, args: &["310"], master: 8061,  serial: false };
    // two markers per step, both reached by thread 0 at any team size
    // (serial: the count does not shrink); 66 steps: DAO_EVERY = 11, odd,
    // so the checkpoints alternate between the top-of-loop marker (between
    // regions) and the one in the region
    sections_dead [a]      => OmpCase { name: "sections_dead",          lang: Lang::C, args: &["66"],  master: 132,   serial: true };
    f_sections_dead [b]    => OmpCase { name: "sections_dead",          lang: Lang::Fortran, args: &["66"],  master: 132,   serial: true };
    sections_cond [a, between]      => OmpCase { name: "sections_cond",          lang: Lang::C, args: &["120"], master: 120,   serial: true };
    sections_cond_short [b, between] => OmpCase { name: "sections_cond",          lang: Lang::C, args: &["120", "63", "511"], master: 120, serial: true };
    sections_bt3 [b, between]     => OmpCase { name: "sections_bt3",           lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    sections_bt3_short [a, between] => OmpCase { name: "sections_bt3",           lang: Lang::C, args: &["40", "17"], master: 40, serial: true };
    padded_extents [b, between]     => OmpCase { name: "padded_extents",         lang: Lang::C, args: &["100"], master: 100,   serial: true };
    line_local [a, between]         => OmpCase { name: "line_local",             lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    plane_scratch [b, between]      => OmpCase { name: "plane_scratch",          lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    unsigned_bounds [a, between]    => OmpCase { name: "unsigned_bounds",        lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    captured_extents [b, between]   => OmpCase { name: "captured_extents",       lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    unrolled_copy [a, between]      => OmpCase { name: "unrolled_copy",          lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    boundary_planes [b, between]    => OmpCase { name: "boundary_planes",        lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    far_face [a, between]           => OmpCase { name: "far_face",               lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    row_copy [b, between]           => OmpCase { name: "row_copy",               lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    blocked_rows [a, between]       => OmpCase { name: "blocked_rows",           lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    vector_rows [b, between]        => OmpCase { name: "vector_rows",            lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    host_teams [a, between]         => OmpCase { name: "host_teams",             lang: Lang::C, args: &["40"],  master: 40,    serial: true };
    // heap objects (issue #33): blocks main allocates once, scratch ones left out
    heap_scratch [b, between]       => OmpCase { name: "heap_scratch",           lang: Lang::C, args: &["40", "4096"], master: 40, serial: true };
    heap_flat [a, between]          => OmpCase { name: "heap_flat",              lang: Lang::C, args: &["40", "64", "48"], master: 40, serial: true };
    // many small blocks, leaks, malloc/free by every thread during checkpoints in the region
    heap_churn [b]                  => OmpCase { name: "heap_churn",             lang: Lang::C, args: &["40"], master: 2600, serial: false };
    f_host_teams [b, between]       => OmpCase { name: "host_teams",             lang: Lang::Fortran, args: &["40"],  master: 40,    serial: true };
    // a VLA private to each thread and one at main's scope: moved to the heap (to_heap.rs)
    vla_private [a]                 => OmpCase { name: "vla_private",            lang: Lang::C, args: &["40", "400"], master: 2560, serial: false };
    // markers in single, master and masked blocks: thread 0 reaches each
    // at any team size (the single is run by the master)
    master_single_markers [b] => OmpCase { name: "master_single_markers",  lang: Lang::C, args: &["100"], master: 300,   serial: true };
    f_single_marker [a]    => OmpCase { name: "single_marker",          lang: Lang::Fortran, args: &["300"], master: 300, serial: true };
}

/// Every program in test-programs/omp/{c,fortran} has a row.
#[test]
fn table_covers_every_program() {
    let missing = dao_tests::build::programs_without_row("omp", |stem, lang| CASES.iter().any(|c| c.name == stem && c.lang == lang));
    assert!(missing.is_empty(), "programs without a row in tests/tests/omp.rs: {missing:?}");
}

/// A row without blocking cases is a program whose markers are all between
/// regions, and every such program's rows are marked so.
#[test]
fn between_rows_are_the_serial_marker_programs() {
    for c in CASES.iter().filter(|c| c.lang == Lang::C) {
        assert_eq!(BETWEEN_ROWS.contains(&Some(c.name)), MARKERS_ONLY_BETWEEN_REGIONS.contains(&c.name), "{}: `between` mark and MARKERS_ONLY_BETWEEN_REGIONS disagree", c.name);
    }
}

/// Distributed saving (DAO_WRITERS=team, the default of synchronous
/// single-file checkpoints; the cases above write in the background,
/// DAO_ASYNC's default, through the storage engine, DAO_STORE's default)
/// against master-only saving (DAO_WRITERS=master), both with
/// DAO_STORE=file DAO_ASYNC=off: a region with a
/// 7.5 MiB shared heap grid, 4 threads. With `team`, the workers stopped at
/// a candidate write part of the file (the stats' `writers` counts the
/// threads that wrote at least one 1 MiB unit; a worker may arrive after
/// the master has claimed every unit, so it is >= 2 for some checkpoints,
/// not necessarily all); with `master`, exactly 1. Both restart correctly
/// (the scenarios of check_plan, crash while writing included).
#[test]
fn distributed_and_master_only_saving() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/omp/c/stencil3d_heap.c");
    let bdir = build_dir("stencil3d_heap-O2");
    let flags = vec!["-fopenmp".to_string()];
    let clean = build_once("stencil3d_heap-O2-clean", || build_sources(Lang::C, &[src.clone()], &flags, Opt::O2, Variant::Clean, &bdir)).unwrap();
    let inst = build_once("stencil3d_heap-O2-inst", || build_sources(Lang::C, &[src.clone()], &flags, Opt::O2, Variant::Instrumented, &bdir)).unwrap();
    for (mode, team) in [("team", true), ("master", false)] {
        let dir = fresh_dir(&format!("omp-writers-{mode}"));
        let stats = dir.join("stats.jsonl");
        let st = std::process::Command::new(&inst)
            .arg("65")
            .env("OMP_NUM_THREADS", "4")
            .env("DAO_DIR", dir.join("ck"))
            .env("DAO_EVERY", "200")
            .env("DAO_WRITERS", mode)
            .env("DAO_STORE", "file")
            .env("DAO_ASYNC", "off")
            .env("DAO_STATS", &stats)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "{mode}: {st}");
        let events: Vec<serde_json::Value> = std::fs::read_to_string(&stats)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|e: &serde_json::Value| e["event"] == "checkpoint" && e["threads"] == 4)
            .collect();
        assert!(events.len() >= 5, "{mode}: only {} checkpoints inside the region", events.len());
        let writers: Vec<u64> = events.iter().map(|e| e["writers"].as_u64().unwrap()).collect();
        if team {
            assert!(writers.iter().any(|&w| w >= 2), "team: no checkpoint was written by more than the master: {writers:?}");
            assert!(writers.iter().all(|&w| (1..=4).contains(&w)), "{writers:?}");
        } else {
            assert!(writers.iter().all(|&w| w == 1), "master: {writers:?}");
        }
        check_plan(&Plan {
            label: format!("stencil3d_heap O2 t=4 writers={mode}"),
            dir: dir.clone(),
            clean: clean.clone(),
            inst: inst.clone(),
            args: &["65"],
            env: vec![("OMP_NUM_THREADS", "4".into()), ("DAO_OMP_TIMEOUT", "20".into()), ("DAO_WRITERS", mode.into()), ("DAO_STORE", "file".into()), ("DAO_ASYNC", "off".into())],
            every: 200,
            crash_after: &[1, 4],
            crash_in: &[2, 5],
            drop_lines: &[],
            reference_lines: vec![],
            exact_count: true,
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A profiling run (DAO_PROFILE) of a program with candidates inside a
/// parallel region gathers the team at each instance: the instances in the
/// region list every worker with its private bytes and where it stopped;
/// `dao place` reads the profile.
#[test]
fn profile_lists_the_workers_private_bytes() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/omp/c/stencil3d_heap.c");
    let bdir = build_dir("stencil3d_heap-O2");
    let flags = vec!["-fopenmp".to_string()];
    let inst = build_once("stencil3d_heap-O2-inst", || build_sources(Lang::C, &[src.clone()], &flags, Opt::O2, Variant::Instrumented, &bdir)).unwrap();
    let dir = fresh_dir("omp-profile-workers");
    let prof = dir.join("profile.json");
    let st = std::process::Command::new(&inst)
        .arg("30")
        .env("OMP_NUM_THREADS", "3")
        .env("DAO_PROFILE", &prof)
        .env_remove("DAO_DIR")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "{st}");
    let p: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&prof).unwrap()).unwrap();
    assert_eq!(p["threads"], 3, "team size of the profile");
    let inst_in_region: Vec<&serde_json::Value> = p["instances"].as_array().unwrap().iter().filter(|i| i["threads"].as_array().unwrap().len() == 3).collect();
    assert!(!inst_in_region.is_empty(), "no instance inside the region lists the workers");
    for i in &inst_in_region {
        let th = i["threads"].as_array().unwrap();
        assert_eq!(th[0]["role"], "master");
        for (k, w) in th[1..].iter().enumerate() {
            assert_eq!(w["role"], "worker");
            assert_eq!(w["id"], k as u64 + 1);
            assert!(["candidate", "barrier", "exited"].contains(&w["state"].as_str().unwrap()), "{w}");
            if w["state"] == "candidate" {
                assert!(w["slots"].as_u64().unwrap() + w["stack"].as_u64().unwrap() > 0, "a worker at a candidate saves its position: {w}");
            }
        }
        assert!(i["shared"]["heap"].as_u64().unwrap() > 1_000_000, "the shared grids: {i}");
    }
    let out = std::process::Command::new(&dao_tests::paths::tools().dao).args(["place", "--profile"]).arg(&prof).args(["--mtbf", "100"]).output().unwrap();
    assert!(out.status.success(), "dao place: {}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// With checkpointing on, the runtime forces libomp's reductions to a
/// method that does not wait for the team inside `__kmpc_reduce`; the
/// method must be one flang's reductions support, or libomp warns at every
/// reduction (it did with `atomic`).
#[test]
fn fortran_reductions_run_without_libomp_warnings() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/omp/fortran/timestep_barrier.f90");
    let bdir = build_dir("f-timestep_barrier-O2");
    let flags = vec!["-fopenmp".to_string()];
    let inst = build_once("f-timestep_barrier-O2-inst", || build_sources(Lang::Fortran, &[src.clone()], &flags, Opt::O2, Variant::Instrumented, &bdir)).unwrap();
    let dir = fresh_dir("omp-reduction-warnings");
    let out = std::process::Command::new(&inst)
        .arg("200")
        .env("OMP_NUM_THREADS", "2")
        .env("DAO_DIR", dir.join("ck"))
        .env("DAO_EVERY", "100")
        .env_remove("KMP_FORCE_REDUCTION")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("OMP: Warning"), "libomp warnings on stderr:\n{}", err.lines().take(5).collect::<Vec<_>>().join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the stress test's runs go: a fresh directory on tmpfs (/dev/shm)
/// when there is one, else under tests/out. Thousands of checkpoints per
/// run are the point; on the disk each commit's fsyncs took 0.7-2.2 ms
/// here (on a machine shared with other jobs), on tmpfs the whole round
/// 0.1-0.3 ms, which keeps the test well under a minute. The name carries a
/// hash of this checkout's tests/out, so two checkouts testing at once do
/// not share it.
fn stress_dir(name: &str) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        return fresh_dir(name);
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dao_tests::paths::tools().out.hash(&mut h);
    let d = shm.join(format!("dao-tests-{:016x}", h.finish())).join(name);
    let _ = std::fs::remove_dir_all(&d);
    match std::fs::create_dir_all(&d) {
        Ok(()) => d,
        Err(_) => fresh_dir(name),
    }
}

/// The non-blocking protocol under stress: nb_stress (random imbalance,
/// random shared writes right after every marker) at -O2 with 2 and 4
/// threads and `DAO_EVERY=1`, a checkpoint round at every candidate the
/// master reaches. An uninterrupted run must take more than 1000
/// checkpoints inside the region (DAO_STATS `"event":"checkpoint"` lines
/// with `"threads"` = the team size) and print `bad=0` (the program's own
/// per-step check of the shared counter against the private step index);
/// then the scenarios of `check_plan` with that count known: crashes after
/// k checkpoints for k spread over the whole run, crashes while writing a
/// checkpoint early, in the middle and late, three random SIGKILLs, two
/// crashes in a row; each restart must resume from the expected checkpoint
/// and the output appended across the runs must equal the clean run's.
/// The step counts give about 3000 rounds per run with either team.
#[test]
fn nonblocking_stress_thousands_of_rounds() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/omp/c/nb_stress.c");
    let bdir = build_dir("nb_stress-O2");
    let flags = vec!["-fopenmp".to_string()];
    // the same keys as check_omp's: one build per test process
    let clean = build_once("nb_stress-O2-clean", || build_sources(Lang::C, std::slice::from_ref(&src), &flags, Opt::O2, Variant::Clean, &bdir)).unwrap();
    let inst = build_once("nb_stress-O2-inst", || build_sources(Lang::C, std::slice::from_ref(&src), &flags, Opt::O2, Variant::Instrumented, &bdir)).unwrap();
    for (threads, steps) in [(2u32, "50"), (4, "100")] {
        let t0 = std::time::Instant::now();
        let label = format!("nb_stress O2 t={threads} nonblocking every=1");
        let dir = stress_dir(&format!("omp-nb-stress-t{threads}"));
        let env: Vec<(&'static str, String)> = vec![
            ("OMP_NUM_THREADS", threads.to_string()),
            ("DAO_OMP_TIMEOUT", "20".into()),
            ("DAO_PROTOCOL", "nonblocking".into()),
        ];
        // count the rounds of an uninterrupted run
        let stats = dir.join("count.stats");
        let out = dir.join("count.stdout");
        let mut run_env = env.clone();
        run_env.push(("DAO_DIR", dir.join("count.ckpt").display().to_string()));
        run_env.push(("DAO_EVERY", "1".into()));
        run_env.push(("DAO_STATS", stats.display().to_string()));
        let spec = dao_tests::process::RunSpec { exe: &inst, args: &[steps], env: run_env, stdout_append: out.clone(), stderr: dir.join("count.stderr") };
        let r = dao_tests::process::run(&spec, std::time::Duration::from_secs(120)).unwrap_or_else(|e| panic!("[{label}] {e}"));
        assert!(r.status.success(), "[{label}] uninterrupted run: {}", r.describe());
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.lines().last().is_some_and(|l| l.starts_with("nb_stress: ") && l.ends_with(" bad=0")), "[{label}] the program's checks failed: {}", out.display());
        let events: Vec<serde_json::Value> = std::fs::read_to_string(&stats)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|e: &serde_json::Value| e["event"] == "checkpoint")
            .collect();
        let n = events.len() as u64;
        let in_region = events.iter().filter(|e| e["threads"] == threads).count();
        assert!(in_region > 1000, "[{label}] {in_region} checkpoints inside the region ({n} in all), want > 1000 ({})", stats.display());
        let crash_after = [1, n / 4, n / 2, 3 * n / 4, n - 1];
        let crash_in = [2, n / 2 + 1, n - 2];
        check_plan(&Plan {
            label: label.clone(),
            dir: dir.clone(),
            clean: clean.clone(),
            inst: inst.clone(),
            args: &[steps],
            env,
            every: 1,
            crash_after: &crash_after,
            crash_in: &crash_in,
            drop_lines: &[],
            reference_lines: vec![],
            exact_count: true,
        });
        assert_protocol(&label, &dir, Protocol::Nonblocking, true);
        eprintln!("[{label}] {n} checkpoints per uninterrupted run ({:.2} s); all scenarios {:.1} s", r.elapsed.as_secs_f64(), t0.elapsed().as_secs_f64());
        let _ = std::fs::remove_dir_all(&dir);
        if dir.starts_with("/dev/shm") {
            let _ = std::fs::remove_dir(dir.parent().unwrap()); // only once empty
        }
    }
}
