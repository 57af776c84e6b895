//! MPI programs (issue #17): `dao mpicc` and `dao mpifort` build hybrid
//! MPI + OpenMP programs like Open MPI's wrappers, with the dao pass; with
//! DAO_DIR set their checkpoints are coordinated across the ranks (one
//! `rank.NNNN` directory each, a two-phase commit, partner copies) and a
//! killed job restarts from the newest version every rank can restore.
//!
//! Every scenario compares with the clean build's output (`--dao-no-pass`,
//! uninterrupted). Output after a crash: rank 0's stdout goes through
//! mpirun's pipe, so the killed run's output and the restarted run's are
//! checked together: some prefix of the first (what was printed before
//! the checkpoint the restart resumed) followed by all of the second must
//! be exactly the clean output.
//!
//! Needs Open MPI (`openmpi-bin`, `libopenmpi-dev`: scripts/setup.sh
//! installs them). mpirun runs as root here only with
//! OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), which `mpirun` below sets.
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use dao_tests::build::build_once;
use dao_tests::paths::{fresh_dir, tools};

/// Builds `src` (under test-programs/mpi, or a path from the repository
/// root with extra sources) with `dao <tool>`.
fn build(tool: &str, srcs: &[&str], opt: &str, clean: bool) -> PathBuf {
    let key = format!("mpi-{tool}-{}-{opt}-{clean}", srcs.join("+"));
    build_once(&key, || {
        let name = format!("{}{opt}-{}", srcs[0].replace('/', "_"), if clean { "clean" } else { "inst" });
        let dir = tools().out.join("mpi-build").join(name);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let exe = dir.join("prog");
        let mut c = Command::new(&tools().dao);
        c.arg(tool).args([opt, "-fopenmp"]);
        if clean {
            c.arg("--dao-no-pass");
        }
        for s in srcs {
            let p = if s.contains("npb-ports/") { tools().repo.join(s) } else { tools().repo.join("test-programs/mpi").join(s) };
            c.arg(p);
        }
        if srcs[0].contains("npb-ports/") {
            c.arg("-I").arg(tools().repo.join("npb-ports/common")).arg("-lm");
        }
        c.arg("-o").arg(&exe).current_dir(&dir);
        let o = c.output().map_err(|e| format!("cannot run dao {tool}: {e}"))?;
        if !o.status.success() {
            return Err(format!("`{c:?}` failed ({}):\n{}{}", o.status, String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
        }
        Ok(exe)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// `mpirun -np N` on this machine: oversubscribed, not bound to cores
/// (each rank runs OpenMP threads), shared memory and self transports
/// only; `env` added to every rank, `args` to the program.
fn mpirun_cmd(np: usize, threads: usize, exe: &Path, env: &[(&str, &str)], args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "--mca", "pml", "ob1", "-np", &np.to_string()]);
    for (k, v) in env {
        c.args(["-x", &format!("{k}={v}")]);
    }
    c.arg(exe).args(args);
    // passive: ranks and their OpenMP threads share 2 cores here (spinning
    // threads made runs of 2 ranks x 2 threads erratically 10-30x slower)
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1").env("OMP_NUM_THREADS", threads.to_string()).env("OMP_WAIT_POLICY", "passive");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DAO_") {
            c.env_remove(k);
        }
    }
    c
}

fn mpirun(np: usize, threads: usize, exe: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    mpirun_cmd(np, threads, exe, env, args).output().expect("run mpirun (install openmpi-bin: scripts/setup.sh)")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Some prefix of `first` followed by all of `second` is `clean`, line by line.
fn assert_resumed(clean: &str, first: &str, second: &str, what: &str) {
    let (c, f, s): (Vec<&str>, Vec<&str>, Vec<&str>) = (clean.lines().collect(), first.lines().collect(), second.lines().collect());
    let ok = (0..=f.len()).any(|p| p + s.len() == c.len() && f[..p] == c[..p] && s[..] == c[p..]);
    assert!(ok, "{what}: the output before the crash and after the restart do not make the clean output\n--- clean\n{clean}--- before\n{first}--- after\n{second}");
}

/// A program of the matrix: sources, tool, -O level, ranks, threads per rank, arguments.
struct Prog {
    tool: &'static str,
    srcs: &'static [&'static str],
    opt: &'static str,
    np: usize,
    threads: usize,
    args: &'static [&'static str],
    every: &'static str,
}

impl Prog {
    fn exe(&self, clean: bool) -> PathBuf {
        build(self.tool, self.srcs, self.opt, clean)
    }
    fn run(&self, env: &[(&str, &str)]) -> Output {
        mpirun(self.np, self.threads, &self.exe(false), env, self.args)
    }
    fn clean_output(&self) -> String {
        let o = mpirun(self.np, self.threads, &self.exe(true), &[], self.args);
        assert!(o.status.success(), "{} clean: {:?}\n{}", self.srcs[0], o.status, text(&o.stderr));
        text(&o.stdout)
    }
    fn name(&self) -> String {
        format!("{} {} np={} threads={}", self.srcs[0], self.opt, self.np, self.threads)
    }
}

const HALO_C: Prog = Prog { tool: "mpicc", srcs: &["c/halo_omp.c"], opt: "-O2", np: 2, threads: 2, args: &["120"], every: "10" };
const HALO_F: Prog = Prog { tool: "mpifort", srcs: &["fortran/halo_omp.f90"], opt: "-O0", np: 4, threads: 1, args: &[], every: "7" };

/// No crash: the instrumented build under mpirun with and without
/// DAO_DIR prints the clean output; every rank writes its own directory,
/// with the partner copies of another rank.
fn uninterrupted(p: &Prog) {
    let want = p.clean_output();
    let got = p.run(&[]);
    assert!(got.status.success(), "{}: {:?}\n{}", p.name(), got.status, text(&got.stderr));
    assert_eq!(text(&got.stdout), want, "{}: the instrumented build's output", p.name());
    let dir = fresh_dir(&format!("mpi/plain-{}", p.name().replace([' ', '/', '='], "_")));
    let ck = dir.join("ck");
    let got = p.run(&[("DAO_DIR", ck.to_str().unwrap()), ("DAO_EVERY", p.every)]);
    let err = text(&got.stderr);
    assert!(got.status.success(), "{} with DAO_DIR: {:?}\n{err}", p.name(), got.status);
    assert_eq!(text(&got.stdout), want, "{}, DAO_DIR set", p.name());
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(std::fs::read_to_string(ck.join("job")).unwrap().trim(), format!("ranks {}", p.np));
    for r in 0..p.np {
        let own = ck.join(format!("rank.{r:04}"));
        assert!(own.join("finished").exists(), "rank {r} marked its run finished");
        let n = std::fs::read_dir(&own).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".dao")).count();
        assert_eq!(n, 2, "rank {r} keeps two checkpoints (DAO_KEEP)");
        let copies = ck.join("partner").join(format!("rank.{r:04}"));
        assert_eq!(std::fs::read_dir(&copies).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".dao")).count(), 2, "copies of rank {r}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The seq a rank's restart resumed, from its "resuming from" line.
fn resumed_seqs(err: &str) -> Vec<u64> {
    err.lines()
        .filter_map(|l| l.split("(checkpoint ").nth(1))
        .filter_map(|x| x.split(' ').next())
        .filter_map(|n| n.parse().ok())
        .collect()
}

/// A crash on one rank (DAO_CRASH_AFTER or DAO_CRASH_IN with
/// DAO_CRASH_RANK): mpirun aborts the job; the restart resumes `want_seq`
/// on every rank and finishes with the clean output.
fn crash_on_one_rank(p: &Prog, var: &str, k: &str, rank: usize, want_seq: u64) {
    let want = p.clean_output();
    let dir = fresh_dir(&format!("mpi/crash-{var}-{}", p.name().replace([' ', '/', '='], "_")));
    let ck = dir.join("ck");
    let cks = ck.to_str().unwrap();
    let r = rank.to_string();
    let first = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every), (var, k), ("DAO_CRASH_RANK", &r)]);
    assert!(!first.status.success(), "{}: {var}={k} on rank {rank} must kill the job\n{}", p.name(), text(&first.stderr));
    // DAO_DEAD=poison: globals the checkpoint left out as dead are filled
    // with 0xff at the restart, so a wrong kill shows in the output
    let second = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every), ("DAO_VERBOSE", "1"), ("DAO_DEAD", "poison")]);
    let err = text(&second.stderr);
    assert!(second.status.success(), "{} restart: {:?}\n{err}", p.name(), second.status);
    assert_eq!(resumed_seqs(&err), vec![want_seq; p.np], "{}: every rank resumes checkpoint {want_seq}\n{err}", p.name());
    assert_resumed(&want, &text(&first.stdout), &text(&second.stdout), &p.name());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c_halo_exchange_checkpoints_and_restarts() {
    uninterrupted(&HALO_C);
    crash_on_one_rank(&HALO_C, "DAO_CRASH_AFTER", "3", 1, 3);
    // killed half-way through writing checkpoint 2 on rank 1: the others
    // wait in the agreement; no rank commits 2
    crash_on_one_rank(&HALO_C, "DAO_CRASH_IN", "2", 1, 1);
}

#[test]
fn fortran_mpif_h_halo_exchange_checkpoints_and_restarts() {
    uninterrupted(&HALO_F);
    crash_on_one_rank(&HALO_F, "DAO_CRASH_AFTER", "2", 3, 2);
}

/// `use mpi` with flang: `dao mpifort` compiles its own `mpi` module from
/// Open MPI's `mpif.h`; a ring of Isend/Irecv/Waitall.
#[test]
fn fortran_use_mpi_module_checkpoints_and_restarts() {
    let p = Prog { tool: "mpifort", srcs: &["fortran/ring_use_mpi.f90"], opt: "-O2", np: 2, threads: 2, args: &[], every: "10" };
    uninterrupted(&p);
    crash_on_one_rank(&p, "DAO_CRASH_AFTER", "4", 0, 4);
}

/// Markers inside parallel regions: the master thread of each rank looks
/// with the others, the team is gathered as in one process.
#[test]
fn checkpoints_inside_parallel_regions_of_mpi_ranks() {
    let p = Prog { tool: "mpicc", srcs: &["c/inregion_omp.c"], opt: "-O2", np: 2, threads: 2, args: &[], every: "7" };
    uninterrupted(&p);
    crash_on_one_rank(&p, "DAO_CRASH_AFTER", "5", 1, 5);
    crash_on_one_rank(&p, "DAO_CRASH_IN", "4", 0, 3);
}

/// Cartesian communicator, duplicated communicator and derived datatypes
/// created before the loop, non-blocking halo exchange, a marker in a
/// called function: the restored handles work (C: the old pointers in the
/// restored data are translated; Fortran: the same handle numbers).
const CART_C: Prog = Prog { tool: "mpicc", srcs: &["c/cart_omp.c"], opt: "-O0", np: 4, threads: 2, args: &[], every: "9" };
const CART_F: Prog = Prog { tool: "mpifort", srcs: &["fortran/cart_omp.f90"], opt: "-O2", np: 2, threads: 2, args: &[], every: "9" };

#[test]
fn c_cartesian_communicator_and_datatypes_survive_a_restart() {
    uninterrupted(&CART_C);
    crash_on_one_rank(&CART_C, "DAO_CRASH_AFTER", "3", 2, 3);
    // the handles in the restored data were translated
    let dir = fresh_dir("mpi/cart-c-translated");
    let ck = dir.join("ck");
    let cks = ck.to_str().unwrap();
    let first = CART_C.run(&[("DAO_DIR", cks), ("DAO_EVERY", CART_C.every), ("DAO_CRASH_AFTER", "1")]);
    assert!(!first.status.success());
    let second = CART_C.run(&[("DAO_DIR", cks), ("DAO_EVERY", CART_C.every), ("DAO_VERBOSE", "1")]);
    let err = text(&second.stderr);
    assert!(second.status.success(), "{err}");
    let n: Vec<usize> = err.lines().filter(|l| l.contains("MPI handle(s) in the restored data")).filter_map(|l| l.split(": ").nth(2)?.split(' ').next()?.parse().ok()).collect();
    assert_eq!(n.len(), CART_C.np, "{err}");
    assert!(n.iter().all(|&x| x > 0), "every rank translated the handles it holds: {n:?}\n{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fortran_cartesian_communicator_and_datatypes_survive_a_restart() {
    uninterrupted(&CART_F);
    crash_on_one_rank(&CART_F, "DAO_CRASH_AFTER", "2", 1, 2);
    crash_on_one_rank(&CART_F, "DAO_CRASH_IN", "3", 0, 2);
}

#[test]
fn cartesian_programs_killed_at_random_times() {
    random_kills(&Prog { every: "40", ..CART_F }, false, "mpi-kill-cart-f");
    random_kills(&Prog { every: "40", ..CART_C }, true, "mpi-kill-cart-c-mpirun");
}

/// Ranks of a job run until `kill` says, then one rank (or mpirun) gets
/// SIGKILL; the job is started again until it finishes.
fn random_kills(p: &Prog, kill_mpirun: bool, salt: &str) {
    let want = p.clean_output();
    let dir = fresh_dir(&format!("mpi/kill-{salt}"));
    let ck = dir.join("ck");
    let cks = ck.to_str().unwrap().to_string();
    let env = [("DAO_DIR", cks.as_str()), ("DAO_EVERY", p.every)];
    // the clean run's duration sets the range of kill times
    let t0 = Instant::now();
    let _ = p.run(&[]);
    let full = t0.elapsed();
    let seed = dao_tests::rng::seed(salt);
    eprintln!("{salt}: seed {seed} (replay with DAO_TEST_SEED={seed})");
    let mut rng = dao_tests::rng::Rng::new(seed);
    let mut outputs = Vec::new();
    let mut resumed = 0;
    let mut kills = 0;
    loop {
        assert!(outputs.len() < 8, "{}: no finished run after 8 tries", p.name());
        let mut c = mpirun_cmd(p.np, p.threads, &p.exe(false), &env, p.args);
        let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let pid = child.id() as i32;
        if kills < 2 {
            // after the job's first checkpoint (so that the restart resumes
            // one), at a random time in the rest of the run
            let deadline = Instant::now() + Duration::from_secs(20);
            let has = |r: usize| std::fs::read_dir(ck.join(format!("rank.{r:04}"))).is_ok_and(|d| d.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".dao")));
            while Instant::now() < deadline && !(0..p.np).all(has) {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(full.mul_f64(0.6 * rng.unit()));
            let target = if kill_mpirun { Some(pid) } else { ranks_of(pid).get(rng.below(p.np as u64) as usize).copied() };
            if let Some(t) = target {
                // SAFETY: SIGKILL to a process of this test.
                unsafe { libc::kill(t, libc::SIGKILL) };
                kills += 1;
            }
        }
        // Open MPI 4.1's mpirun now and then stays in a futex wait after a
        // rank's death, its other ranks defunct (not dao's doing; seen
        // once in a few dozen kills): after 60 s it is killed like a hung
        // job would be by its batch system, and the next run goes on
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                eprintln!("{}: mpirun still runs 60 s after the kill: killed", p.name());
                let _ = child.kill();
                wait_gone(&p.exe(false));
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        if kill_mpirun {
            // the orphaned ranks lose their launcher: wait until none runs
            wait_gone(&p.exe(false));
        }
        let done = o.status.success();
        resumed += text(&o.stderr).contains("resuming from") as usize;
        outputs.push(text(&o.stdout));
        if done {
            break;
        }
    }
    // the finishing run prints the end of the clean output (from the
    // checkpoint it resumed); a killed run, a stretch of it
    let c: Vec<&str> = want.lines().collect();
    let last = outputs.pop().unwrap();
    let l: Vec<&str> = last.lines().collect();
    assert!(l.len() <= c.len() && c[c.len() - l.len()..] == l[..], "{}: the finishing run's output is not the end of the clean output\n{last}\n--- clean\n{want}", p.name());
    for o in &outputs {
        let lines: Vec<&str> = o.lines().collect();
        assert!(lines.is_empty() || c.windows(lines.len()).any(|w| w == &lines[..]), "{}: a killed run printed lines that are not the clean output's\n{o}", p.name());
    }
    assert!(kills >= 1, "nothing was killed");
    // kills come after the first checkpoint; but the ranks of a killed
    // mpirun may go on without it (the shared-memory transport needs no
    // launcher), finish the job and mark it finished on some ranks, and
    // the next run then rightly starts fresh
    assert!(kill_mpirun || resumed >= 1, "{}: no run resumed a checkpoint", p.name());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The ranks (children) of an mpirun process.
fn ranks_of(pid: i32) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut v: Vec<i32> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).ok().and_then(|s| s.rsplit(')').next()?.split_whitespace().nth(1)?.parse::<i32>().ok()) == Some(pid))
            .filter(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "prog"))
            .collect();
        v.sort();
        if !v.is_empty() || Instant::now() > deadline {
            return v;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until no process runs `exe`.
fn wait_gone(exe: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let running = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.parse::<i32>().is_ok()))
            .any(|e| std::fs::read_link(e.path().join("exe")).is_ok_and(|p| p == exe));
        if !running {
            return;
        }
        assert!(Instant::now() < deadline, "ranks of a killed mpirun still run after 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const HALO_LONG: Prog = Prog { tool: "mpicc", srcs: &["c/halo_omp.c"], opt: "-O2", np: 4, threads: 2, args: &["600"], every: "25" };

#[test]
fn sigkill_of_one_rank_at_random_times() {
    random_kills(&HALO_LONG, false, "mpi-kill-rank");
}

#[test]
fn sigkill_of_mpirun_at_random_times() {
    random_kills(&HALO_LONG, true, "mpi-kill-mpirun");
}

/// One rank cannot write checkpoint 2 (its temp file's name is taken by a
/// directory, which even root cannot open for writing): version 2 is
/// committed nowhere, the previous one stays current, later ones commit.
#[test]
fn a_write_failure_on_one_rank_commits_the_version_nowhere() {
    let p = &HALO_C;
    let want = p.clean_output();
    let dir = fresh_dir("mpi/write-fails");
    let ck = dir.join("ck");
    let cks = ck.to_str().unwrap();
    std::fs::create_dir_all(ck.join("rank.0001/.ckpt.000002.dao.tmp/blocker")).unwrap();
    let first = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every), ("DAO_CRASH_AFTER", "3"), ("DAO_CRASH_RANK", "0")]);
    let err = text(&first.stderr);
    assert!(!first.status.success(), "{err}");
    assert!(err.contains("checkpoint 2 is not committed on any rank"), "{err}");
    for r in 0..p.np {
        assert!(!ck.join(format!("rank.{r:04}/ckpt.000002.dao")).exists(), "rank {r} committed version 2");
        assert!(ck.join(format!("rank.{r:04}/ckpt.000004.dao")).exists(), "rank {r} committed version 4 (the third commit)");
    }
    let second = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every)]);
    let err = text(&second.stderr);
    assert!(second.status.success(), "{err}");
    assert_eq!(resumed_seqs(&err), vec![4; p.np], "{err}");
    assert_resumed(&want, &text(&first.stdout), &text(&second.stdout), "write failure");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The newest checkpoint of one rank is damaged (or deleted) before the
/// restart: rebuilt from its partner's copy; when the copy is gone too,
/// every rank falls back to the previous version. DAO_PARTNER=sync: the
/// crash comes right after the commit, before an asynchronous copy of the
/// newest version would have reached the holder (the job would then fall
/// back to the previous version, whose copy is complete).
#[test]
fn a_damaged_or_lost_checkpoint_comes_back_from_the_partner_or_the_job_falls_back() {
    let p = &HALO_C;
    let want = p.clean_output();
    for case in ["corrupt", "delete", "delete-both"] {
        let dir = fresh_dir(&format!("mpi/lost-{case}"));
        let ck = dir.join("ck");
        let cks = ck.to_str().unwrap();
        let first = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every), ("DAO_CRASH_AFTER", "3"), ("DAO_CRASH_RANK", "1"), ("DAO_PARTNER", "sync")]);
        assert!(!first.status.success());
        let newest = ck.join("rank.0001/ckpt.000003.dao");
        let copy = ck.join("partner/rank.0001/ckpt.000003.dao");
        assert!(newest.exists() && copy.exists(), "{case}: checkpoint 3 and its partner copy");
        match case {
            "corrupt" => {
                let mut b = std::fs::read(&newest).unwrap();
                let m = b.len() / 2;
                b[m] ^= 0x5a;
                std::fs::write(&newest, b).unwrap();
            }
            "delete" => std::fs::remove_file(&newest).unwrap(),
            _ => {
                std::fs::remove_file(&newest).unwrap();
                std::fs::remove_file(&copy).unwrap();
            }
        }
        let want_seq = if case == "delete-both" { 2 } else { 3 };
        // dao inspect on the job's directory says what the restart will do
        let from = if case == "delete-both" { String::new() } else { " (rank 1 from its partner copy)".to_string() };
        let shown = inspect(&ck, None);
        assert!(shown.contains(&format!("a restart of the job would resume checkpoint {want_seq} on every rank{from}\n")), "{case}: {shown}");
        let second = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every)]);
        let err = text(&second.stderr);
        assert!(second.status.success(), "{case}: {err}");
        assert_eq!(resumed_seqs(&err), vec![want_seq; p.np], "{case}: {err}");
        if case == "delete-both" {
            assert!(err.contains("falling back to checkpoint 2, the newest that every rank can restore"), "{err}");
        } else {
            assert!(err.contains("rank 1: ") && err.contains("rebuilt from the partner copy kept by rank 0"), "{case}: {err}");
        }
        if case == "corrupt" {
            assert!(err.contains("ckpt.000003.dao") && err.contains("not restorable"), "names the damaged file: {err}");
        }
        assert_resumed(&want, &text(&first.stdout), &text(&second.stdout), case);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The third level (DAO_FLUSH_DIR, every DAO_FLUSH_EVERY-th version): the
/// job loses all its node-local storage (every rank's DAO_DIR directory and
/// the partner copies) and resumes from the newest version every rank
/// flushed; a damaged flushed copy on one rank makes the job fall back to
/// the previous flushed version; a job that finished marks its flushed
/// versions finished, so a later job without its DAO_DIR starts fresh.
/// C at 2 ranks x 2 threads, Fortran at 4 ranks.
#[test]
fn lost_node_local_storage_comes_back_from_the_flushed_level() {
    for (p, cases) in [(&HALO_C, &["flushed", "flushed-damaged"][..]), (&HALO_F, &["flushed"][..])] {
        flushed_level(p, cases);
    }
}

fn flushed_level(p: &Prog, cases: &[&str]) {
    let want = p.clean_output();
    for &case in cases {
        let dir = fresh_dir(&format!("mpi/flush-{case}-{}", p.name().replace([' ', '/', '='], "_")));
        let ck = dir.join("ck");
        let shared = dir.join("shared");
        let (cks, shs) = (ck.to_str().unwrap(), shared.to_str().unwrap());
        let env = [("DAO_DIR", cks), ("DAO_EVERY", p.every), ("DAO_FLUSH_DIR", shs), ("DAO_FLUSH_EVERY", "2")];
        let mut crash = env.to_vec();
        crash.extend([("DAO_CRASH_AFTER", "5"), ("DAO_CRASH_RANK", "1")]);
        let first = p.run(&crash);
        assert!(!first.status.success(), "{case}: DAO_CRASH_AFTER=5 on rank 1 must kill the job\n{}", text(&first.stderr));
        for r in 0..p.np {
            let fl = shared.join(format!("rank.{r:04}"));
            let mut names: Vec<String> = std::fs::read_dir(&fl).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| !n.starts_with('.')).collect();
            names.sort();
            assert_eq!(names, ["ckpt.000002.dao", "ckpt.000002.mpi", "ckpt.000004.dao", "ckpt.000004.mpi"], "{case}: rank {r} flushed versions 2 and 4 (every second, the newest two kept)");
        }
        // every node-local file is gone: own checkpoints, partner copies, the job file
        std::fs::remove_dir_all(&ck).unwrap();
        if case == "flushed-damaged" {
            let f = shared.join("rank.0001/ckpt.000004.dao");
            let mut b = std::fs::read(&f).unwrap();
            let m = b.len() / 2;
            b[m] ^= 0x5a;
            std::fs::write(&f, b).unwrap();
        }
        let want_seq = if case == "flushed" { 4 } else { 2 };
        let shown = inspect(&ck, Some(&shared));
        let from: Vec<String> = (0..p.np).map(|r| format!("rank {r} from its flushed copy")).collect();
        assert!(shown.contains(&format!("a restart of the job would resume checkpoint {want_seq} on every rank ({})\n", from.join(", "))), "{case}: {shown}");
        let mut again = env.to_vec();
        again.push(("DAO_DEAD", "poison"));
        let second = p.run(&again);
        let err = text(&second.stderr);
        assert!(second.status.success(), "{case}: {err}");
        assert_eq!(resumed_seqs(&err), vec![want_seq; p.np], "{case}: {err}");
        for r in 0..p.np {
            assert!(err.contains(&format!("rank {r}: ")) && err.contains(&format!("ckpt.{want_seq:06}.dao rebuilt from the flushed copy in")), "{case}: rank {r} says where its checkpoint came from: {err}");
        }
        if case == "flushed-damaged" {
            assert!(err.contains("ckpt.000004.dao") && err.contains("falling back to checkpoint 2"), "{case}: names the fallback: {err}");
        }
        assert_resumed(&want, &text(&first.stdout), &text(&second.stdout), case);
        if case == "flushed" {
            // the job finished: its flushed versions are marked, and a job
            // that lost DAO_DIR again starts fresh instead of resuming them
            for r in 0..p.np {
                assert!(shared.join(format!("rank.{r:04}/finished")).exists(), "rank {r}: flushed versions marked finished");
            }
            let old_max = flushed_max(&shared);
            std::fs::remove_dir_all(&ck).unwrap();
            // a new job (crashing) starts fresh and numbers its versions
            // after the flushed ones, so that they are not covered by the
            // finished marker there; it too loses DAO_DIR and resumes from
            // its own newest flushed version
            let third = p.run(&crash);
            let err = text(&third.stderr);
            assert!(!third.status.success(), "the new job must be killed: {err}");
            assert!(!err.contains("resuming"), "a finished run's flushed checkpoints must not be resumed: {err}");
            let new_max = flushed_max(&shared);
            assert!(new_max > old_max + 2, "the new job's flushed versions ({new_max}) are numbered after the finished job's ({old_max})");
            std::fs::remove_dir_all(&ck).unwrap();
            let fourth = p.run(&env);
            let err = text(&fourth.stderr);
            assert!(fourth.status.success(), "{err}");
            assert_eq!(resumed_seqs(&err), vec![new_max; p.np], "the new job resumes its newest flushed version: {err}");
            assert_resumed(&want, &text(&third.stdout), &text(&fourth.stdout), "the new job");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `dao inspect` of a job's DAO_DIR (text), with its flushed level.
fn inspect(ck: &Path, flush: Option<&Path>) -> String {
    let mut c = Command::new(&tools().dao);
    c.arg("inspect").arg(ck).env_remove("DAO_PARTNER_DIR").env_remove("DAO_FLUSH_DIR");
    if let Some(f) = flush {
        c.arg("--flush-dir").arg(f);
    }
    let o = c.output().expect("run dao inspect");
    assert!(o.status.success(), "dao inspect {}: {}", ck.display(), text(&o.stderr));
    text(&o.stdout)
}

/// The highest version in the flushed directory of rank 0.
fn flushed_max(shared: &Path) -> u64 {
    std::fs::read_dir(shared.join("rank.0000"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().strip_prefix("ckpt.").and_then(|x| x.strip_suffix(".dao")).and_then(|n| n.parse().ok()))
        .max()
        .unwrap_or(0)
}

/// A job that finished keeps its partner copies on another file system
/// (DAO_PARTNER_DIR) and loses every rank's DAO_DIR: the next job must
/// start fresh, not resume the finished run from the copies (each holder
/// marks the copies it holds finished at the end of the run).
#[test]
fn a_finished_job_is_not_resumed_from_partner_copies() {
    let p = &HALO_C;
    let want = p.clean_output();
    let dir = fresh_dir("mpi/finished-partner");
    let (ck, pfs) = (dir.join("ck"), dir.join("pfs"));
    let env = [("DAO_DIR", ck.to_str().unwrap()), ("DAO_EVERY", p.every), ("DAO_PARTNER_DIR", pfs.to_str().unwrap()), ("DAO_PARTNER", "sync")];
    let first = p.run(&env);
    assert!(first.status.success(), "{}", text(&first.stderr));
    for r in 0..p.np {
        assert!(pfs.join(format!("rank.{r:04}/finished")).exists(), "the copies of rank {r} are marked finished");
    }
    std::fs::remove_dir_all(&ck).unwrap();
    let second = p.run(&env);
    let err = text(&second.stderr);
    assert!(second.status.success(), "{err}");
    assert!(!err.contains("resuming"), "a finished run resumed from its partner copies: {err}");
    assert_eq!(text(&second.stdout), want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ranks that reach candidates in different orders: a clear error naming
/// every rank's candidate (no hang, no checkpoint).
#[test]
fn ranks_at_different_candidates_stop_with_a_clear_error() {
    let exe = build("mpicc", &["c/diverge.c"], "-O2", false);
    let clean = mpirun(2, 1, &exe, &[], &[]);
    assert!(clean.status.success(), "{}", text(&clean.stderr));
    let dir = fresh_dir("mpi/diverge");
    let ck = dir.join("ck");
    let o = mpirun(2, 1, &exe, &[("DAO_DIR", ck.to_str().unwrap()), ("DAO_EVERY", "3")], &[]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("the ranks reach different checkpoint candidates"), "{err}");
    assert!(err.contains("rank 0 at phase_a") && err.contains("rank 1 at phase_b"), "names each rank's candidate: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A restart with another number of ranks is refused, naming both.
#[test]
fn a_restart_with_another_rank_count_is_refused() {
    let p = &HALO_C;
    let dir = fresh_dir("mpi/rank-count");
    let ck = dir.join("ck");
    let cks = ck.to_str().unwrap();
    let first = p.run(&[("DAO_DIR", cks), ("DAO_EVERY", p.every), ("DAO_CRASH_AFTER", "1")]);
    assert!(!first.status.success());
    let o = mpirun(4, 1, &p.exe(false), &[("DAO_DIR", cks)], p.args);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("holds the checkpoints of a job of 2 ranks; this job has 4"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dao run -- mpirun ...` restarts the job whenever a rank is killed
/// (mpirun then exits with 137), until it finishes.
#[test]
fn dao_run_restarts_an_mpirun_job() {
    let p = &HALO_C;
    let want = p.clean_output();
    let dir = fresh_dir("mpi/dao-run");
    let ck = dir.join("ck");
    let mut c = Command::new(&tools().dao);
    c.args(["run", "--retries", "20", "--dir"]).arg(&ck).arg("--");
    let m = mpirun_cmd(p.np, p.threads, &p.exe(false), &[("DAO_EVERY", p.every), ("DAO_CRASH_AFTER", "4"), ("DAO_CRASH_RANK", "1")], p.args);
    c.arg(m.get_program()).args(m.get_args());
    for (k, v) in m.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let o = c.output().unwrap();
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.matches("restarting (").count() >= 2, "{err}");
    let last = |s: &str| s.lines().last().map(str::to_string);
    assert_eq!(last(&text(&o.stdout)), last(&want), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The NPB CG port to MPI + OpenMP (npb-ports/cg-mpi), class S and W,
/// verified after a kill and restart.
#[test]
fn npb_cg_mpi_verifies_after_a_restart() {
    for (class, np, threads, every) in [("S", 2, 2, "4"), ("W", 4, 1, "5")] {
        let p = Prog { tool: "mpicc", srcs: &["npb-ports/cg-mpi/cg_mpi.c", "npb-ports/common/npb_common.c"], opt: "-O2", np, threads, args: if class == "S" { &["S"] } else { &["W"] }, every };
        let want = p.clean_output();
        assert!(want.contains("Verification: SUCCESSFUL"), "{want}");
        crash_on_one_rank(&p, "DAO_CRASH_AFTER", "2", np - 1, 2);
    }
}

/// A clear error naming Open MPI's wrapper when it cannot be asked.
#[test]
fn missing_open_mpi_wrapper_is_a_clear_error() {
    let o = Command::new(&tools().dao).args(["mpicc", "-c", "x.c"]).env("PATH", "/nonexistent").output().unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("mpicc --showme:compile") && e.contains("openmpi-bin"), "{e}");
}
