//! What a restart must put back or refuse (issue #31's audit), one test
//! each. Put back, through every crash scenario of `dao_tests::scenario`
//! at -O0 and -O2: libc's generators (`rand`/`random`, `drand48`),
//! `strtok`'s position, `getline`'s buffer, environment changes, signal
//! handlers and the signal mask, atexit handlers (`libc_state.c`), and
//! OpenMP ICVs changed between regions (`omp_icvs.c`). Refused while held,
//! with a warning naming the thing, checkpoints taken again once it is
//! released (`refuse.c`): a pipe to a command (popen), a pipe, a socket, a
//! file mapped into memory, a child process. Refused at compile time
//! (`tests/bad_programs.rs`): a marker in a thread made with
//! pthread_create, OpenMP offload.
//!
//! Invariant: every run's output equals the uninterrupted clean run's;
//! nothing crashes, nothing is silently different.

use std::process::Command;

use dao_tests::build::{build_sources, dao_env, Lang, Opt, Variant};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::scenario::{check_plan, Plan};

fn check(name: &str, opt: Opt, omp: bool, args: Vec<String>, every: u64, crash_after: &'static [u64], crash_in: &'static [u64], tag: &str) {
    let src = tools().repo.join("test-programs/audit/c").join(format!("{name}.c"));
    let dir = fresh_dir(&format!("audit-{name}-{tag}-{}", opt.name()));
    let flags: Vec<String> = if omp { vec!["-fopenmp".into()] } else { vec![] };
    let clean = build_sources(Lang::C, std::slice::from_ref(&src), &flags, opt, Variant::Clean, &dir).unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build_sources(Lang::C, std::slice::from_ref(&src), &flags, opt, Variant::Instrumented, &dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let args: Vec<&'static str> = args.into_iter().map(|a| &*Box::leak(a.into_boxed_str())).collect();
    let args: &'static [&'static str] = Box::leak(args.into_boxed_slice());
    let env = if omp { vec![("OMP_NUM_THREADS", "4".to_string())] } else { vec![] };
    check_plan(&Plan {
        label: format!("{name} {tag} {}", opt.name()),
        dir,
        clean,
        inst,
        args,
        env,
        every,
        crash_after,
        crash_in,
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
}

fn libc_state(opt: Opt) {
    let data = fresh_dir(&format!("audit-libc-data-{}", opt.name())).join("lines.txt");
    check("libc_state", opt, false, vec!["40".into(), data.display().to_string()], 4, &[1, 3, 6], &[2, 5], "libc");
}

#[test]
fn libc_state_o0() {
    libc_state(Opt::O0);
}
#[test]
fn libc_state_o2() {
    libc_state(Opt::O2);
}
#[test]
fn omp_icvs_o0() {
    check("omp_icvs", Opt::O0, true, vec!["30".into()], 2, &[1, 5, 12], &[2, 9], "icv");
}
#[test]
fn omp_icvs_o2() {
    check("omp_icvs", Opt::O2, true, vec!["30".into()], 2, &[1, 5, 12], &[2, 9], "icv");
}

/// The runtime's exit hook runs once at the end of a restarted run: it
/// registers itself with libc, outside the table of the program's
/// handlers a restart registers again (it was in that table: a restarted
/// run waited for its writers, marked itself finished and wrote its
/// DAO_STATS summaries twice).
#[test]
fn exit_hook_once_after_restart() {
    let src = tools().repo.join("test-programs/audit/c/omp_icvs.c");
    let dir = fresh_dir("audit-exit-hook");
    let inst = build_sources(Lang::C, std::slice::from_ref(&src), &["-fopenmp".to_string()], Opt::O2, Variant::Instrumented, &dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    let ck = dir.join("ck");
    let run = |env: &[(&str, String)]| {
        let mut c = Command::new(&inst);
        c.arg("30").env("OMP_NUM_THREADS", "2").env("DAO_DIR", &ck).envs(env.iter().map(|(k, v)| (*k, v.as_str())));
        dao_env(&mut c);
        c.output().unwrap()
    };
    let first = run(&[("DAO_EVERY", "2".into()), ("DAO_CRASH_AFTER", "2".into())]);
    assert!(!first.status.success(), "the first run must be killed after its second checkpoint");
    let again = run(&[("DAO_VERBOSE", "1".into()), ("DAO_EVERY", "2".into())]);
    let e = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success() && e.contains("resuming from"), "the second run must resume and end: {e}");
    assert_eq!(e.matches("finished; its checkpoints will not be resumed").count(), 1, "the run is marked finished once: {e}");
}

/// `refuse.c <what> 60`, DAO_EVERY=3: the first 30 steps hold the thing
/// (10 candidates refused), the last 30 take 10 checkpoints.
fn refused(what: &str, says: &str) {
    check("refuse", Opt::O2, false, vec![what.into(), "60".into()], 3, &[1, 4], &[2, 5], what);
    // the warning names it
    let dir = tools().out.join(format!("audit-refuse-{what}-O2"));
    let exe = dir.join("inst/prog");
    let mut c = Command::new(&exe);
    c.args([what, "60"]).env("DAO_DIR", dir.join("warn.ckpt")).env("DAO_EVERY", "3");
    dao_env(&mut c);
    let o = c.output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("checkpoint not taken") && e.contains(says), "the warning must name {says}: {e}");
    let _ = std::fs::remove_dir_all(dir.join("warn.ckpt"));
}

#[test]
fn refuses_popen() {
    refused("popen", "(popen)");
}
#[test]
fn refuses_pipe() {
    refused("pipe", "a pipe (pipe)");
}
#[test]
fn refuses_socket() {
    refused("socket", "a socket (socketpair)");
}
#[test]
fn refuses_mmap() {
    refused("mmap", "is mapped into memory");
}
#[test]
fn refuses_fork() {
    refused("fork", "child process");
}
