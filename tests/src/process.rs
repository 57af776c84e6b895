//! Running a test program: DAO_* variables of the caller removed, the given
//! ones set, stdout APPENDED (O_APPEND) to a file shared by the killed run
//! and its restart, stderr to a file of its own, and a time limit so that a
//! hung restart fails the test instead of hanging it (and says what each
//! thread of it and of its children was doing then).

use std::fs::{File, OpenOptions};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub struct RunSpec<'a> {
    pub exe: &'a Path,
    pub args: &'a [&'a str],
    pub env: Vec<(&'static str, String)>,
    /// stdout is opened with O_APPEND (created if missing).
    pub stdout_append: PathBuf,
    /// stderr is truncated.
    pub stderr: PathBuf,
}

pub struct Finished {
    pub status: ExitStatus,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Finished {
    pub fn killed_by(&self, sig: i32) -> bool {
        self.status.signal() == Some(sig)
    }
    pub fn describe(&self) -> String {
        let tail: Vec<&str> = self.stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("{} after {:.2}s; stderr (last lines):\n    {}", self.status, self.elapsed.as_secs_f64(), tail.join("\n    "))
    }
}

fn open_append(p: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .unwrap_or_else(|e| panic!("cannot open {} for appending: {e}", p.display()))
}

pub fn spawn(spec: &RunSpec) -> (Child, Instant) {
    let mut cmd = Command::new(spec.exe);
    cmd.args(spec.args);
    for (k, _) in std::env::vars_os() {
        // DAO_* of the caller, and an MPI launcher's variables (a suite run
        // inside a batch job's step): the runtime would take the program
        // for an MPI rank and take no checkpoints
        let k_str = k.to_string_lossy();
        if ["DAO_", "OMPI_COMM_WORLD_", "PMI_", "PMIX_"].iter().any(|p| k_str.starts_with(p)) {
            cmd.env_remove(k);
        }
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null());
    cmd.stdout(open_append(&spec.stdout_append));
    cmd.stderr(File::create(&spec.stderr).unwrap_or_else(|e| panic!("cannot create {}: {e}", spec.stderr.display())));
    let start = Instant::now();
    let child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {}: {e}", spec.exe.display()));
    (child, start)
}

/// Wait for `child`; kill it with SIGKILL after `limit` and report a timeout.
pub fn wait(mut child: Child, start: Instant, spec: &RunSpec, limit: Duration) -> Result<Finished, String> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let elapsed = start.elapsed();
                let stderr = std::fs::read_to_string(&spec.stderr).unwrap_or_default();
                return Ok(Finished { status, stderr, elapsed });
            }
            Ok(None) if start.elapsed() > limit => {
                let doing = hang_report(child.id(), spec);
                let _ = child.kill();
                let _ = child.wait();
                let stderr = std::fs::read_to_string(&spec.stderr).unwrap_or_default();
                return Err(format!(
                    "{} {:?} did not finish within {:.0}s (killed); what it was doing:\n{doing}stderr:\n{stderr}",
                    spec.exe.display(),
                    spec.args,
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("waiting for {}: {e}", spec.exe.display())),
        }
    }
}

/// What a process that did not finish was doing, for the time limit's
/// message (a rare hang cannot be debugged once the process is killed):
/// every thread of it and of its descendants (a forked checkpoint writer)
/// with its name, state, kernel wait channel and system call, from
/// `/proc`, and the last line of its `DAO_STATS` file.
fn hang_report(pid: u32, spec: &RunSpec) -> String {
    use std::fmt::Write;
    let read = |p: String| std::fs::read_to_string(p).unwrap_or_default();
    // the descendants, by parent pid (field 4 of /proc/PID/stat)
    let mut pids = vec![pid];
    let mut k = 0;
    while k < pids.len() {
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
            let stat = read(format!("/proc/{p}/stat"));
            let ppid = stat.rfind(')').and_then(|i| stat.get(i + 2..)).and_then(|rest| rest.split(' ').nth(1)).and_then(|x| x.parse::<u32>().ok());
            if ppid == Some(pids[k]) && !pids.contains(&p) {
                pids.push(p);
            }
        }
        k += 1;
    }
    let mut s = String::new();
    for p in pids {
        let mut tids: Vec<u32> = std::fs::read_dir(format!("/proc/{p}/task")).into_iter().flatten().flatten().filter_map(|e| e.file_name().to_string_lossy().parse().ok()).collect();
        tids.sort_unstable();
        for t in tids {
            let dir = format!("/proc/{p}/task/{t}");
            let stat = read(format!("{dir}/stat"));
            let state = stat.rfind(')').and_then(|i| stat.get(i + 2..i + 3)).unwrap_or("?");
            let syscall = read(format!("{dir}/syscall"));
            let _ = writeln!(s, "  pid {p} thread {t} ({}): state {state}, wchan {}, syscall {}", read(format!("{dir}/comm")).trim(), read(format!("{dir}/wchan")).trim(), syscall.split(' ').next().unwrap_or("?").trim());
        }
    }
    if let Some((_, path)) = spec.env.iter().find(|(k, _)| *k == "DAO_STATS") {
        let stats = read(path.clone());
        let _ = writeln!(s, "  last DAO_STATS line: {}", stats.lines().last().unwrap_or("(none)"));
    }
    s
}

pub fn run(spec: &RunSpec, limit: Duration) -> Result<Finished, String> {
    let (child, start) = spawn(spec);
    wait(child, start, spec, limit)
}

/// Compare two output files; on a difference, say where.
pub fn compare_outputs(expected: &Path, actual: &Path) -> Result<(), String> {
    compare_outputs_filtered(expected, actual, &[])
}

/// Lines of `text` (split at `\n`) without those starting with one of `drop`.
pub fn filter_lines<'t>(text: &'t [u8], drop: &[&str]) -> Vec<&'t [u8]> {
    text.split(|&b| b == b'\n').filter(|l| !drop.iter().any(|d| l.starts_with(d.as_bytes()))).collect()
}

/// Compare two output files after dropping, in both, every line that starts
/// with one of `drop` (lines that legitimately differ from run to run, e.g.
/// timings); with an empty `drop` the files must be byte-identical. On a
/// difference, say where (line numbers count the kept lines).
pub fn compare_outputs_filtered(expected: &Path, actual: &Path, drop: &[&str]) -> Result<(), String> {
    let e = std::fs::read(expected).map_err(|err| format!("{}: {err}", expected.display()))?;
    let a = std::fs::read(actual).map_err(|err| format!("{}: {err}", actual.display()))?;
    if e == a {
        return Ok(());
    }
    let el = filter_lines(&e, drop);
    let al = filter_lines(&a, drop);
    if el == al {
        return Ok(());
    }
    let i = el.iter().zip(&al).position(|(x, y)| x != y).unwrap_or(el.len().min(al.len()));
    let show = |v: &Vec<&[u8]>| v.get(i).map(|l| String::from_utf8_lossy(l).into_owned()).unwrap_or_else(|| "<end of file>".into());
    let what = if drop.is_empty() { String::new() } else { format!(", lines starting with {drop:?} left out") };
    Err(format!(
        "output differs from the clean run at line {} ({} vs {} bytes{what}):\n    expected: {}\n    actual:   {}\n    files: {} {}",
        i + 1,
        e.len(),
        a.len(),
        show(&el),
        show(&al),
        expected.display(),
        actual.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run past its limit is reported with what each thread of it and
    /// of its children was doing, and the last DAO_STATS line.
    #[test]
    fn a_hang_says_what_the_process_was_doing() {
        let dir = std::env::temp_dir().join(format!("dao-hang-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stats = dir.join("stats");
        std::fs::write(&stats, "{\"event\":\"start\"}\n{\"event\":\"checkpoint\",\"seq\":1}\n").unwrap();
        let spec = RunSpec {
            exe: Path::new("/bin/sh"),
            args: &["-c", "sleep 5 & sleep 5"],
            env: vec![("DAO_STATS", stats.display().to_string())],
            stdout_append: dir.join("out"),
            stderr: dir.join("err"),
        };
        let e = run(&spec, Duration::from_millis(500)).err().expect("a run past its limit is an error");
        assert!(e.contains("did not finish"), "{e}");
        // the shell and its two sleeps, each asleep (state S)
        assert!(e.matches(" thread ").count() >= 3, "{e}");
        assert!(e.contains("(sleep): state S"), "{e}");
        assert!(e.contains("last DAO_STATS line: {\"event\":\"checkpoint\",\"seq\":1}"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
