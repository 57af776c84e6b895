//! Explicit OpenMP tasks (issue #18, first part): programs whose tasks run
//! inside parallel regions and whose checkpoints are taken between the
//! regions (task-quiescent points: every task has finished at the region's
//! end). The crash/restart scenarios of every program (tests/src/
//! scenario.rs), with DAO_DEAD=poison: what the tasks read after a
//! checkpoint (here globals read only inside task bodies) must be saved.
//! Then fault-tolerant tasks (DAO_TASK_FT=dual): dual execution with and
//! without injected faults, tasks that must run once, and checkpoints with
//! dual execution on.
//! Fortran at one thread only: flang-new-19's explicit tasks hang with more
//! threads even in a plain build of a minimal program here (docs/design.md,
//! section 17).
use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::fresh_dir;
use dao_tests::{check_plan, Lang, Opt, Plan, Variant};

fn check(name: &str, steps: u64, opt: Opt, threads: u32) {
    check_counted(name, steps, opt, threads, true)
}

fn check_counted(name: &str, steps: u64, opt: Opt, threads: u32, exact_count: bool) {
    let (clean, inst) = builds(name, opt);
    let dir = fresh_dir(&format!("tasks-{name}-{}-t{threads}", opt.name()));
    scenarios(&format!("{name} {} t={threads}", opt.name()), &dir, &clean, &inst, steps, threads, (&[1, 4], &[3]), exact_count);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The crash/restart scenarios of `check_plan` for built executables, a
/// checkpoint every second candidate; `crashes`: the DAO_CRASH_AFTER and
/// DAO_CRASH_IN points.
#[allow(clippy::too_many_arguments)]
fn scenarios(label: &str, dir: &std::path::Path, clean: &std::path::Path, inst: &std::path::Path, steps: u64, threads: u32, crashes: (&'static [u64], &'static [u64]), exact_count: bool) {
    let steps_arg = steps.to_string();
    let args = [steps_arg.as_str()];
    check_plan(&Plan {
        label: label.to_string(),
        dir: dir.to_path_buf(),
        clean: clean.to_path_buf(),
        inst: inst.to_path_buf(),
        args: &args,
        env: vec![("OMP_NUM_THREADS", threads.to_string())],
        every: 2,
        crash_after: crashes.0,
        crash_in: crashes.1,
        drop_lines: &[],
        reference_lines: vec![],
        exact_count,
    });
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

#[test]
fn tiled_cholesky_with_depend() {
    for (opt, threads) in [(Opt::O2, 2), (Opt::O0, 3), (Opt::O2, 4)] {
        check("cholesky", 16, opt, threads);
    }
}

/// Task clauses that change how libomp runs a task (if(0): the creating
/// code calls the entry, i.e. the trampoline, itself; final; untied;
/// priority; mergeable; taskwait depend): checkpoints, and both
/// fault-tolerant modes with faults.
#[test]
fn task_clauses() {
    for (opt, threads) in [(Opt::O2, 1), (Opt::O0, 2), (Opt::O2, 4)] {
        check("task_clauses", 12, opt, threads);
    }
    check_dual("task_clauses", 8, Opt::O2, 2, "dual");
    check_dual("task_clauses", 8, Opt::O0, 3, "serial");
}

/// Markers inside the task-generating `single` after taskwait and after a
/// taskgroup: the master runs the single, the others wait at its barrier
/// (and run the tasks); a restart puts each back.
#[test]
fn markers_inside_the_generating_single() {
    for (opt, threads) in [(Opt::O0, 1), (Opt::O2, 2), (Opt::O0, 3), (Opt::O2, 4)] {
        check("single_taskwait", 20, opt, threads);
    }
}

/// A marker inside the region right after a `single nowait` that created
/// tasks: checkpoints there are deferred while tasks are in flight (a
/// restart would lose them; wrong sums before the fix). How many are taken
/// depends on the timing, so the count is not compared.
#[test]
fn marker_after_single_nowait_with_tasks_in_flight() {
    for (opt, threads) in [(Opt::O2, 2), (Opt::O0, 3), (Opt::O2, 4), (Opt::O0, 1)] {
        check_counted("nowait_marker", 12, opt, threads, false);
    }
}

/// Tasks created by code not compiled with the pass (an object built with
/// `--dao-no-pass`, linked by `dao cc`, whose `--wrap=__kmpc_omp_task_alloc`
/// routes its task allocations to the runtime): no checkpoint inside the
/// region that created them (a restart would lose the tasks in flight;
/// wrong sums before), one warning naming the call, checkpoints between
/// the regions. The crash/restart scenarios; DAO_EVERY=1 makes every
/// marker due, so the in-region ones are refused (and counted) every step.
#[test]
fn tasks_of_uninstrumented_code() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let main = repo.join("test-programs/tasks/c/uninstrumented_tasks.c");
    let lib = repo.join("test-programs/tasks/c/uninstrumented/spawn.c");
    for (opt, threads) in [(Opt::O2, 2), (Opt::O0, 3), (Opt::O2, 4)] {
        let bdir = dao_tests::paths::tools().out.join("tasks-build").join(format!("uninstrumented-{}", opt.name()));
        std::fs::create_dir_all(&bdir).unwrap();
        let obj = bdir.join("spawn.o");
        let out = std::process::Command::new(&dao_tests::paths::tools().dao)
            .args(["cc", opt.flag(), "--dao-no-pass", "-fopenmp", "-g", "-c"])
            .arg(&lib)
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("run dao cc");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let flags = vec!["-fopenmp".to_string()];
        let srcs = [main.clone(), obj.clone()];
        let clean = build_sources(Lang::C, &srcs, &flags, opt, Variant::Clean, &bdir).unwrap_or_else(|e| panic!("clean build: {e}"));
        let inst = build_sources(Lang::C, &srcs, &flags, opt, Variant::Instrumented, &bdir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
        let dir = fresh_dir(&format!("tasks-uninstrumented-{}-t{threads}", opt.name()));
        scenarios(&format!("uninstrumented_tasks {} t={threads}", opt.name()), &dir, &clean, &inst, 12, threads, (&[1, 4], &[3]), false);
        // every marker due: the in-region ones refused, with the warning
        let stats = dir.join("every1.stats");
        let ck = dir.join("every1.ckpt");
        let (out, err) = run(&inst, 12, threads, &[("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", "1".into()), ("DAO_STATS", stats.display().to_string())]);
        let (reference, _) = run(&clean, 12, threads, &[]);
        assert_eq!(out, reference);
        assert!(err.contains("explicit tasks are created by code not compiled with the dao pass (") && err.contains("spawn.c:"), "the warning names the call: {err}");
        assert_eq!(err.matches("explicit tasks are created by code not compiled").count(), 1, "one warning: {err}");
        let text = std::fs::read_to_string(&stats).unwrap();
        let in_region = text.lines().filter(|l| l.contains("\"event\":\"checkpoint\"") && l.contains("\"threads\":") && !l.contains("\"threads\":1,")).count();
        assert_eq!(in_region, 0, "no checkpoint inside a region with untracked tasks: {text}");
        assert!(text.contains("\"event\":\"tasks_in_flight\""), "the refused rounds are counted: {text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Fortran tasks (flang-new-19's hang with more than one thread even
/// without dao, so one thread): the crash/restart scenarios, and both
/// fault-tolerant modes with faults injected.
#[test]
fn fortran_tasks_one_thread() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/tasks/fortran/task_blocks.f90");
    for opt in [Opt::O0, Opt::O2] {
        let bdir = dao_tests::paths::tools().out.join("tasks-build").join(format!("f-task_blocks-{}", opt.name()));
        let flags = vec!["-fopenmp".to_string()];
        let clean = build_sources(Lang::Fortran, &[src.clone()], &flags, opt, Variant::Clean, &bdir).unwrap_or_else(|e| panic!("clean build: {e}"));
        let inst = build_sources(Lang::Fortran, &[src.clone()], &flags, opt, Variant::Instrumented, &bdir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
        let dir = fresh_dir(&format!("tasks-f-task_blocks-{}", opt.name()));
        scenarios(&format!("f-task_blocks {} t=1", opt.name()), &dir, &clean, &inst, 12, 1, (&[1, 3], &[2]), true);
        let (reference, _) = run(&clean, 12, 1, &[]);
        for mode in ["dual", "serial"] {
            for kind in ["write", "value", "pointer"] {
                let stats = dir.join(format!("ft-{mode}-{kind}.stats"));
                let env = [
                    ("DAO_TASK_FT", mode.to_string()),
                    ("DAO_TASK_FAULTS", format!("7:4:{kind}")),
                    ("DAO_TASK_FAULT_SPAN", "380".to_string()),
                    ("DAO_STATS", stats.display().to_string()),
                ];
                let (out, _) = run(&inst, 12, 1, &env);
                assert_eq!(out, reference, "f-task_blocks {} {mode} {kind}", opt.name());
                let s = ft_stats(&stats);
                let n = |k: &str| s[k].as_u64().unwrap();
                assert!(n("tasks") > 0 && n("injected") > 0, "f-task_blocks {} {mode} {kind}: {s}", opt.name());
                assert_eq!(n("corrected"), n("detected"), "{s}");
                assert_eq!(n("detected") + n("benign"), n("injected"), "{s}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---- fault-tolerant tasks (DAO_TASK_FT=dual) ----

/// The clean and instrumented builds of a task program.
fn builds(name: &str, opt: Opt) -> (std::path::PathBuf, std::path::PathBuf) {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join(format!("test-programs/tasks/c/{name}.c"));
    let bdir = dao_tests::paths::tools().out.join("tasks-build").join(format!("{name}-{}", opt.name()));
    let flags = vec!["-fopenmp".to_string()];
    let clean = build_once(&format!("tasks-{name}-{}-clean", opt.name()), || build_sources(Lang::C, &[src.clone()], &flags, opt, Variant::Clean, &bdir))
        .unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_once(&format!("tasks-{name}-{}-inst", opt.name()), || build_sources(Lang::C, &[src.clone()], &flags, opt, Variant::Instrumented, &bdir))
        .unwrap_or_else(|e| panic!("instrumented build: {e}"));
    (clean, inst)
}

/// The counters of the `task_ft` event of a DAO_STATS file.
fn ft_stats(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let line = text.lines().rev().find(|l| l.contains("\"event\":\"task_ft\"")).unwrap_or_else(|| panic!("no task_ft event in {}: {text}", path.display()));
    serde_json::from_str(line).unwrap()
}

fn run(exe: &std::path::Path, steps: u64, threads: u32, env: &[(&str, String)]) -> (String, String) {
    let out = std::process::Command::new(exe)
        .arg(steps.to_string())
        .env("OMP_NUM_THREADS", threads.to_string())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{} {env:?} failed: {}; stderr: {stderr}", exe.display(), out.status);
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// Dual execution: the output equals the clean build's without faults
/// (every task replicated, no mismatch) and with injected faults of each
/// kind: a flipped bit in a buffered write always changes a committed value
/// and must be detected and corrected; a flipped value is detected or
/// benign; a flipped pointer crashes its replica (SIGSEGV), which is
/// recovered. The counts come from the DAO_STATS event.
fn check_dual(name: &str, steps: u64, opt: Opt, threads: u32, mode: &str) {
    let (clean, inst) = builds(name, opt);
    let label = format!("{name} {} t={threads} {mode}", opt.name());
    let (reference, _) = run(&clean, steps, threads, &[]);
    let dir = fresh_dir(&format!("tasks-ft-{name}-{}-t{threads}-{mode}", opt.name()));
    let stats = dir.join("stats");
    let (out, err) = run(&inst, steps, threads, &[("DAO_TASK_FT", mode.into()), ("DAO_STATS", stats.display().to_string())]);
    assert_eq!(out, reference, "[{label}] dual execution changed the output");
    assert!(err.contains("dao: fault-tolerant tasks:"), "[{label}] no summary on stderr: {err}");
    let s = ft_stats(&stats);
    let n = |k: &str| s[k].as_u64().unwrap();
    assert!(n("tasks") > 0 && n("runs") >= 2 * n("tasks"), "[{label}] tasks not replicated: {s}");
    assert_eq!((n("mismatches"), n("crashes"), n("runaways"), n("reruns")), (0, 0, 0, 0), "[{label}] faults without injection: {s}");
    let execs = n("runs");
    for (kind, seed) in [("write", 11u64), ("value", 12), ("pointer", 13), ("any", 14)] {
        let _ = std::fs::remove_file(&stats);
        let faults = 6;
        let env = [
            ("DAO_TASK_FT", mode.to_string()),
            ("DAO_TASK_FAULTS", format!("{seed}:{faults}:{kind}")),
            ("DAO_TASK_FAULT_SPAN", execs.to_string()),
            ("DAO_STATS", stats.display().to_string()),
        ];
        let (out, _) = run(&inst, steps, threads, &env);
        assert_eq!(out, reference, "[{label}] DAO_TASK_FAULTS={seed}:{faults}:{kind} changed the output");
        let s = ft_stats(&stats);
        let n = |k: &str| s[k].as_u64().unwrap();
        assert_eq!(n("injected") + n("not_landed"), faults, "[{label}] {kind}: {s}");
        assert!(n("injected") > 0, "[{label}] {kind}: no fault landed: {s}");
        assert_eq!(n("detected") + n("benign"), n("injected"), "[{label}] {kind}: {s}");
        assert_eq!(n("corrected"), n("detected"), "[{label}] {kind}: a detected fault was not corrected: {s}");
        match kind {
            "write" => assert_eq!(n("detected"), n("injected"), "[{label}] a flipped buffered write went undetected: {s}"),
            // (tiled_depend's task bodies at -O2 load no pointer: their
            // pointer faults land as write faults)
            "pointer" if name == "tasks_mix" => assert!(n("crashes") > 0, "[{label}] no replica crashed on a flipped pointer: {s}"),
            _ => {}
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dual_execution_detects_and_corrects_faults() {
    for (opt, threads) in [(Opt::O2, 1), (Opt::O0, 2), (Opt::O2, 3), (Opt::O2, 4)] {
        check_dual("tasks_mix", 12, opt, threads, "dual");
        check_dual("tiled_depend", 12, opt, threads, "dual");
    }
    check_dual("cholesky", 2, Opt::O2, 2, "dual");
}

/// Dual execution puts the second execution on another thread: the
/// replica task carries a priority and the runtime sets
/// OMP_MAX_TASK_PRIORITY=1, so libomp queues it in the team's priority
/// list, which a thread between two tasks looks at first. tiled_depend at
/// 2 threads, three runs each way: the pairs that ran on two threads
/// (DAO_STATS `other_thread`) must be far more than with the priority
/// list off (OMP_MAX_TASK_PRIORITY=0, set by the user: the creator's own
/// deque, taken by others only when they steal); on this machine about
/// 1 100 against 90 of 1 536 per run, at least three times as many.
#[test]
fn dual_replicas_run_on_other_threads() {
    let (clean, inst) = builds("tiled_depend", Opt::O2);
    let (reference, _) = run(&clean, 24, 2, &[]);
    let dir = fresh_dir("tasks-ft-other-threads");
    let stats = dir.join("stats");
    // how often the pairs ran on two threads depends on the machine's
    // load (every count shrinks when the other thread is descheduled), so
    // the two placements are compared, three runs each, in up to three
    // rounds: one where the priority list wins three to one passes
    let mut seen = Vec::new();
    for _round in 0..3 {
        let mut pairs = [0u64; 2];
        for rep in 0..3 {
            for (i, prio) in [None, Some("0")].into_iter().enumerate() {
                let _ = std::fs::remove_file(&stats);
                let mut env = vec![("DAO_TASK_FT", "dual".to_string()), ("DAO_STATS", stats.display().to_string())];
                if let Some(p) = prio {
                    env.push(("OMP_MAX_TASK_PRIORITY", p.to_string()));
                }
                let (out, _) = run(&inst, 24, 2, &env);
                assert_eq!(out, reference, "tiled_depend dual, OMP_MAX_TASK_PRIORITY={prio:?}, run {rep}");
                let s = ft_stats(&stats);
                assert_eq!(s["tasks"].as_u64(), Some(1536), "{s}");
                pairs[i] += s["other_thread"].as_u64().unwrap();
            }
        }
        seen.push(pairs);
        // (idle machine: about 3 300 against 270; three busy loops on the
        // two cores: 1 284 against 109; beside an MPI test: 159 against 22)
        if pairs[0] >= 3 * pairs[1].max(10) {
            break;
        }
    }
    let last = seen.last().unwrap();
    assert!(last[0] >= 3 * last[1].max(10), "pairs on two threads in 3 runs, [with the priority list, without] per round: {seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same with DAO_TASK_FT=serial: both executions in place on the
/// task's thread, with an undo log.
#[test]
fn serial_execution_detects_and_corrects_faults() {
    for (opt, threads) in [(Opt::O0, 1), (Opt::O2, 2), (Opt::O0, 3), (Opt::O2, 4)] {
        check_dual("tasks_mix", 12, opt, threads, "serial");
        check_dual("tiled_depend", 12, opt, threads, "serial");
    }
    check_dual("cholesky", 2, Opt::O2, 3, "serial");
}

/// Tasks the pass cannot replicate (I/O, an atomic, a call through a
/// pointer) run exactly once under dual execution, and the pass names each
/// with file:line under DAO_REMARKS=1.
#[test]
fn unreplicable_tasks_run_once_with_a_remark() {
    for (opt, threads) in [(Opt::O0, 3), (Opt::O2, 2)] {
        let (clean, inst) = builds("ft_once", opt);
        let (reference, _) = run(&clean, 6, threads, &[]);
        for mode in ["dual", "serial"] {
            let (out, err) = run(&inst, 6, threads, &[("DAO_TASK_FT", mode.into()), ("DAO_TASK_FAULTS", "3:4:write".into()), ("DAO_TASK_FAULT_SPAN", "60".into())]);
            assert_eq!(out, reference, "ft_once {} t={threads} {mode}", opt.name());
            assert!(err.contains("tasks replicated") && !err.contains(" 0 tasks replicated"), "{err}");
        }
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = repo.join("test-programs/tasks/c/ft_once.c");
    let dir = fresh_dir("tasks-ft-remarks");
    let out = std::process::Command::new(&dao_tests::paths::tools().dao)
        .args(["cc", "-O2", "-fopenmp", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(dir.join("x.o"))
        .env("DAO_REMARKS", "1")
        .output()
        .expect("run dao cc");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for (line, why) in [(31, "it calls printf"), (36, "it uses an atomic operation"), (42, "it makes an indirect call")] {
        let want = format!("ft_once.c:{line}: dao: the task created at ");
        assert!(err.lines().any(|l| l.contains(&want) && l.contains("is not replicated under DAO_TASK_FT=dual") && l.contains(why)), "no remark `{want}... {why}` in:\n{err}");
    }
    assert_eq!(err.matches("is not replicated").count(), 3, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checkpoints at task-quiescent points with fault-tolerant tasks on (and
/// faults injected): the crash/restart scenarios of every program.
#[test]
fn checkpoints_with_dual_execution() {
    for (name, opt, threads, mode) in [("tasks_mix", Opt::O2, 2, "dual"), ("tiled_depend", Opt::O0, 3, "serial"), ("ft_once", Opt::O2, 4, "dual"), ("cholesky", Opt::O2, 2, "serial")] {
        let (clean, inst) = builds(name, opt);
        let dir = fresh_dir(&format!("tasks-ftck-{name}-{}-t{threads}", opt.name()));
        let args = ["16"];
        check_plan(&Plan {
            label: format!("{name} {} t={threads} {mode}", opt.name()),
            dir: dir.clone(),
            clean,
            inst,
            args: &args,
            env: vec![
                ("OMP_NUM_THREADS", threads.to_string()),
                ("DAO_TASK_FT", mode.to_string()),
                ("DAO_TASK_FAULTS", "5:3".to_string()),
                ("DAO_TASK_FAULT_SPAN", "200".to_string()),
            ],
            every: 2,
            crash_after: &[1, 4],
            crash_in: &[3],
            drop_lines: &[],
            reference_lines: vec![],
            exact_count: true,
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
