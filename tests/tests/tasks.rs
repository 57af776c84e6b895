//! Explicit OpenMP tasks (issue #18, first part): programs whose tasks run
//! inside parallel regions and whose checkpoints are taken between the
//! regions (task-quiescent points: every task has finished at the region's
//! end). The crash/restart scenarios of every program (tests/src/
//! scenario.rs), with DAO_DEAD=poison: what the tasks read after a
//! checkpoint (here globals read only inside task bodies) must be saved.
//! C only: flang-new-19's explicit tasks hang or corrupt the heap even in
//! a plain build of a minimal program here (docs/design.md, section 17).
use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::fresh_dir;
use dao_tests::{check_plan, Lang, Opt, Plan, Variant};

fn check(name: &str, steps: u64, opt: Opt, threads: u32) {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join(format!("test-programs/tasks/c/{name}.c"));
    let bdir = dao_tests::paths::tools().out.join("tasks-build").join(format!("{name}-{}", opt.name()));
    let flags = vec!["-fopenmp".to_string()];
    let clean = build_once(&format!("tasks-{name}-{}-clean", opt.name()), || build_sources(Lang::C, &[src.clone()], &flags, opt, Variant::Clean, &bdir))
        .unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_once(&format!("tasks-{name}-{}-inst", opt.name()), || build_sources(Lang::C, &[src.clone()], &flags, opt, Variant::Instrumented, &bdir))
        .unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let dir = fresh_dir(&format!("tasks-{name}-{}-t{threads}", opt.name()));
    let steps_arg = steps.to_string();
    let args = [steps_arg.as_str()];
    check_plan(&Plan {
        label: format!("{name} {} t={threads}", opt.name()),
        dir: dir.clone(),
        clean,
        inst,
        args: &args,
        env: vec![("OMP_NUM_THREADS", threads.to_string())],
        every: 2,
        crash_after: &[1, 4],
        crash_in: &[3],
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fib_taskgroup_taskloop_firstprivate() {
    for (opt, threads) in [(Opt::O0, 1), (Opt::O2, 2), (Opt::O2, 4), (Opt::O0, 3)] {
        check("tasks_mix", 24, opt, threads);
    }
}

#[test]
fn tiled_wavefront_with_depend() {
    for (opt, threads) in [(Opt::O2, 1), (Opt::O0, 2), (Opt::O2, 3), (Opt::O2, 4)] {
        check("tiled_depend", 24, opt, threads);
    }
}
