//! The crash/restart procedure run for every program of the table at -O0
//! and -O2. All scenarios of a case run even after one fails; the test then
//! fails listing every failure (outputs stay under `tests/out/<case>-<opt>/`).
//!
//! - (0) clean build (`--dao-no-pass`) run: the reference output;
//!   instrumented uninterrupted run with DAO_EVERY: same output, several
//!   checkpoints actually written (counted in DAO_STATS), no "resuming";
//! - (a) DAO_CRASH_AFTER=k (dies by SIGKILL after its k-th checkpoint), then
//!   a restart with the same DAO_DIR, stdout appended to the same file:
//!   the file equals the reference, and the restart says `dao: resuming`;
//! - (b) DAO_CRASH_IN=k (dies while writing checkpoint k), restart (falls
//!   back to checkpoint k-1): same comparison;
//! - (c) SIGKILL from outside at random times (seeded; the seed is printed)
//!   after the first checkpoint file exists (`ckpt.*.dao`, or `store.*.dst`
//!   with DAO_STORE=engine), with frequent checkpoints;
//! - (d) DAO_CRASH_AFTER=1, restart with DAO_CRASH_AFTER=1 again, restart:
//!   same comparison.
//!
//! Every run has DAO_DEAD=poison: a restart fills the globals its
//! checkpoint does not hold (dead at every saved position) with 0xff bytes,
//! so a wrong kill shows in the output.
//!
//! [`check`] runs a row of the test-programs table ([`Case`]); [`check_plan`]
//! runs the same scenarios for any program already built, with an
//! environment for every run (e.g. `OMP_NUM_THREADS`), lines the comparison
//! leaves out (timings) and lines the clean output must contain (e.g. a
//! verification verdict) -- the NPB tests use it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::build::{build, Lang, Opt, Variant};
use crate::paths::fresh_dir;
use crate::process::{self, compare_outputs_filtered, Finished, RunSpec};
use crate::rng::{self, Rng};

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// File stem in test-programs/c or test-programs/fortran.
    pub name: &'static str,
    pub lang: Lang,
    /// Program arguments (the work scale; small enough for ~0.1 s at -O2).
    pub args: &'static [&'static str],
    /// DAO_EVERY for (0), (a), (b), (d): every n-th candidate checkpoints.
    /// Chosen so that the run writes about a dozen checkpoints.
    pub every: u64,
    /// (a): DAO_CRASH_AFTER values; each must be <= the checkpoint count.
    pub crash_after: &'static [u64],
    /// (b): DAO_CRASH_IN values (>= 2 so that there is a checkpoint to fall back to).
    pub crash_in: &'static [u64],
}

/// A built program (clean and instrumented) and how to run and judge it:
/// what [`check_plan`] needs. [`check`] makes one from a [`Case`].
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    /// Names the program in messages (e.g. `grid3d O2`, `cg.S O3 t=2`) and
    /// salts the random-kill seed.
    pub label: String,
    /// Where the run outputs go (a fresh directory: each run's files are
    /// replaced, nothing else is removed; it may hold the builds).
    pub dir: PathBuf,
    /// The clean build (`--dao-no-pass`): the reference.
    pub clean: PathBuf,
    /// The instrumented build.
    pub inst: PathBuf,
    pub args: &'a [&'a str],
    /// Set for every run, the clean one included (e.g. `OMP_NUM_THREADS`).
    pub env: Vec<(&'static str, String)>,
    /// As in [`Case`].
    pub every: u64,
    pub crash_after: &'a [u64],
    pub crash_in: &'a [u64],
    /// Lines starting with one of these are left out of every comparison
    /// (in the reference and in the output), e.g. timings.
    pub drop_lines: &'a [&'a str],
    /// Whole lines the clean output must contain (e.g. a verification
    /// verdict), so a reference that is itself wrong fails the test.
    pub reference_lines: Vec<String>,
    /// The number of checkpoints is the same in every run (true but for
    /// the storage engine's DAO_ASYNC=skip, which skips a candidate while a
    /// flush runs): the final run of a crash scenario must write exactly
    /// the checkpoints the uninterrupted run wrote after its resume point.
    pub exact_count: bool,
}

const SIGKILL: i32 = 9;
/// Independent random kills per case and optimisation level.
const RANDOM_KILLS: usize = 3;

struct Ctx<'a> {
    plan: &'a Plan<'a>,
    dir: PathBuf,
    inst: PathBuf,
    reference: PathBuf,
    limit: Duration,
    inst_elapsed: Duration,
    /// Checkpoints written by the uninterrupted run.
    n_ckpt: u64,
    failures: Vec<String>,
    /// Set by `random_restart` when the killed run had finished first.
    retry: bool,
}

impl Ctx<'_> {
    fn spec(&self, tag: &str, run: usize, ckdir: &Path, out: &Path, extra: &[(&'static str, String)]) -> RunSpec<'_> {
        // DAO_DEAD=poison: a restart fills the globals the checkpoint does
        // not hold with 0xff, so a global wrongly found dead changes the
        // output instead of keeping a start-up value that happens to be
        // right (a plan's env may set keep).
        let mut env = vec![("DAO_DIR", ckdir.display().to_string()), ("DAO_DEAD", "poison".to_string())];
        env.extend(self.plan.env.iter().cloned());
        env.extend(extra.iter().cloned());
        RunSpec {
            exe: &self.inst,
            args: self.plan.args,
            env,
            stdout_append: out.to_path_buf(),
            stderr: self.dir.join(format!("{tag}.run{run}.stderr")),
        }
    }

    fn fail(&mut self, scenario: &str, msg: impl std::fmt::Display) {
        self.failures.push(format!("[{}] {scenario}: {msg}", self.plan.label));
    }

    /// `out` against the reference, leaving out the plan's `drop_lines`.
    fn compare(&self, out: &Path) -> Result<(), String> {
        compare_outputs_filtered(&self.reference, out, self.plan.drop_lines)
    }

    /// Runs that must be killed by SIGKILL, then a final run that must end
    /// normally; the appended output must equal the reference.
    /// `crash_envs[i]` is the extra environment of killed run i.
    /// `resume_seqs[j]` is the checkpoint run j+2 must resume from (None: it
    /// must start from the beginning). Each resumed run must say
    /// `dao: resuming` and record a restart from exactly that checkpoint in
    /// DAO_STATS; the final run must then write exactly the checkpoints the
    /// uninterrupted run wrote after it -- so a runtime that silently started
    /// over (and truncated the output) cannot pass.
    fn crash_then_resume(&mut self, tag: &str, crash_envs: &[Vec<(&'static str, String)>], resume_seqs: &[Option<u64>]) {
        let before = self.failures.len();
        self.crash_then_resume_runs(tag, crash_envs, resume_seqs);
        self.tidy(before, &self.dir.join(format!("{tag}.ckpt")));
    }

    /// A passed scenario's checkpoint directory is removed (its stdout,
    /// stderr and stats files stay): a whole suite's checkpoints are tens
    /// of GB (NPB class W alone 12 GB) and filled CI's disk. A failed one's
    /// stays for inspection; `DAO_TEST_KEEP=1` keeps them all.
    fn tidy(&self, failures_before: usize, ck: &Path) {
        if self.failures.len() == failures_before {
            remove_checkpoints(ck);
        }
    }

    fn crash_then_resume_runs(&mut self, tag: &str, crash_envs: &[Vec<(&'static str, String)>], resume_seqs: &[Option<u64>]) {
        assert_eq!(crash_envs.len(), resume_seqs.len(), "one resume point per restart");
        let ck = self.dir.join(format!("{tag}.ckpt"));
        let out = self.dir.join(format!("{tag}.stdout"));
        let _ = std::fs::remove_dir_all(&ck);
        let _ = std::fs::remove_file(&out);
        let every = ("DAO_EVERY", self.plan.every.to_string());
        let n = crash_envs.len() + 1;
        for run in 1..=n {
            let stats = self.dir.join(format!("{tag}.run{run}.stats"));
            let _ = std::fs::remove_file(&stats);
            let mut env = vec![every.clone(), ("DAO_STATS", stats.display().to_string())];
            if run < n {
                env.extend(crash_envs[run - 1].iter().cloned());
            }
            let spec = self.spec(tag, run, &ck, &out, &env);
            let r = match process::run(&spec, self.limit) {
                Err(e) => return self.fail(tag, e),
                Ok(r) => r,
            };
            if run < n && !r.killed_by(SIGKILL) {
                let extra = &crash_envs[run - 1];
                return self.fail(tag, format!("run {run} with {extra:?} should die by SIGKILL but {}", r.describe()));
            }
            if run == n && !r.status.success() {
                return self.fail(tag, format!("the final restart (run {run}) failed: {}", r.describe()));
            }
            if run > 1 {
                let expect = resume_seqs[run - 2];
                let restarts = restart_seqs(&stats);
                match expect {
                    Some(seq) => {
                        if !r.stderr.contains("dao: resuming") {
                            return self.fail(tag, format!("run {run} did not print `dao: resuming` (did it start over?): {}", r.describe()));
                        }
                        if restarts != [seq] {
                            return self.fail(tag, format!("run {run} should resume from checkpoint {seq}; DAO_STATS restart events: {restarts:?} ({})", stats.display()));
                        }
                    }
                    None => {
                        if !restarts.is_empty() || r.stderr.contains("dao: resuming") {
                            return self.fail(tag, format!("run {run} should start from the beginning but resumed ({restarts:?}): {}", r.describe()));
                        }
                    }
                }
                if run == n && self.plan.exact_count {
                    let written = count_events(&stats, "checkpoint") as u64;
                    let want = self.n_ckpt - expect.unwrap_or(0);
                    if written != want {
                        return self.fail(
                            tag,
                            format!("the final run wrote {written} checkpoints; resuming after checkpoint {} of {} it should write {want} ({})", expect.unwrap_or(0), self.n_ckpt, stats.display()),
                        );
                    }
                }
            }
        }
        if let Err(e) = self.compare(&out) {
            self.fail(tag, e)
        }
    }

    /// (c): kill from outside at a random time after the first checkpoint,
    /// `RANDOM_KILLS` times with delays drawn from one seeded RNG.
    fn random_kills(&mut self) {
        let seed = rng::seed(&self.plan.label);
        eprintln!("[{}] random kill: seed {seed} (replay with DAO_TEST_SEED={seed})", self.plan.label);
        let mut rng = Rng::new(seed);
        for trial in 1..=RANDOM_KILLS {
            self.random_kill(seed, trial, &mut rng);
        }
    }

    fn random_kill(&mut self, seed: u64, trial: usize, rng: &mut Rng) {
        // Frequent checkpoints: four times as often as the other scenarios.
        let every = (self.plan.every / 4).max(1);
        let mut budget = self.inst_elapsed.as_secs_f64() * 0.6;
        for attempt in 1..=4 {
            let tag = format!("random{trial}.{attempt}");
            let ck = self.dir.join(format!("{tag}.ckpt"));
            let out = self.dir.join(format!("{tag}.stdout"));
            let _ = std::fs::remove_dir_all(&ck);
            let _ = std::fs::remove_file(&out);
            let env = [("DAO_EVERY", every.to_string())];
            let spec = self.spec(&tag, 1, &ck, &out, &env);
            let (mut child, start) = process::spawn(&spec);
            // Wait for the first committed checkpoint file.
            let mut exited = None;
            while exited.is_none() && !has_checkpoint(&ck) {
                if start.elapsed() > self.limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    return self.fail("random-kill", "no checkpoint file appeared before the time limit");
                }
                exited = child.try_wait().ok().flatten();
                std::thread::sleep(Duration::from_millis(1));
            }
            if let Some(st) = exited {
                return self.fail("random-kill", format!("the program ended ({st}) before writing a checkpoint file"));
            }
            let delay = Duration::from_secs_f64(rng.unit() * budget);
            let t0 = Instant::now();
            while t0.elapsed() < delay && exited.is_none() {
                exited = child.try_wait().ok().flatten();
                std::thread::sleep(Duration::from_millis(1));
            }
            if exited.is_none() {
                let _ = child.kill(); // SIGKILL
            }
            let r = match process::wait(child, start, &spec, self.limit) {
                Ok(r) => r,
                Err(e) => return self.fail("random-kill", e),
            };
            let before = self.failures.len();
            self.random_restart(seed, trial, delay, &tag, &ck, &out, &env, r);
            if self.failures.len() == before && self.retry {
                self.retry = false;
                budget /= 2.0;
                remove_checkpoints(&ck);
                continue;
            }
            return self.tidy(before, &ck);
        }
        self.fail("random-kill", format!("seed {seed}: the program always finished before the kill"));
    }

    /// After the killed run `r` of a random-kill attempt: the restart and
    /// the comparison. Sets `self.retry` when the run finished before the
    /// kill (the attempt is repeated with a shorter delay).
    #[allow(clippy::too_many_arguments)]
    fn random_restart(&mut self, seed: u64, trial: usize, delay: Duration, tag: &str, ck: &Path, out: &Path, env: &[(&'static str, String)], r: Finished) {
        // A kill that lands in the exit path after the run marked itself
        // finished (DAO_DIR/finished) kills a run whose work is done: its
        // checkpoints are not resumed by design, so this is a run that
        // finished before the kill, not a restart to check.
        let finished_first = r.killed_by(SIGKILL) && ck.join("finished").exists();
        if !r.killed_by(SIGKILL) || finished_first {
            if r.status.success() || finished_first {
                // Finished before the kill: try again, sooner.
                eprintln!("[{}] random kill: finished before the kill at +{delay:?}; retrying", self.plan.label);
                self.retry = true;
                return;
            }
            return self.fail("random-kill", format!("seed {seed}: the run failed before the kill: {}", r.describe()));
        }
        let spec = self.spec(tag, 2, ck, out, env);
        match process::run(&spec, self.limit) {
            Err(e) => self.fail("random-kill", format!("seed {seed}: {e}")),
            Ok(r) if !r.status.success() => self.fail("random-kill", format!("seed {seed}: the restart failed: {}", r.describe())),
            Ok(r) if !r.stderr.contains("dao: resuming") => self.fail(
                "random-kill",
                format!("seed {seed}: a checkpoint file existed but the restart did not print `dao: resuming`: {}", r.describe()),
            ),
            Ok(_) => {
                if let Err(e) = self.compare(out) {
                    self.fail("random-kill", format!("seed {seed} trial {trial}, killed {delay:?} after the first checkpoint: {e}"))
                }
            }
        }
    }
}

/// Removes a checkpoint directory unless `DAO_TEST_KEEP` is set (not 0).
fn remove_checkpoints(ck: &Path) {
    if std::env::var_os("DAO_TEST_KEEP").map_or(true, |v| v.is_empty() || v == "0") {
        let _ = std::fs::remove_dir_all(ck);
    }
}

fn has_checkpoint(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()).any(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                (n.starts_with("ckpt.") && n.ends_with(".dao")) || (n.starts_with("store.") && n.ends_with(".dst"))
            })
        })
        .unwrap_or(false)
}

/// The `seq` of every `"event":"restart"` line of a DAO_STATS file.
fn restart_seqs(stats: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(stats).unwrap_or_default();
    text.lines()
        .filter(|l| l.contains("\"event\":\"restart\""))
        .filter_map(|l| {
            let rest = &l[l.find("\"seq\":")? + 6..];
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            rest[..end].parse().ok()
        })
        .collect()
}

fn count_events(stats: &Path, event: &str) -> usize {
    let needle = format!("\"event\":\"{event}\"");
    std::fs::read_to_string(stats).map(|s| s.lines().filter(|l| l.contains(&needle)).count()).unwrap_or(0)
}

/// Build `case` at `opt` and run every scenario. Panics listing all failures.
pub fn check(case: &Case, opt: Opt) {
    let dir = fresh_dir(&format!("{}-{}", case.name, opt.name()));
    let src = case.lang.source(case.name);
    let clean = build(case.lang, &src, opt, Variant::Clean, &dir).unwrap_or_else(|e| panic!("clean build: {e}"));
    let inst = build(case.lang, &src, opt, Variant::Instrumented, &dir).unwrap_or_else(|e| panic!("instrumented build: {e}"));
    check_plan(&Plan {
        label: format!("{} {}", case.name, opt.name()),
        dir,
        clean,
        inst,
        args: case.args,
        env: vec![],
        every: case.every,
        crash_after: case.crash_after,
        crash_in: case.crash_in,
        drop_lines: &[],
        reference_lines: vec![],
        exact_count: true,
    });
}

/// Run every scenario for a built program. Panics listing all failures.
/// `plan.dir` may hold the builds (as `check`'s does): only run outputs are
/// removed from it.
pub fn check_plan(plan: &Plan) {
    let dir = plan.dir.clone();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let label = &plan.label;

    // The reference.
    let reference = dir.join("clean.stdout");
    let _ = std::fs::remove_file(&reference);
    let spec = RunSpec {
        exe: &plan.clean,
        args: plan.args,
        env: plan.env.clone(),
        stdout_append: reference.clone(),
        stderr: dir.join("clean.stderr"),
    };
    let r = process::run(&spec, Duration::from_secs(120)).unwrap_or_else(|e| panic!("[{label}] clean run: {e}"));
    assert!(r.status.success(), "[{label}] clean run failed: {}", r.describe());
    let text = std::fs::read_to_string(&reference).unwrap_or_default();
    for want in &plan.reference_lines {
        assert!(
            text.lines().any(|l| l == want),
            "[{label}] the clean run's output ({}) has no line `{want}`",
            reference.display()
        );
    }
    let limit = Duration::from_secs(60).max(r.elapsed * 40);

    // Uninterrupted instrumented run.
    let ck = dir.join("uninterrupted.ckpt");
    let out = dir.join("uninterrupted.stdout");
    let stats = dir.join("uninterrupted.stats");
    let _ = std::fs::remove_dir_all(&ck);
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&stats);
    let mut env = vec![
        ("DAO_DIR", ck.display().to_string()),
        ("DAO_EVERY", plan.every.to_string()),
        ("DAO_STATS", stats.display().to_string()),
    ];
    env.extend(plan.env.iter().cloned());
    let spec = RunSpec {
        exe: &plan.inst,
        args: plan.args,
        env,
        stdout_append: out.clone(),
        stderr: dir.join("uninterrupted.stderr"),
    };
    let r: Finished = process::run(&spec, limit).unwrap_or_else(|e| panic!("[{label}] instrumented run: {e}"));
    assert!(r.status.success(), "[{label}] instrumented uninterrupted run failed: {}", r.describe());
    assert!(!r.stderr.contains("dao: resuming"), "[{label}] a run with a fresh DAO_DIR resumed: {}", r.describe());
    if let Err(e) = compare_outputs_filtered(&reference, &out, plan.drop_lines) {
        panic!("[{label}] instrumented uninterrupted run: {e}");
    }
    let n_ckpt = count_events(&stats, "checkpoint") as u64;
    let need = plan.crash_after.iter().chain(plan.crash_in).copied().max().unwrap_or(0).max(2);
    assert!(
        n_ckpt >= need,
        "[{label}] the uninterrupted run wrote {n_ckpt} checkpoints (DAO_STATS {}), the table needs at least {need}: \
         lower DAO_EVERY or the crash points",
        stats.display()
    );

    let mut cx = Ctx { plan, dir, inst: plan.inst.clone(), reference, limit, inst_elapsed: r.elapsed, n_ckpt, failures: vec![], retry: false };
    remove_checkpoints(&ck);
    for &k in plan.crash_after {
        cx.crash_then_resume(&format!("crash-after-{k}"), &[vec![("DAO_CRASH_AFTER", k.to_string())]], &[Some(k)]);
    }
    for &k in plan.crash_in {
        // Dies while writing checkpoint k: the restart falls back to k-1.
        let from = if k >= 2 { Some(k - 1) } else { None };
        cx.crash_then_resume(&format!("crash-in-{k}"), &[vec![("DAO_CRASH_IN", k.to_string())]], &[from]);
    }
    cx.random_kills();
    // DAO_CRASH_AFTER counts the checkpoints of one process: the second run
    // resumes from 1 and dies after writing 2.
    cx.crash_then_resume(
        "crash-twice",
        &[vec![("DAO_CRASH_AFTER", "1".into())], vec![("DAO_CRASH_AFTER", "1".into())]],
        &[Some(1), Some(2)],
    );
    if !cx.failures.is_empty() {
        panic!("{} failure(s) ({} checkpoints in the uninterrupted run):\n{}", cx.failures.len(), n_ckpt, cx.failures.join("\n"));
    }
}
