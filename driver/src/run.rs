//! `dao run`: run a program and restart it when it dies abnormally, so that
//! an instrumented program resumes from its last checkpoint.
//!
//! "Abnormally" means killed by a signal, or exit status 137 (what a shell or
//! a batch system reports for a SIGKILLed child). Any other exit status,
//! including failures, is final: restarting cannot fix a program that
//! reports an error. If dao itself is told to stop (SIGINT from Ctrl-C,
//! SIGTERM/SIGHUP from a batch system, which dao forwards to the program),
//! the program is not restarted; nor when the runtime stopped it for an
//! exit signal (DAO_EXIT_SIGNALS: a checkpoint, then exit 128 + the
//! signal, recorded in `DAO_DIR/stopped`): the job is being stopped on
//! purpose, and the next `dao run` resumes from that checkpoint.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitStatus};

use crate::error::DriverError;
use crate::sys;

pub struct RunRequest {
    pub retries: u32,
    pub dir: Option<PathBuf>,
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// How one run of the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
}

impl Ending {
    fn from_status(s: ExitStatus) -> Ending {
        use std::os::unix::process::ExitStatusExt;
        match (s.code(), s.signal()) {
            (Some(c), _) => Ending::Exited(c),
            (None, Some(sig)) => Ending::Signaled(sig),
            (None, None) => Ending::Exited(1),
        }
    }

    pub fn is_abnormal(self) -> bool {
        matches!(self, Ending::Signaled(_) | Ending::Exited(137))
    }

    /// The exit status dao reports for it (shell convention 128+signal).
    pub fn exit_code(self) -> i32 {
        match self {
            Ending::Exited(c) => c,
            Ending::Signaled(s) => 128 + s,
        }
    }

    fn describe(self) -> String {
        match self {
            Ending::Exited(c) => format!("exited with status {c}"),
            Ending::Signaled(s) => format!("was killed by {}", sys::signal_name(s)),
        }
    }
}

/// Run until the program ends normally, dao is asked to stop, or the retries
/// are used up. Returns the exit code to report.
pub fn run(req: &RunRequest) -> Result<i32, DriverError> {
    let prog_name = req.program.to_string_lossy().into_owned();
    if req.dir.is_none() && crate::env::dao_dir().is_none() {
        eprintln!(
            "dao run: warning: neither --dir nor DAO_DIR is set, so `{prog_name}` writes no checkpoints and a restart starts it from the beginning"
        );
    }
    if let Some(dir) = &req.dir {
        std::fs::create_dir_all(dir).map_err(|e| DriverError::io(dir, e))?;
    }
    sys::install_stop_handlers();
    let mut restarts = 0;
    let ckdir = req.dir.clone().or_else(crate::env::dao_dir);
    loop {
        let before = finished_marks(ckdir.as_deref());
        let stopped_before = stopped_marks(ckdir.as_deref());
        let mut cmd = Command::new(&req.program);
        cmd.args(&req.args);
        if let Some(dir) = &req.dir {
            cmd.env("DAO_DIR", dir);
        }
        let mut child = cmd
            .spawn()
            .map_err(|source| DriverError::Spawn { program: prog_name.clone(), source })?;
        sys::set_child(child.id());
        let status = child.wait().map_err(|e| DriverError::io(&prog_name, e));
        sys::clear_child();
        let ending = Ending::from_status(status?);
        if let Some(stop) = stopped_marks(ckdir.as_deref()).iter().zip(&stopped_before).find_map(|(now, was)| now.as_ref().filter(|n| Some(*n) != was.as_ref())) {
            // the runtime took a checkpoint for an exit signal (a batch
            // system stopping the job: DAO_EXIT_SIGNALS) and exited with
            // 128 + the signal: the job is being stopped on purpose
            eprintln!("dao run: `{prog_name}` {} {}; not restarting (the next run resumes from its checkpoint)", ending.describe(), describe_stop(stop));
            return Ok(ending.exit_code());
        }
        if !ending.is_abnormal() {
            return Ok(ending.exit_code());
        }
        if let Some(sig) = sys::stop_requested() {
            eprintln!(
                "dao run: `{prog_name}` {} after dao received {}; not restarting",
                ending.describe(),
                sys::signal_name(sig)
            );
            return Ok(ending.exit_code());
        }
        if ckdir.is_some() && finished_marks(ckdir.as_deref()).iter().zip(&before).any(|(now, was)| now.is_some() && now != was) {
            // the program marked its run finished (its work is done, its
            // output complete) and was then killed while exiting: a restart
            // would start it over and write everything again
            eprintln!("dao run: `{prog_name}` {} after it had finished its work (it marked DAO_DIR finished); not restarting", ending.describe());
            return Ok(0);
        }
        if restarts >= req.retries {
            eprintln!(
                "dao run: `{prog_name}` {}; giving up after {restarts} restart{}",
                ending.describe(),
                if restarts == 1 { "" } else { "s" }
            );
            return Ok(ending.exit_code());
        }
        restarts += 1;
        eprintln!("dao run: `{prog_name}` {}; restarting ({restarts} of {})", ending.describe(), req.retries);
    }
}

/// The `finished` markers of a checkpoint directory (the runtime writes
/// one when a run ends normally: `run <id>`, `through <seq>`), the plain
/// one and an MPI job's rank 0's, as their contents.
fn finished_marks(dir: Option<&std::path::Path>) -> [Option<String>; 2] {
    let Some(d) = dir else { return [None, None] };
    [d.join("finished"), d.join("rank.0000").join("finished")].map(|p| std::fs::read_to_string(p).ok())
}

/// The `stopped` markers (the runtime writes one when an exit signal
/// stopped the run: `signal N`, `status S`, `checkpoint C`, `pid P`), the
/// plain one and an MPI job's rank 0's, as their contents.
fn stopped_marks(dir: Option<&std::path::Path>) -> [Option<String>; 2] {
    let Some(d) = dir else { return [None, None] };
    [d.join("stopped"), d.join("rank.0000").join("stopped")].map(|p| std::fs::read_to_string(p).ok())
}

/// "after SIGTERM, at its checkpoint 5" from a `stopped` marker.
fn describe_stop(text: &str) -> String {
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k)?.trim().parse::<i64>().ok());
    let sig = field("signal ").map_or("an exit signal".to_string(), |s| sys::signal_name(s as i32));
    match field("checkpoint ") {
        Some(c) if c > 0 => format!("after {sig}, at its checkpoint {c}"),
        _ => format!("after {sig}, without a new checkpoint"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abnormal() {
        assert!(Ending::Signaled(9).is_abnormal());
        assert!(Ending::Signaled(11).is_abnormal());
        assert!(Ending::Exited(137).is_abnormal());
        assert!(!Ending::Exited(0).is_abnormal());
        assert!(!Ending::Exited(1).is_abnormal());
        assert_eq!(Ending::Signaled(9).exit_code(), 137);
    }

    #[test]
    fn stop_marker() {
        assert_eq!(describe_stop("signal 15\nstatus 143\ncheckpoint 4\npid 7\n"), format!("after {}, at its checkpoint 4", sys::signal_name(15)));
        assert!(describe_stop("signal 15\ncheckpoint 0\n").ends_with("without a new checkpoint"));
    }
}
