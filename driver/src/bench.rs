//! `dao bench`: the NPB harness. For each benchmark x class x thread count it
//! measures, side by side in one run, what the DAO paper's evaluation
//! reports (Fu, Ding, Song, Yang: "DAO: application-level checkpointing of
//! OpenMP programs by extended data-flow analysis", Chinese Journal of
//! Computers, 2010, tables 2-4) and prints our
//! numbers beside the paper's ALC and C3 figures.
//!
//! Per benchmark x class, two builds (reused for every thread count), with
//! the sources and flags of `tests/tests/npb.rs` / the ports' Makefiles:
//! clean `dao cc --dao-no-pass -O3 -fopenmp -DCLASS_X -I<npb>/common SRC -lm`
//! and instrumented `dao cc -O3 -fopenmp ...`.
//!
//! Per row (benchmark, class, threads), with `OMP_NUM_THREADS=threads`:
//! - **clean** and **instrumented** (no `DAO_DIR`): `reps` interleaved runs
//!   each; the benchmark's own ` Time in seconds =` (median) and the wall
//!   time of the process (median); every run must print
//!   ` Verification    =               SUCCESSFUL`.
//! - **candidate**: one counting run with `DAO_EVERY=16` gives c checkpoints,
//!   so the run reaches N in [16c, 16c+15] candidates; we take k = 8c+8, the
//!   middle of the run, with k <= N < 2k (exactly one checkpoint with
//!   `DAO_EVERY=k`). When c = 0 (fewer than 16 candidates) a second counting
//!   run with `DAO_EVERY=1` gives N exactly and k = N/2+1. For the NPB ports
//!   the middle candidate lies inside the main (timed) iteration loop; its
//!   source location (`at` of DAO_STATS) is reported.
//! - **ALC(0)**: `reps` runs with `DAO_EVERY=k`, a fresh `DAO_DIR` and
//!   `DAO_STATS`: save time = the time the program stood still for the
//!   checkpoint (background, the default: `background.pause_s + wait_s`;
//!   `DAO_ASYNC=off`: collect_s + write_s) (median), file_bytes,
//!   rss_bytes; and the run's benchmark time minus the clean one.
//! - **ALC(1)**: `reps` times: the same run with `DAO_CRASH_AFTER=1` (killed
//!   right after the checkpoint is committed), then restarted in the same
//!   directory. Recovery overhead = wall(killed run) + wall(restarted run) -
//!   wall(clean run, median): the paper's definition (time lost to one
//!   failure and one restart from the checkpoint), on process wall times so
//!   that start-up costs cancel. restore_s from the restart's DAO_STATS line;
//!   the restarted run must verify.
//! - **reference sizes**: one run with `DAO_SAVE=all` at the same candidate
//!   (the save-everything baseline, the role C3 plays in the paper), and
//!   rss_bytes at the candidate.
//!
//! Percentages are relative to the clean run's benchmark time (` Time in
//! seconds`, as the paper's "run time"), except the recovery overhead, which
//! is a difference of wall times and is relative to the clean run's wall
//! time (median). Outputs: JSON (all raw numbers), markdown
//! (tables in the shape of the paper's), two SVG bar charts in the output
//! directory (`bench_sizes.svg`: image sizes, dao vs save-all vs RSS;
//! `bench_overhead.svg`: save and restart overhead; see `plots`), one
//! progress line per step on stderr.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

/// Benchmarks we know how to build: name, sources relative to npb-ports/.
pub const BENCHES: &[(&str, &[&str])] = &[
    ("cg", &["cg/cg.c", "common/npb_common.c"]),
    ("mg", &["mg/mg.c", "common/npb_common.c"]),
    ("ft", &["ft/ft.c"]),
    ("bt", &["bt/bt.c"]),
];

/// The counting run's DAO_EVERY (see the module comment).
const COUNT_EVERY: u64 = 16;

const VERIFIED_LINE: &str = " Verification    =               SUCCESSFUL";

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot find the NPB ports (looked for npb-ports/cg/cg.c in: {looked}); give --npb-dir <repo>/npb-ports")]
    NpbNotFound { looked: String },

    #[error("building {what} failed (`{command}` {status}):\n{output}")]
    Build { what: String, command: String, status: String, output: String },

    #[error("cannot run `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },

    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },

    #[error("{label}: {what} (output in {log})")]
    Run { label: String, what: String, log: PathBuf },

    #[error("verification failed in {0} (results written anyway)")]
    Unverified(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io { path: path.to_path_buf(), source }
}

pub struct BenchRequest {
    pub benches: Vec<String>,
    pub classes: Vec<char>,
    pub threads: Vec<u32>,
    pub reps: u32,
    pub out: PathBuf,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub npb_dir: Option<PathBuf>,
}

/// Where npb-ports/ is: --npb-dir, ./npb-ports, or the repository that holds
/// this executable (cargo layout, target/<profile>/dao).
fn find_npb(given: Option<&Path>) -> Result<PathBuf, BenchError> {
    let ok = |p: &Path| p.join("cg/cg.c").is_file();
    let mut looked = vec![];
    if let Some(p) = given {
        if ok(p) {
            return Ok(p.to_path_buf());
        }
        return Err(BenchError::NpbNotFound { looked: p.display().to_string() });
    }
    let mut cands = vec![PathBuf::from("npb-ports")];
    if let Ok(exe) = std::env::current_exe() {
        let exe = exe.canonicalize().unwrap_or(exe);
        cands.extend(exe.ancestors().skip(1).take(4).map(|a| a.join("npb-ports")));
    }
    for c in cands {
        if ok(&c) {
            return Ok(std::path::absolute(&c).unwrap_or(c));
        }
        looked.push(c.display().to_string());
    }
    Err(BenchError::NpbNotFound { looked: looked.join(", ") })
}

/// Progress on stderr: `[i/n] cg.S t=2 step`; overwritten in place on a terminal.
struct Progress {
    tty: bool,
    total: usize,
}

impl Progress {
    fn step(&self, i: usize, label: &str, what: &str) {
        if self.tty {
            eprint!("\r\x1b[2K[{}/{}] {label} {what}", i + 1, self.total);
        } else {
            eprintln!("[{}/{}] {label} {what}", i + 1, self.total);
        }
    }
    fn done(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

/// One finished run of a program.
#[derive(Debug)]
struct RunOut {
    wall_s: f64,
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    log: PathBuf,
}

impl RunOut {
    fn bench_s(&self) -> Option<f64> {
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix(" Time in seconds ="))
            .and_then(|v| v.trim().parse().ok())
    }
    fn verified(&self) -> bool {
        self.stdout.lines().any(|l| l.trim_end() == VERIFIED_LINE)
    }
}

/// Run `exe` with OMP_NUM_THREADS and `env` (every other DAO_* variable
/// removed); stdout and stderr are kept in `log`.out / `log`.err.
fn run_prog(exe: &Path, threads: u32, env: &[(&str, String)], log: &Path) -> Result<RunOut, BenchError> {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new(exe);
    for k in crate::env::dao_names() {
        cmd.env_remove(k);
    }
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let t0 = Instant::now();
    let out = cmd
        .output()
        .map_err(|source| BenchError::Spawn { program: exe.display().to_string(), source })?;
    let wall_s = t0.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let with = |ext: &str| PathBuf::from(format!("{}.{ext}", log.display()));
    let o = with("out");
    std::fs::write(&o, &stdout).map_err(io(&o))?;
    let e = with("err");
    std::fs::write(&e, &stderr).map_err(io(&e))?;
    Ok(RunOut { wall_s, code: out.status.code(), signal: out.status.signal(), stdout, stderr, log: o })
}

fn fresh(dir: &Path) -> Result<(), BenchError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(io(dir))
}

/// The DAO_STATS lines of `event` in `path` (none when the file is missing).
fn stats(path: &Path, event: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

fn num(v: &Value, key: &str) -> f64 {
    v.pointer(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    100.0 * part / whole
}

/// Build the clean or instrumented binary with this very `dao`.
fn build(npb: &Path, bench: &str, class: char, clean: bool, dir: &Path) -> Result<PathBuf, BenchError> {
    let sources = BENCHES.iter().find(|(n, _)| *n == bench).map(|(_, s)| *s).unwrap_or(&[]);
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let exe = dir.join(if clean { "clean" } else { "inst" });
    let _ = std::fs::remove_file(&exe);
    let dao = std::env::current_exe().map_err(|source| BenchError::Spawn { program: "dao".into(), source })?;
    let mut cmd = Command::new(&dao);
    cmd.arg("cc");
    if clean {
        cmd.arg("--dao-no-pass");
    }
    cmd.args(["-O3", "-fopenmp"])
        .arg(format!("-DCLASS_{class}"))
        .arg(format!("-I{}", npb.join("common").display()));
    for s in sources {
        cmd.arg(npb.join(s));
    }
    cmd.arg("-o").arg(&exe).arg("-lm").current_dir(dir);
    let command = format!("{cmd:?}");
    let out = cmd.output().map_err(|source| BenchError::Spawn { program: dao.display().to_string(), source })?;
    if !out.status.success() || !exe.is_file() {
        return Err(BenchError::Build {
            what: format!("{bench}.{class} ({})", if clean { "clean" } else { "instrumented" }),
            command,
            status: out.status.to_string(),
            output: format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
        });
    }
    Ok(exe)
}

/// The chosen candidate of one benchmark x class.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    k: u64,
    n_lo: u64,
    n_hi: u64,
}

fn count_candidates(exe: &Path, threads: u32, dir: &Path, label: &str) -> Result<Candidate, BenchError> {
    for every in [COUNT_EVERY, 1] {
        let ck = dir.join(format!("count{every}.ckpt"));
        fresh(&ck)?;
        let st = dir.join(format!("count{every}.stats"));
        let _ = std::fs::remove_file(&st);
        let r = run_prog(
            exe,
            threads,
            &[
                ("DAO_DIR", ck.display().to_string()),
                ("DAO_EVERY", every.to_string()),
                ("DAO_STATS", st.display().to_string()),
            ],
            &dir.join(format!("count{every}")),
        )?;
        let _ = std::fs::remove_dir_all(&ck);
        if r.code != Some(0) {
            return Err(BenchError::Run {
                label: label.into(),
                what: format!("counting run (DAO_EVERY={every}) ended with {:?}/{:?}", r.code, r.signal),
                log: r.log,
            });
        }
        let c = stats(&st, "checkpoint").len() as u64;
        if c == 0 && every > 1 {
            continue;
        }
        if c == 0 {
            return Err(BenchError::Run { label: label.into(), what: "the program reaches no checkpoint candidate".into(), log: r.log });
        }
        let (n_lo, n_hi) = (every * c, every * c + every - 1);
        return Ok(Candidate { k: n_hi / 2 + 1, n_lo, n_hi });
    }
    unreachable!()
}

/// All numbers of one row.
#[derive(Debug, Default)]
struct Row {
    bench: String,
    class: char,
    threads: u32,
    clean: Vec<(f64, f64, bool)>,
    inst: Vec<(f64, f64, bool)>,
    cand: Option<Candidate>,
    // ALC(0), per rep: bench_s, wall_s, collect_s, write_s, file_bytes, rss,
    // verified, stop_s (the program stood still: collect + write when
    // synchronous, the background pause + wait otherwise)
    alc0: Vec<(f64, f64, f64, f64, f64, f64, bool, f64)>,
    at: String,
    live_bytes: Value,
    // ALC(1), per rep: killed wall, restart wall, restart bench_s, restore_s, verified
    alc1: Vec<(f64, f64, f64, f64, bool)>,
    all_file_bytes: f64,
    all_rss: f64,
    all_bytes: Value,
}

fn med<T>(v: &[T], f: impl Fn(&T) -> f64) -> f64 {
    median(&v.iter().map(f).collect::<Vec<_>>())
}

impl Row {
    fn label(&self) -> String {
        format!("{}.{} t={}", self.bench, self.class, self.threads)
    }
    fn clean_s(&self) -> f64 {
        med(&self.clean, |r| r.0)
    }
    fn clean_wall(&self) -> f64 {
        med(&self.clean, |r| r.1)
    }
    fn save_s(&self) -> f64 {
        med(&self.alc0, |r| r.7)
    }
    fn recovery_s(&self) -> f64 {
        let cw = self.clean_wall();
        med(&self.alc1, |r| r.0 + r.1 - cw)
    }
    fn all_verified(&self) -> bool {
        self.clean.iter().all(|r| r.2) && self.inst.iter().all(|r| r.2) && self.alc0.iter().all(|r| r.6) && self.alc1.iter().all(|r| r.4)
    }

    fn to_json(&self) -> Value {
        let c = self.cand.unwrap_or(Candidate { k: 0, n_lo: 0, n_hi: 0 });
        let clean_s = self.clean_s();
        let inst_s = med(&self.inst, |r| r.0);
        let alc0_s = med(&self.alc0, |r| r.0);
        let live = med(&self.alc0, |r| r.4);
        json!({
            "bench": self.bench, "class": self.class.to_string(), "threads": self.threads,
            "reps": self.clean.len(),
            "clean_s": clean_s, "clean_wall_s": self.clean_wall(),
            "clean_runs_s": self.clean.iter().map(|r| r.0).collect::<Vec<_>>(),
            "clean_verified": self.clean.iter().all(|r| r.2),
            "inst_s": inst_s, "inst_wall_s": med(&self.inst, |r| r.1),
            "inst_runs_s": self.inst.iter().map(|r| r.0).collect::<Vec<_>>(),
            "inst_verified": self.inst.iter().all(|r| r.2),
            "inst_overhead_pct": pct(inst_s - clean_s, clean_s),
            "candidate_k": c.k, "candidates_min": c.n_lo, "candidates_max": c.n_hi,
            "candidate_at": self.at,
            "alc0_s": alc0_s, "alc0_wall_s": med(&self.alc0, |r| r.1),
            "alc0_minus_clean_s": alc0_s - clean_s,
            "alc0_minus_clean_pct": pct(alc0_s - clean_s, clean_s),
            "alc0_verified": self.alc0.iter().all(|r| r.6),
            "collect_s": med(&self.alc0, |r| r.2), "write_s": med(&self.alc0, |r| r.3),
            "save_s": self.save_s(), "save_pct": pct(self.save_s(), clean_s),
            "save_runs_s": self.alc0.iter().map(|r| r.7).collect::<Vec<_>>(),
            "file_bytes": live, "bytes": self.live_bytes,
            "rss_bytes": med(&self.alc0, |r| r.5),
            "killed_wall_s": med(&self.alc1, |r| r.0),
            "restart_wall_s": med(&self.alc1, |r| r.1),
            "restart_bench_s": med(&self.alc1, |r| r.2),
            "restore_s": med(&self.alc1, |r| r.3),
            "recovery_s": self.recovery_s(), "recovery_pct": pct(self.recovery_s(), self.clean_wall()),
            "recovery_runs_s": self.alc1.iter().map(|r| r.0 + r.1 - self.clean_wall()).collect::<Vec<_>>(),
            "restart_verified": self.alc1.iter().all(|r| r.4),
            "save_all_file_bytes": self.all_file_bytes, "save_all_bytes": self.all_bytes,
            "save_all_rss_bytes": self.all_rss,
            "live_vs_save_all_pct": pct(live, self.all_file_bytes),
        })
    }
}

/// Measure one row (the binaries are built).
fn measure(row: &mut Row, clean: &Path, inst: &Path, cand: Candidate, dir: &Path, reps: u32, prog: &dyn Fn(&str)) -> Result<(), BenchError> {
    let label = row.label();
    let t = row.threads;
    fresh(dir)?;
    row.cand = Some(cand);
    let k = cand.k.to_string();
    for rep in 0..reps {
        prog(&format!("clean/instrumented rep {}/{reps}", rep + 1));
        for (exe, name) in [(clean, "clean"), (inst, "inst")] {
            let r = run_prog(exe, t, &[], &dir.join(format!("{name}.{rep}")))?;
            let b = r.bench_s().ok_or_else(|| BenchError::Run {
                label: label.clone(),
                what: format!("{name} run printed no ` Time in seconds =` (exit {:?}, signal {:?})", r.code, r.signal),
                log: r.log.clone(),
            })?;
            let v = (b, r.wall_s, r.verified() && r.code == Some(0));
            if name == "clean" { row.clean.push(v) } else { row.inst.push(v) }
        }
    }
    for rep in 0..reps {
        prog(&format!("ALC(0) rep {}/{reps} (DAO_EVERY={k})", rep + 1));
        let ck = dir.join(format!("alc0.{rep}.ckpt"));
        fresh(&ck)?;
        let st = dir.join(format!("alc0.{rep}.stats"));
        let env = [("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", k.clone()), ("DAO_STATS", st.display().to_string())];
        let r = run_prog(inst, t, &env, &dir.join(format!("alc0.{rep}")))?;
        let cps = stats(&st, "checkpoint");
        let (Some(b), [cp]) = (r.bench_s(), cps.as_slice()) else {
            return Err(BenchError::Run {
                label,
                what: format!("ALC(0) run: expected one checkpoint and a report, got {} checkpoint(s), exit {:?}", cps.len(), r.code),
                log: r.log,
            });
        };
        row.at = cp["at"].as_str().unwrap_or("").to_string();
        row.live_bytes = cp["bytes"].clone();
        row.alc0.push((
            b,
            r.wall_s,
            num(cp, "/collect_s"),
            num(cp, "/write_s"),
            num(cp, "/file_bytes"),
            num(cp, "/rss_bytes"),
            r.verified() && r.code == Some(0),
            if cp.get("background").is_some() {
                num(cp, "/background/pause_s") + num(cp, "/background/wait_s")
            } else {
                num(cp, "/collect_s") + num(cp, "/write_s")
            },
        ));
        let _ = std::fs::remove_dir_all(&ck);
    }
    for rep in 0..reps {
        prog(&format!("ALC(1) rep {}/{reps} (kill after checkpoint, restart)", rep + 1));
        let ck = dir.join(format!("alc1.{rep}.ckpt"));
        fresh(&ck)?;
        let st = dir.join(format!("alc1.{rep}.stats"));
        let env = [("DAO_DIR", ck.display().to_string()), ("DAO_EVERY", k.clone()), ("DAO_STATS", st.display().to_string())];
        let mut kenv = env.to_vec();
        kenv.push(("DAO_CRASH_AFTER", "1".into()));
        let killed = run_prog(inst, t, &kenv, &dir.join(format!("alc1.{rep}.killed")))?;
        if killed.signal != Some(libc::SIGKILL) {
            return Err(BenchError::Run {
                label,
                what: format!("the DAO_CRASH_AFTER=1 run was not killed (exit {:?}, signal {:?})", killed.code, killed.signal),
                log: killed.log,
            });
        }
        let r = run_prog(inst, t, &env, &dir.join(format!("alc1.{rep}.restart")))?;
        let rs = stats(&st, "restart");
        let (Some(b), [rsl], true) = (r.bench_s(), rs.as_slice(), r.stderr.contains("dao: resuming")) else {
            return Err(BenchError::Run {
                label,
                what: format!("restart did not resume and finish (exit {:?}, {} restart stats line(s))", r.code, rs.len()),
                log: r.log,
            });
        };
        row.alc1.push((killed.wall_s, r.wall_s, b, num(rsl, "/restore_s"), r.verified() && r.code == Some(0)));
        let _ = std::fs::remove_dir_all(&ck);
    }
    prog("DAO_SAVE=all reference");
    let ck = dir.join("all.ckpt");
    fresh(&ck)?;
    let st = dir.join("all.stats");
    let env = [
        ("DAO_DIR", ck.display().to_string()),
        ("DAO_EVERY", k.clone()),
        ("DAO_STATS", st.display().to_string()),
        ("DAO_SAVE", "all".into()),
    ];
    let r = run_prog(inst, t, &env, &dir.join("all"))?;
    let cps = stats(&st, "checkpoint");
    let [cp] = cps.as_slice() else {
        return Err(BenchError::Run { label, what: format!("DAO_SAVE=all run wrote {} checkpoints, expected 1", cps.len()), log: r.log });
    };
    row.all_file_bytes = num(cp, "/file_bytes");
    row.all_rss = num(cp, "/rss_bytes");
    row.all_bytes = cp["bytes"].clone();
    let _ = std::fs::remove_dir_all(&ck);
    Ok(())
}

pub fn bench(req: &BenchRequest) -> Result<i32, BenchError> {
    let npb = find_npb(req.npb_dir.as_deref())?;
    std::fs::create_dir_all(&req.out).map_err(io(&req.out))?;
    let out = std::path::absolute(&req.out).unwrap_or(req.out.clone());
    let json_path = req.json.clone().unwrap_or_else(|| out.join("bench.json"));
    let md_path = req.markdown.clone().unwrap_or_else(|| out.join("bench.md"));
    let total = req.benches.len() * req.classes.len() * req.threads.len();
    let progress = Progress { tty: std::io::stderr().is_terminal(), total };
    let started = Instant::now();
    let mut rows: Vec<Row> = vec![];
    let mut i = 0;
    for bench in &req.benches {
        for &class in &req.classes {
            let tag = format!("{bench}.{class}");
            progress.step(i, &tag, "building clean and instrumented binaries");
            let bdir = out.join("build").join(&tag);
            let clean = build(&npb, bench, class, true, &bdir)?;
            let inst = build(&npb, bench, class, false, &bdir)?;
            let mut cand = None;
            for &threads in &req.threads {
                let mut row = Row { bench: bench.clone(), class, threads, ..Default::default() };
                let label = row.label();
                let dir = out.join("runs").join(format!("{tag}.t{threads}"));
                let prog = |what: &str| progress.step(i, &label, what);
                if cand.is_none() {
                    prog("counting candidates");
                    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
                    cand = Some(count_candidates(&inst, threads, &out.join("build").join(&tag), &label)?);
                }
                measure(&mut row, &clean, &inst, cand.unwrap(), &dir, req.reps, &prog)?;
                rows.push(row);
                i += 1;
            }
        }
    }
    progress.done();

    let doc = json!({
        "tool": "dao bench",
        "version": env!("CARGO_PKG_VERSION"),
        "npb_dir": npb.display().to_string(),
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "reps": req.reps,
        "elapsed_s": started.elapsed().as_secs_f64(),
        "method": {
            "candidate": "counting run DAO_EVERY=16 -> c checkpoints, N in [16c,16c+15]; k = 8c+8 (c=0: DAO_EVERY=1 run, k=N/2+1); one checkpoint with DAO_EVERY=k",
            "save_s": "time the program stood still for the ALC(0) checkpoint (DAO_STATS), median: background.pause_s + background.wait_s when written in the background (the default), collect_s + write_s when synchronous (DAO_ASYNC=off)",
            "recovery_s": "wall(killed run, DAO_CRASH_AFTER=1) + wall(restarted run) - median wall(clean run), median",
            "pct": "relative to the clean run's benchmark time (` Time in seconds`, median); recovery_pct: to the clean run's wall time (median)",
        },
        "rows": rows.iter().map(Row::to_json).collect::<Vec<_>>(),
        "paper": paper_json(),
    });
    let text = serde_json::to_string_pretty(&doc).expect("JSON");
    std::fs::write(&json_path, text + "\n").map_err(io(&json_path))?;
    std::fs::write(&md_path, markdown(&rows, req)).map_err(io(&md_path))?;
    let plots = plots(&rows, &out)?;
    eprintln!(
        "dao bench: {} row(s) in {:.1} s; JSON {}, markdown {}, plots {}",
        rows.len(),
        started.elapsed().as_secs_f64(),
        json_path.display(),
        md_path.display(),
        plots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    let bad: Vec<String> = rows.iter().filter(|r| !r.all_verified()).map(Row::label).collect();
    if !bad.is_empty() {
        return Err(BenchError::Unverified(bad.join(", ")));
    }
    Ok(0)
}

/// Two SVG figures in the output directory (`--out`): image sizes (dao, save-all, RSS) and
/// save/restart overhead in % beside the paper's ALC and C3 percentages.
fn plots(rows: &[Row], out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    use crate::svg::{bars, Group};
    let mb = |b: f64| b / 1e6;
    let sizes: Vec<Group> = rows
        .iter()
        .map(|r| {
            let live = med(&r.alc0, |x| x.4);
            let rss = med(&r.alc0, |x| x.5);
            Group { label: r.label(), values: vec![Some(mb(live)), Some(mb(r.all_file_bytes)), Some(mb(rss))] }
        })
        .collect();
    let size_svg = bars(
        "Checkpoint image: dao (live data) vs save-everything vs resident memory",
        "MB (10^6 bytes)",
        &["dao", "save-all (C3-like)", "RSS (system-level)"],
        &sizes,
        &|v| format!("{v:.1} MB"),
    );
    let over: Vec<Group> = rows
        .iter()
        .map(|r| {
            let b = r.bench.as_str();
            let c = r.class;
            Group {
                label: r.label(),
                values: vec![
                    Some(pct(r.save_s(), r.clean_s())),
                    fig(SAVE_ALC, b, c).map(|f| f.1),
                    fig(SAVE_C3, b, c).map(|f| f.1),
                    Some(pct(r.recovery_s(), r.clean_wall())),
                    fig(RESTART_ALC, b, c).map(|f| f.1),
                    fig(RESTART_C3, b, c).map(|f| f.1),
                ],
            }
        })
        .collect();
    let over_svg = bars(
        "Save and restart overhead, % of the run (paper: other machine, compare percentages)",
        "% of the clean run",
        &["save (dao)", "save (paper ALC)", "save (paper C3)", "restart (dao)", "restart (paper ALC)", "restart (paper C3)"],
        &over,
        &|v| format!("{v:.1}%"),
    );
    let mut written = Vec::new();
    for (name, text) in [("bench_sizes.svg", size_svg), ("bench_overhead.svg", over_svg)] {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(io(&p))?;
        written.push(p);
    }
    Ok(written)
}

// ---------------------------------------------------------------------------
// The DAO paper's figures (Fu, Ding, Song, Yang, Chinese Journal of
// Computers, 2010, tables 2-4).

/// (benchmark, [S, W, A, B] as (seconds, percent)); None = "-".
type Fig = [Option<(f64, f64)>; 4];
const CLASSES: [char; 4] = ['S', 'W', 'A', 'B'];

const SAVE_ALC: &[(&str, Fig)] = &[
    ("bt", [Some((1.3e-4, 0.61)), Some((0.024, 1.22)), Some((0.07, 0.19)), Some((0.21, 0.13))]),
    ("cg", [Some((0.007, 4.61)), Some((0.042, 5.38)), Some((0.13, 8.44)), Some((0.38, 0.92))]),
    ("ft", [Some((0.011, 7.06)), Some((0.02, 7.73)), Some((0.15, 6.63)), Some((1.32, 2.35))]),
    ("mg", [Some((0.0013, 37.66)), Some((0.104, 46.55)), Some((0.67, 37.65)), Some((0.67, 7.53))]),
];
const SAVE_C3: &[(&str, Fig)] = &[
    ("bt", [Some((3.2e-5, 0.03)), Some((0.074, 1.63)), Some((1.2, 0.60)), Some((17.0, 2.02))]),
    ("cg", [Some((0.012, 24.00)), Some((0.053, 23.54)), Some((0.15, 8.15)), Some((1.6, 2.07))]),
    ("ft", [Some((0.035, 24.71)), Some((0.07, 23.66)), Some((1.1, 18.87)), None]),
    ("mg", [Some((0.0075, 102.75)), Some((0.030, 7.16)), Some((1.8, 53.74)), Some((2.0, 12.66))]),
];
const RESTART_ALC: &[(&str, Fig)] = &[
    ("bt", [Some((4.1e-4, 1.87)), Some((0.069, 3.50)), Some((0.15, 0.44)), Some((0.72, 0.46))]),
    ("cg", [Some((0.013, 8.73)), Some((0.083, 10.68)), Some((0.22, 14.70)), Some((0.71, 1.69))]),
    ("ft", [Some((0.016, 11.18)), Some((0.03, 11.01)), Some((0.20, 8.59)), Some((2.23, 3.96))]),
    ("mg", [Some((0.0021, 59.53)), Some((0.221, 98.30)), Some((1.04, 58.11)), Some((0.543, 6.06))]),
];
const RESTART_C3: &[(&str, Fig)] = &[
    ("bt", [Some((-8.6e-5, -0.07)), Some((0.067, 1.48)), Some((0.41, 0.21)), Some((7.3, 0.87))]),
    ("cg", [Some((0.012, 22.96)), Some((0.028, 12.70)), Some((0.14, 7.60)), Some((0.45, 0.59))]),
    ("ft", [Some((0.022, 15.21)), Some((0.036, 12.08)), Some((0.68, 11.30)), None]),
    ("mg", [Some((0.0092, 126.94)), Some((0.011, 2.67)), Some((0.087, 2.54)), Some((0.046, 0.28))]),
];
/// Image sizes as printed in the paper: ALC class B; C3 S, W, A, B.
const SIZES: &[(&str, &str, [&str; 4])] = &[
    ("bt", "30.4 MB", ["2.7 MB", "17.6 MB", "306 MB", "1.2 GB"]),
    ("cg", "37.3 MB", ["3.1 MB", "17.8 MB", "60 MB", "428 MB"]),
    ("ft", "257.6 MB", ["13.5 MB", "26.9 MB", "419 MB", "-"]),
    ("mg", "129.4 MB", ["1.5 MB", "8.1 MB", "438 MB", "438 MB"]),
];

fn fig(table: &[(&str, Fig)], bench: &str, class: char) -> Option<(f64, f64)> {
    let ci = CLASSES.iter().position(|&c| c == class)?;
    table.iter().find(|(b, _)| *b == bench).and_then(|(_, f)| f[ci])
}

fn fig_text(f: Option<(f64, f64)>) -> String {
    match f {
        Some((s, p)) => format!("{s} s {p:.2}%"),
        None => "-".into(),
    }
}

fn paper_json() -> Value {
    let mut m = BTreeMap::new();
    for (bench, _) in BENCHES {
        for (ci, class) in CLASSES.iter().enumerate() {
            let f = |t| fig(t, bench, *class).map(|(s, p)| json!({"s": s, "pct": p}));
            let size = SIZES.iter().find(|(b, _, _)| b == bench);
            m.insert(
                format!("{bench}.{class}"),
                json!({
                    "save_alc": f(SAVE_ALC), "save_c3": f(SAVE_C3),
                    "restart_alc": f(RESTART_ALC), "restart_c3": f(RESTART_C3),
                    "size_c3": size.map(|s| s.2[ci]),
                    "size_alc_class_b": size.map(|s| s.1),
                }),
            );
        }
    }
    json!(m)
}

/// Seconds with three significant digits.
fn secs(s: f64) -> String {
    if !s.is_finite() {
        return "n/a".into();
    }
    let a = s.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{s:.0}")
    } else if a >= 0.001 {
        let d = (2 - a.log10().floor() as i32).max(0) as usize;
        format!("{s:.d$}")
    } else {
        format!("{s:.2e}")
    }
}

fn size(b: f64) -> String {
    if !b.is_finite() {
        "n/a".into()
    } else if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} KB", b / 1e3)
    }
}

fn markdown(rows: &[Row], req: &BenchRequest) -> String {
    let mut m = String::new();
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let _ = writeln!(m, "# dao bench: NPB, dao (ALC(0)/ALC(1)) against the DAO paper's ALC and C3\n");
    let _ = writeln!(
        m,
        "Machine: {cpus} CPUs. Median of {} rep(s). Builds: `dao cc [--dao-no-pass] -O3 -fopenmp -DCLASS_X`. \
Percentages are relative to the clean run's ` Time in seconds` (median), except recovery %: relative to the clean run's wall time.\n",
        req.reps
    );
    let _ = writeln!(m, "## Failure-free runs\n");
    let _ = writeln!(m, "| bench | class | threads | clean s | instrumented s | overhead | clean wall s | instrumented wall s | verified |");
    let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---:|---:|---|");
    for r in rows {
        let j = r.to_json();
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {:+.1}% | {} | {} | {} |",
            r.bench.to_uppercase(), r.class, r.threads, secs(j["clean_s"].as_f64().unwrap_or(f64::NAN)),
            secs(j["inst_s"].as_f64().unwrap_or(f64::NAN)), j["inst_overhead_pct"].as_f64().unwrap_or(f64::NAN),
            secs(j["clean_wall_s"].as_f64().unwrap_or(f64::NAN)), secs(j["inst_wall_s"].as_f64().unwrap_or(f64::NAN)),
            if r.all_verified() { "SUCCESSFUL (all runs, restarts included)" } else { "**FAILED**" }
        );
    }
    let note = "\n*Paper: 2010, 32 nodes of two 4-core Itanium 2 with a software DSM, NPB OMP 3.2; C3 figures from \
Bronevetsky et al. (ICS 2006). Their absolute times are another machine's and another code's: compare the \
percentages. The NPB timer prints 3 decimals (FT: 2), so class S percentages are coarse.*\n";

    let _ = writeln!(m, "\n## Checkpoint save overhead (paper table 2)\n");
    let _ = writeln!(m, "One checkpoint (ALC(0)) at candidate k of the run (N candidates), in the main iteration loop. \
`save` = the time the program stood still for it (DAO_STATS: background.pause_s + wait_s in the background, the default; \
collect_s + write_s with DAO_ASYNC=off); `ALC(0) - clean` = difference of the benchmark times.\n");
    let _ = writeln!(m, "| bench | class | threads | k / N | at | save s | save % | ALC(0) - clean s | % | paper ALC | paper C3 |");
    let _ = writeln!(m, "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let j = r.to_json();
        let c = r.cand.unwrap();
        let n = if c.n_lo == c.n_hi { c.n_lo.to_string() } else { format!("{}-{}", c.n_lo, c.n_hi) };
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} / {n} | `{}` | {} | {:.2}% | {} | {:+.2}% | {} | {} |",
            r.bench.to_uppercase(), r.class, r.threads, c.k, r.at.trim(), secs(r.save_s()),
            j["save_pct"].as_f64().unwrap_or(f64::NAN), secs(j["alc0_minus_clean_s"].as_f64().unwrap_or(f64::NAN)),
            j["alc0_minus_clean_pct"].as_f64().unwrap_or(f64::NAN),
            fig_text(fig(SAVE_ALC, &r.bench, r.class)), fig_text(fig(SAVE_C3, &r.bench, r.class))
        );
    }
    m.push_str(note);

    let _ = writeln!(m, "\n## Restart overhead (paper table 3)\n");
    let _ = writeln!(m, "ALC(1): the ALC(0) run killed right after its checkpoint (DAO_CRASH_AFTER=1) and restarted. \
`recovery` = wall(killed run) + wall(restarted run) - wall(clean run), % of wall(clean run); `restore` = restore_s of DAO_STATS.\n");
    let _ = writeln!(m, "| bench | class | threads | recovery s | recovery % | restore s | restarted verified | paper ALC | paper C3 |");
    let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---|---:|---:|");
    for r in rows {
        let j = r.to_json();
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {:.2}% | {} | {} | {} | {} |",
            r.bench.to_uppercase(), r.class, r.threads, secs(r.recovery_s()),
            j["recovery_pct"].as_f64().unwrap_or(f64::NAN), secs(j["restore_s"].as_f64().unwrap_or(f64::NAN)),
            if j["restart_verified"] == true { "SUCCESSFUL" } else { "**FAILED**" },
            fig_text(fig(RESTART_ALC, &r.bench, r.class)), fig_text(fig(RESTART_C3, &r.bench, r.class))
        );
    }
    m.push_str(note);

    let _ = writeln!(m, "\n## Checkpoint image size (paper table 4)\n");
    let _ = writeln!(m, "`dao` = the ALC(0) checkpoint file (live data); `save-all` = the same candidate with DAO_SAVE=all \
(save everything, the role C3 plays); RSS = resident memory at the candidate (what a system-level checkpointer writes at least).\n");
    let _ = writeln!(m, "| bench | class | threads | dao | save-all | dao / save-all | RSS | paper ALC (class B) | paper C3 (this class) |");
    let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let j = r.to_json();
        let s = SIZES.iter().find(|(b, _, _)| *b == r.bench);
        let c3 = CLASSES.iter().position(|&c| c == r.class).and_then(|ci| s.map(|s| s.2[ci])).unwrap_or("-");
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {:.1}% | {} | {} | {} |",
            r.bench.to_uppercase(), r.class, r.threads, size(j["file_bytes"].as_f64().unwrap_or(f64::NAN)),
            size(r.all_file_bytes), j["live_vs_save_all_pct"].as_f64().unwrap_or(f64::NAN),
            size(j["rss_bytes"].as_f64().unwrap_or(f64::NAN)), s.map_or("-", |s| s.1), c3
        );
    }
    m.push_str("\n*Paper sizes: ALC only for class B; C3 per class. Sizes do not depend on the machine, but the paper's \
codes are NPB OMP 3.2 in Fortran/C, ours are our own C ports.*\n");
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn paper_figures() {
        assert_eq!(fig(SAVE_ALC, "cg", 'S'), Some((0.007, 4.61)));
        assert_eq!(fig(RESTART_C3, "mg", 'B'), Some((0.046, 0.28)));
        assert_eq!(fig(SAVE_C3, "ft", 'B'), None);
        assert_eq!(fig(SAVE_ALC, "cg", 'C'), None);
        assert_eq!(fig_text(fig(SAVE_ALC, "cg", 'S')), "0.007 s 4.61%");
    }

    #[test]
    fn formatting() {
        assert_eq!(secs(0.0123456), "0.0123");
        assert_eq!(secs(1.5), "1.50");
        assert_eq!(secs(1.3e-4), "1.30e-4");
        assert_eq!(size(3.1e6), "3.1 MB");
    }

    #[test]
    fn report_parsing() {
        let r = RunOut {
            wall_s: 0.0,
            code: Some(0),
            signal: None,
            stdout: " Time in seconds =                    0.014\n Verification    =               SUCCESSFUL\n".into(),
            stderr: String::new(),
            log: PathBuf::new(),
        };
        assert_eq!(r.bench_s(), Some(0.014));
        assert!(r.verified());
        let u = RunOut { stdout: " Verification    =             UNSUCCESSFUL\n".into(), ..r };
        assert!(!u.verified());
    }
}
