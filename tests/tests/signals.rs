//! Batch systems (issue #37): checkpoint signals, exit signals, the grace
//! period, the program's own handler, the deadline, under OpenMP and MPI,
//! and `dao run`. The programs (`test-programs/signals/`) sleep a little
//! at every step and print their progress, so a signal is sent while the
//! run is under way (after a given progress line); timing checks are
//! generous (seconds), the checks are about what happened:
//!
//! - `usr1_*`: SIGUSR1 gives a checkpoint whose DAO_STATS `trigger` is
//!   `signal`, the run goes on and prints the clean run's output;
//! - `term_*`: SIGTERM gives a committed checkpoint (`trigger` `signal`),
//!   exit status 143 well within the grace time, `DAO_DIR/stopped`, and a
//!   resumed run whose output (appended to the same file) is the clean one;
//!   C and Fortran, sequential and OpenMP (markers inside a region, inside
//!   a worksharing loop, between regions: the checkpoint is taken inside a
//!   region, with the protocol's `protocol` field, exactly in the first two);
//! - `term_while_writer_runs`: SIGTERM to the program and to its background
//!   writer at once: the writer finishes (its checkpoint commits), the
//!   program exits 143 after its own checkpoint, no writer is left;
//! - `second_term_exits_at_once`, `grace_exits_without_checkpoint`: in a
//!   phase without candidates, a second SIGTERM exits at once, and with
//!   none DAO_EXIT_GRACE ends the run; no signal checkpoint, the resumed
//!   run starts from the last periodic one and prints the clean output;
//! - `own_handler_*`: a program's SIGTERM handler is kept (one warning)
//!   unless DAO_EXIT_SIGNALS names TERM;
//! - `forked_children_die_of_term`: children the program forks and stops
//!   with SIGTERM at once die of it (dao's handler never runs in them);
//! - `deadline_*`: DAO_DEADLINE=+3 (and SLURM_JOB_END_TIME) takes one
//!   checkpoint (`trigger` `deadline`) that is committed before the
//!   deadline, and the run goes on to the end;
//! - `mpi_*`: 2 and 4 ranks under mpirun: SIGUSR1 to mpirun (forwarded),
//!   then SIGTERM to one rank only or to every rank (as a batch system
//!   does): every rank checkpoints at the same candidate and exits, mpirun
//!   ends with 143, the restart gives the clean output;
//! - `dao_run_*`: `dao run` does not restart a program stopped by an exit
//!   signal; the next `dao run` resumes it.
//!
//! Run one: `cargo test --release -p dao-tests --test signals term`.
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dao_tests::build::{build_once, build_sources};
use dao_tests::paths::{fresh_dir, tools};
use dao_tests::process::{self, RunSpec};
use dao_tests::{Lang, Opt, Variant};

struct Built {
    clean: PathBuf,
    inst: PathBuf,
}

fn build(name: &str, lang: Lang, rel: &str, omp: bool) -> Built {
    let src = tools().repo.join("test-programs/signals").join(rel);
    let dir = tools().out.join("signals-build").join(name);
    let flags: Vec<String> = if omp { vec!["-fopenmp".into()] } else { vec![] };
    let clean = build_once(&format!("sig-{name}-clean"), || build_sources(lang, &[src.clone()], &flags, Opt::O2, Variant::Clean, &dir)).unwrap();
    let inst = build_once(&format!("sig-{name}-inst"), || build_sources(lang, &[src.clone()], &flags, Opt::O2, Variant::Instrumented, &dir)).unwrap();
    Built { clean, inst }
}

fn spec<'a>(exe: &'a Path, args: &'a [&'a str], dir: &Path, env: &[(&'static str, &str)]) -> RunSpec<'a> {
    let mut e: Vec<(&'static str, String)> = vec![
        ("DAO_DIR", dir.join("ck").display().to_string()),
        ("DAO_STATS", dir.join("stats.jsonl").display().to_string()),
        ("DAO_DEAD", "poison".into()),
    ];
    e.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    RunSpec { exe, args, env: e, stdout_append: dir.join("out.txt"), stderr: dir.join("err.txt") }
}

fn reference(b: &Built, args: &[&str], dir: &Path, env: &[(&'static str, &str)]) -> PathBuf {
    let out = dir.join("clean.txt");
    let _ = std::fs::remove_file(&out);
    let s = RunSpec { exe: &b.clean, args, env: env.iter().map(|(k, v)| (*k, v.to_string())).collect(), stdout_append: out.clone(), stderr: dir.join("clean.err") };
    let r = process::run(&s, Duration::from_secs(120)).unwrap();
    assert!(r.status.success(), "clean run: {}", r.describe());
    out
}

fn checkpoints(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("stats.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "checkpoint")
        .collect()
}

fn triggers(dir: &Path, t: &str) -> usize {
    checkpoints(dir).iter().filter(|e| e["trigger"] == t).count()
}

/// Lines of `path` starting with "step " (the programs' progress).
fn progress(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().filter(|l| l.starts_with("step ")).count())
}

/// Waits until `path` has `lines` progress lines (the child still running).
fn wait_progress(child: &mut Child, path: &Path, lines: usize) {
    let t0 = Instant::now();
    while progress(path) < lines {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("the program ended ({st}) before {lines} progress lines in {}", path.display());
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress in {}", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(pid as i32, sig) };
}

fn wait_child(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("the program did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A run of `b` that gets `signals` (each after that many progress lines),
/// then a resumed run; both outputs appended to one file, which must be
/// the clean output. Returns the first run's exit status and the time
/// from the last signal to its exit.
fn signalled_then_resumed(name: &str, b: &Built, args: &[&str], env: &[(&'static str, &str)], signals: &[(usize, i32)]) -> (PathBuf, i32, Duration) {
    let dir = fresh_dir(&format!("signals/{name}"));
    let clean = reference(b, args, &dir, env);
    let s = spec(&b.inst, args, &dir, env);
    let (mut child, _) = process::spawn(&s);
    let mut last = Instant::now();
    for &(after, sig) in signals {
        wait_progress(&mut child, &s.stdout_append, after);
        last = Instant::now();
        signal(child.id(), sig);
    }
    let st = wait_child(&mut child, Duration::from_secs(120));
    let took = last.elapsed();
    let code = st.code().unwrap_or_else(|| panic!("{name}: killed by a signal ({st}), not exited; stderr:\n{}", std::fs::read_to_string(&s.stderr).unwrap_or_default()));
    if code != 0 {
        let r = process::run(&s, Duration::from_secs(120)).unwrap();
        assert!(r.status.success(), "{name}: resumed run: {}", r.describe());
        assert!(r.stderr.contains("dao: resuming"), "{name}: the second run did not resume:\n{}", r.stderr);
    }
    process::compare_outputs(&clean, &s.stdout_append).unwrap_or_else(|e| panic!("{name}: {e}"));
    (dir, code, took)
}

/// USR1 gives a checkpoint, the run goes on; TERM gives a checkpoint and
/// exit 143; the resumed run completes the clean output.
fn usr1_then_term(name: &str, b: &Built, args: &[&str], env: &[(&'static str, &str)]) -> PathBuf {
    let mut e = vec![("DAO_INTERVAL", "3600")];
    e.extend_from_slice(env);
    let (dir, code, took) = signalled_then_resumed(name, b, args, &e, &[(3, libc::SIGUSR1), (6, libc::SIGTERM)]);
    assert_eq!(code, 143, "{name}: exit status after SIGTERM");
    assert!(took < Duration::from_secs(15), "{name}: SIGTERM to exit took {took:?} (grace 20 s)");
    // the first run's two, none from the resumed one (no policy due)
    assert_eq!(triggers(&dir, "signal"), 2, "{name}: checkpoints for the signals: {:?}", checkpoints(&dir));
    let stopped = std::fs::read_to_string(dir.join("ck/stopped")).unwrap_or_default();
    assert!(stopped.contains("signal 15") && stopped.contains("status 143"), "{name}: DAO_DIR/stopped: {stopped:?}");
    dir
}

#[test]
fn usr1_checkpoint_c() {
    let b = build("batch_seq_c", Lang::C, "c/batch_seq.c", false);
    let (dir, code, _) = signalled_then_resumed("usr1_c", &b, &["200", "10"], &[("DAO_INTERVAL", "3600")], &[(5, libc::SIGUSR1)]);
    assert_eq!(code, 0);
    assert_eq!(triggers(&dir, "signal"), 1, "{:?}", checkpoints(&dir));
    assert_eq!(checkpoints(&dir).len(), 1, "only the signal's checkpoint");
}

#[test]
fn term_c_seq() {
    usr1_then_term("term_c_seq", &build("batch_seq_c", Lang::C, "c/batch_seq.c", false), &["200", "10"], &[]);
}

#[test]
fn term_fortran_seq() {
    usr1_then_term("term_f_seq", &build("batch_seq_f", Lang::Fortran, "fortran/batch_seq.f90", false), &["200", "10000"], &[]);
}

/// Whether the signal checkpoints were taken inside a parallel region.
fn in_region(dir: &Path) -> Vec<bool> {
    checkpoints(dir).iter().filter(|e| e["trigger"] == "signal").map(|e| e.get("protocol").is_some()).collect()
}

#[test]
fn term_omp_c_modes() {
    let b = build("batch_omp_c", Lang::C, "c/batch_omp.c", true);
    for (mode, inside) in [("region", true), ("for", true), ("between", false)] {
        for threads in ["2", "3"] {
            let dir = usr1_then_term(&format!("term_omp_c_{mode}_t{threads}"), &b, &[mode, "150", "10"], &[("OMP_NUM_THREADS", threads), ("OMP_WAIT_POLICY", "passive")]);
            assert_eq!(in_region(&dir), vec![inside, inside], "{mode} t{threads}: checkpoints inside a region");
        }
    }
}

#[test]
fn term_omp_fortran_modes() {
    let b = build("batch_omp_f", Lang::Fortran, "fortran/batch_omp.f90", true);
    for (mode, inside) in [("1", true), ("2", false)] {
        let dir = usr1_then_term(&format!("term_omp_f_{mode}"), &b, &[mode, "150", "10000"], &[("OMP_NUM_THREADS", "2"), ("OMP_WAIT_POLICY", "passive")]);
        assert_eq!(in_region(&dir), vec![inside, inside], "mode {mode}: checkpoints inside a region");
    }
}

/// The writer children of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let mut v = Vec::new();
    if let Ok(d) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in d.flatten() {
            if let Ok(s) = std::fs::read_to_string(t.path().join("children")) {
                v.extend(s.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
            }
        }
    }
    v
}

#[test]
fn term_while_writer_runs() {
    let src = tools().repo.join("test-programs/c/big_state.c");
    let bdir = tools().out.join("signals-build").join("big_state");
    let clean = build_once("sig-big-clean", || build_sources(Lang::C, &[src.clone()], &[], Opt::O2, Variant::Clean, &bdir)).unwrap();
    let inst = build_once("sig-big-inst", || build_sources(Lang::C, &[src.clone()], &[], Opt::O2, Variant::Instrumented, &bdir)).unwrap();
    let b = Built { clean, inst };
    let args = ["64", "60"];
    let dir = fresh_dir("signals/term_writer");
    let clean = reference(&b, &args, &dir, &[]);
    let s = spec(&b.inst, &args, &dir, &[("DAO_EVERY", "2"), ("DAO_ASYNC", "wait"), ("DAO_STORE", "file")]);
    let (mut child, _) = process::spawn(&s);
    let pid = child.id();
    let t0 = Instant::now();
    let writer = loop {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("the program ended ({st}) before a writer child was seen");
        }
        // after the first commit, a writer at work
        let c = children(pid);
        if !c.is_empty() && !checkpoints(&dir).is_empty() {
            break c[0];
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no writer child seen");
        std::thread::sleep(Duration::from_micros(300));
    };
    // as a batch system does: every process of the job
    signal(writer, libc::SIGTERM);
    signal(pid, libc::SIGTERM);
    let st = wait_child(&mut child, Duration::from_secs(60));
    let err = std::fs::read_to_string(&s.stderr).unwrap_or_default();
    assert_eq!(st.code(), Some(143), "{st}; stderr:\n{err}");
    assert!(!err.contains("background writer") || !err.contains("killed"), "the writer must not die of SIGTERM:\n{err}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!std::path::Path::new(&format!("/proc/{writer}")).exists() || std::fs::read_to_string(format!("/proc/{writer}/stat")).unwrap_or_default().contains(") Z"), "the writer {writer} outlived the program");
    let cks = checkpoints(&dir);
    let last = cks.last().expect("checkpoints");
    assert_eq!(last["trigger"], "signal", "the last checkpoint is the signal's: {cks:?}");
    assert!(last.get("background").is_none(), "the exit checkpoint is written by the program");
    assert!(cks.iter().any(|e| e.get("background").is_some() && e["trigger"] == "every"), "a background checkpoint settled before the exit: {cks:?}");
    let tmp: Vec<String> = std::fs::read_dir(dir.join("ck")).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".tmp")).collect();
    assert!(tmp.is_empty(), "temp files left: {tmp:?}");
    let r = process::run(&s, Duration::from_secs(120)).unwrap();
    assert!(r.status.success() && r.stderr.contains("dao: resuming"), "{}", r.describe());
    process::compare_outputs(&clean, &s.stdout_append).unwrap();
}

/// batch_seq with a 20 s phase without candidates after step 30.
const LONG: [&str; 4] = ["100", "10", "29", "20000"];

#[test]
fn second_term_exits_at_once() {
    let b = build("batch_seq_c", Lang::C, "c/batch_seq.c", false);
    let dir = fresh_dir("signals/second_term");
    let clean = reference(&b, &LONG, &dir, &[]);
    let s = spec(&b.inst, &LONG, &dir, &[("DAO_EVERY", "10"), ("DAO_EXIT_GRACE", "60")]);
    let (mut child, _) = process::spawn(&s);
    wait_progress(&mut child, &s.stdout_append, 3);
    signal(child.id(), libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "one SIGTERM in a phase without candidates waits for one");
    let t = Instant::now();
    signal(child.id(), libc::SIGTERM);
    let st = wait_child(&mut child, Duration::from_secs(30));
    assert_eq!(st.code(), Some(143), "{st}");
    assert!(t.elapsed() < Duration::from_secs(3), "the second SIGTERM exits at once: {:?}", t.elapsed());
    assert_eq!(triggers(&dir, "signal"), 0);
    let r = process::run(&s, Duration::from_secs(120)).unwrap();
    assert!(r.status.success() && r.stderr.contains("dao: resuming"), "{}", r.describe());
    process::compare_outputs(&clean, &s.stdout_append).unwrap();
}

#[test]
fn grace_exits_without_checkpoint() {
    let b = build("batch_seq_c", Lang::C, "c/batch_seq.c", false);
    let dir = fresh_dir("signals/grace");
    let clean = reference(&b, &LONG, &dir, &[]);
    let s = spec(&b.inst, &LONG, &dir, &[("DAO_EVERY", "10"), ("DAO_EXIT_GRACE", "2")]);
    let (mut child, _) = process::spawn(&s);
    wait_progress(&mut child, &s.stdout_append, 3);
    let t = Instant::now();
    signal(child.id(), libc::SIGTERM);
    let st = wait_child(&mut child, Duration::from_secs(30));
    let took = t.elapsed();
    assert_eq!(st.code(), Some(143), "{st}");
    assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(10), "exit {took:?} after SIGTERM, grace 2 s");
    let err = std::fs::read_to_string(&s.stderr).unwrap();
    assert!(err.contains("DAO_EXIT_GRACE=2"), "{err}");
    assert_eq!(triggers(&dir, "signal"), 0);
    let r = process::run(&s, Duration::from_secs(120)).unwrap();
    assert!(r.status.success() && r.stderr.contains("dao: resuming"), "{}", r.describe());
    process::compare_outputs(&clean, &s.stdout_append).unwrap();
}

#[test]
fn own_handler_kept() {
    let b = build("own_term", Lang::C, "c/own_term.c", false);
    let dir = fresh_dir("signals/own_kept");
    let args = ["300", "10"];
    let s = spec(&b.inst, &args, &dir, &[("DAO_INTERVAL", "3600")]);
    let (mut child, _) = process::spawn(&s);
    wait_progress(&mut child, &s.stdout_append, 3);
    signal(child.id(), libc::SIGTERM);
    let st = wait_child(&mut child, Duration::from_secs(30));
    let out = std::fs::read_to_string(&s.stdout_append).unwrap();
    let err = std::fs::read_to_string(&s.stderr).unwrap();
    assert_eq!(st.code(), Some(0), "the program's handler stops it its way: {st}\n{err}");
    assert!(out.contains("stopped by its own handler"), "{out}");
    assert_eq!(err.matches("installs its own handler for SIGTERM").count(), 1, "one warning:\n{err}");
    assert_eq!(triggers(&dir, "signal"), 0);
}

#[test]
fn own_handler_overridden_when_named() {
    let b = build("own_term", Lang::C, "c/own_term.c", false);
    let (dir, code, _) = signalled_then_resumed("own_named", &b, &["200", "10"], &[("DAO_INTERVAL", "3600"), ("DAO_EXIT_SIGNALS", "TERM")], &[(3, libc::SIGTERM)]);
    assert_eq!(code, 143);
    assert_eq!(triggers(&dir, "signal"), 1);
    let out = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    assert!(!out.contains("stopped by its own handler"), "{out}");
}

/// A child the program forks and at once stops with SIGTERM dies of it,
/// also when the signal reaches it before it has run an instruction after
/// the fork: dao's handler must never run in it (it would record an exit
/// request in a process that takes no checkpoint, and the child would go
/// on waiting). 2000 children, a checkpoint every 200 candidates (the
/// background writer forks too); the runtime blocks its signals across
/// both forks. Without that, this run hung on the first few hundred
/// children on this machine.
#[test]
fn forked_children_die_of_term() {
    let b = build("fork_term", Lang::C, "c/fork_term.c", false);
    let dir = fresh_dir("signals/fork_term");
    let args = ["2000"];
    let s = spec(&b.inst, &args, &dir, &[("DAO_EVERY", "200")]);
    let r = process::run(&s, Duration::from_secs(60)).unwrap_or_else(|e| panic!("fork_term: {e}"));
    let out = std::fs::read_to_string(&s.stdout_append).unwrap();
    assert!(r.status.success() && out.contains("children stopped: 2000 of 2000"), "{}\n{out}", r.describe());
    assert!(checkpoints(&dir).len() >= 9, "{:?}", checkpoints(&dir));
}

/// A run of 6-7 s with a deadline 3 s in: one checkpoint for it, committed
/// before it; the run goes on to the end.
fn deadline(name: &str, env: impl Fn() -> Vec<(&'static str, String)>) {
    let b = build("batch_seq_c", Lang::C, "c/batch_seq.c", false);
    let dir = fresh_dir(&format!("signals/{name}"));
    let args = ["600", "10"];
    let clean = reference(&b, &args, &dir, &[]);
    let mut s = spec(&b.inst, &args, &dir, &[("DAO_INTERVAL", "3600")]);
    let start = std::time::SystemTime::now();
    s.env.extend(env());
    let r = process::run(&s, Duration::from_secs(120)).unwrap();
    assert!(r.status.success(), "{}", r.describe());
    assert!(r.elapsed > Duration::from_secs(5), "the run must outlast the deadline: {:?}", r.elapsed);
    assert_eq!(triggers(&dir, "deadline"), 1, "{:?}", checkpoints(&dir));
    assert_eq!(checkpoints(&dir).len(), 1);
    let f = std::fs::read_dir(dir.join("ck")).unwrap().flatten().find(|e| e.file_name().to_string_lossy().starts_with("store.")).expect("the checkpoint file");
    let at = f.metadata().unwrap().modified().unwrap().duration_since(start).unwrap();
    assert!(at < Duration::from_millis(3000) && at > Duration::from_millis(1000), "committed {at:?} after the start, deadline 3 s");
    process::compare_outputs(&clean, &s.stdout_append).unwrap();
}

#[test]
fn deadline_relative() {
    deadline("deadline_rel", || vec![("DAO_DEADLINE", "+3".into())]);
}

#[test]
fn deadline_from_slurm() {
    // the job's end time, 3 s after the run starts
    deadline("deadline_slurm", || {
        let end = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() + 3.0;
        vec![("SLURM_JOB_END_TIME", format!("{end:.3}"))]
    });
}

// ---- MPI ----

fn mpi_build(clean: bool) -> PathBuf {
    build_once(&format!("sig-mpi-{clean}"), || {
        let dir = tools().out.join("signals-build").join(if clean { "mpi-clean" } else { "mpi-inst" });
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let exe = dir.join("prog");
        let mut c = Command::new(&tools().dao);
        c.args(["mpicc", "-O2", "-fopenmp"]);
        if clean {
            c.arg("--dao-no-pass");
        }
        c.arg(tools().repo.join("test-programs/signals/mpi/batch_mpi.c")).arg("-o").arg(&exe).current_dir(&dir);
        let o = c.output().map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!("{c:?}: {}", String::from_utf8_lossy(&o.stderr)));
        }
        Ok(exe)
    })
    .unwrap()
}

fn mpirun(np: usize, exe: &Path, env: &[(&str, &str)], out: &Path) -> Child {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "--mca", "pml", "ob1", "-np", &np.to_string()]);
    for (k, v) in env {
        c.args(["-x", &format!("{k}={v}")]);
    }
    c.arg(exe).args(["200", "10"]);
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1").env("OMP_NUM_THREADS", "1").env("OMP_WAIT_POLICY", "passive");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DAO_") {
            c.env_remove(k);
        }
    }
    c.stdout(std::fs::File::create(out).unwrap()).stderr(std::fs::File::create(out.with_extension("err")).unwrap()).stdin(Stdio::null());
    c.spawn().expect("mpirun (scripts/setup.sh installs Open MPI)")
}

/// The rank processes under mpirun `pid`.
fn ranks(pid: u32, np: usize) -> Vec<u32> {
    let t0 = Instant::now();
    loop {
        let c = children(pid);
        if c.len() >= np {
            return c;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "mpirun started {c:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// SIGUSR1 to mpirun (forwarded to every rank), then SIGTERM to the ranks
/// `term` picks: every rank checkpoints at the same candidates, exits, and
/// mpirun ends with 143; the restart completes the clean output.
fn mpi_case(np: usize, name: &str, term: impl Fn(&[u32]) -> Vec<u32>) {
    let dir = fresh_dir(&format!("signals/{name}"));
    let clean_out = dir.join("clean.txt");
    let st = mpirun(np, &mpi_build(true), &[], &clean_out).wait().unwrap();
    assert!(st.success());
    let ck = dir.join("ck");
    let stats = dir.join("stats.jsonl");
    let env = [("DAO_DIR", ck.to_str().unwrap()), ("DAO_STATS", stats.to_str().unwrap()), ("DAO_INTERVAL", "3600")];
    let first = dir.join("first.txt");
    let mut child = mpirun(np, &mpi_build(false), &env, &first);
    let pids = ranks(child.id(), np);
    wait_progress(&mut child, &first, 3);
    signal(child.id(), libc::SIGUSR1);
    wait_progress(&mut child, &first, 6);
    for p in term(&pids) {
        signal(p, libc::SIGTERM);
    }
    let st = wait_child(&mut child, Duration::from_secs(60));
    let err = std::fs::read_to_string(first.with_extension("err")).unwrap_or_default();
    assert_eq!(st.code(), Some(143), "{name}: mpirun's status; stderr:\n{err}");
    let cks = checkpoints(&dir);
    // every rank: one checkpoint for SIGUSR1, one for SIGTERM, the same seqs
    for r in 0..np {
        let mine: Vec<u64> = cks.iter().filter(|e| e["mpi"]["rank"] == r as u64).map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_eq!(mine, vec![1, 2], "{name}: rank {r}'s checkpoints: {cks:?}");
        assert!(ck.join(format!("rank.{r:04}/stopped")).exists(), "rank {r} recorded its stop");
    }
    assert!(cks.iter().all(|e| e["trigger"] == "signal"), "{cks:?}");
    let second = dir.join("second.txt");
    let st = mpirun(np, &mpi_build(false), &env[..2], &second).wait().unwrap();
    assert!(st.success(), "{name}: resumed run {st}: {}", std::fs::read_to_string(second.with_extension("err")).unwrap_or_default());
    let [c, f, s] = [&clean_out, &first, &second].map(|p| std::fs::read_to_string(p).unwrap());
    let (c, f, s): (Vec<&str>, Vec<&str>, Vec<&str>) = (c.lines().collect(), f.lines().collect(), s.lines().collect());
    assert!((0..=f.len()).any(|p| p + s.len() == c.len() && f[..p] == c[..p] && s[..] == c[p..]), "{name}: before and after the restart do not make the clean output");
}

#[test]
fn mpi_2_ranks_term_to_one() {
    mpi_case(2, "mpi2_one", |p| vec![p[1]]);
}

#[test]
fn mpi_4_ranks_term_to_all() {
    mpi_case(4, "mpi4_all", |p| p.to_vec());
}

// ---- dao run ----

#[test]
fn dao_run_does_not_restart_after_exit_signal() {
    let b = build("batch_seq_c", Lang::C, "c/batch_seq.c", false);
    let dir = fresh_dir("signals/dao_run");
    let args = ["200", "10"];
    let clean = reference(&b, &args, &dir, &[]);
    let out = dir.join("out.txt");
    let run = |err: &str| {
        let mut c = Command::new(&tools().dao);
        c.arg("run").arg("--dir").arg(dir.join("ck")).arg("--").arg(&b.inst).args(args);
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("DAO_") {
                c.env_remove(k);
            }
        }
        c.env("DAO_INTERVAL", "3600");
        let f = std::fs::OpenOptions::new().create(true).append(true).open(&out).unwrap();
        c.stdout(f).stderr(std::fs::File::create(dir.join(err)).unwrap()).stdin(Stdio::null());
        c.spawn().unwrap()
    };
    let mut child = run("err1.txt");
    wait_progress(&mut child, &out, 3);
    // the program, not dao run: as a batch system signals every process
    let prog = ranks(child.id(), 1)[0];
    signal(prog, libc::SIGTERM);
    let st = wait_child(&mut child, Duration::from_secs(60));
    let err = std::fs::read_to_string(dir.join("err1.txt")).unwrap();
    assert_eq!(st.code(), Some(143), "{err}");
    assert!(err.contains("not restarting") && !err.contains("restarting (1 of"), "{err}");
    let st = wait_child(&mut run("err2.txt"), Duration::from_secs(60));
    let err = std::fs::read_to_string(dir.join("err2.txt")).unwrap();
    assert!(st.success() && err.contains("dao: resuming"), "{st}\n{err}");
    process::compare_outputs(&clean, &out).unwrap();
}
