//! The environment contract: every environment variable the runtime reads
//! is read in this file (the storage engine's through
//! `dao_store::StoreConfig::from_lookup`, with the lookup given here), and
//! listed in [`VARS`], which runtime/README.md's table matches
//! (runtime/tests/layers.rs checks the names). Read once, at dao_main, but
//! `DAO_OMP_TIMEOUT` (at its first use, and checked at start) and the
//! libomp settings of [`prepare_env`] (before main).
//!
//! A malformed value is a fatal error naming the variable and the allowed
//! values (exit status 3): silently falling back to a default would hide a
//! misconfigured job.
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use crate::diag::fatal;

/// When candidates turn into checkpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Policy {
    /// Every n-th candidate reached (DAO_EVERY).
    Every(u64),
    /// At the first candidate at least this many seconds after the previous
    /// checkpoint (or the start of the process).
    Interval(f64),
    /// Exactly at the candidate numbers of a placement file (DAO_PLACEMENT;
    /// the list is in placement.rs).
    Placement,
    /// A profiling run (DAO_PROFILE): every candidate is measured, none
    /// checkpoints (profile.rs).
    Profile,
}

/// DAO_ASYNC for single-file checkpoints (background.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Async {
    /// The program writes (synchronous).
    Off,
    /// In the background, but synchronously when checkpoints come faster
    /// than they are written (the default).
    Auto,
    /// Always in the background; a checkpoint due while the previous one
    /// is being written waits for it.
    Wait,
    /// Always in the background; such a checkpoint is skipped.
    Skip,
}

/// Default interval when no policy variable is set: 60 seconds.
pub const DEFAULT_INTERVAL_S: f64 = 60.0;
pub const DEFAULT_RELIABILITY: f64 = 0.99;
/// The codec of the runtime's engine when DAO_COMPRESS is unset: none.
/// On the NPB grids lz4 (+ shuffle) saved 3-15% of the bytes for 10-160
/// points of run time (docs/results.md, "Storage modes with background
/// writing").
pub const DEFAULT_COMPRESS: &str = "none";

#[derive(Clone, Debug)]
pub struct Config {
    pub dir: Option<PathBuf>,
    pub policy: Policy,
    pub restart_auto: bool,
    pub crash_after: Option<u64>,
    pub crash_in: Option<u64>,
    pub save_all: bool,
    pub heap_all: bool,
    /// DAO_DEAD=poison: a restart fills every global of the program that
    /// the checkpoint did not save with 0xff bytes (a check of liveness: a
    /// global wrongly found dead then changes the restarted run's output),
    /// and every allocated heap block whose bytes it does not hold (heap
    /// objects left out, blocks the reachability scan did not find);
    /// keep (default): they keep their start-up contents.
    pub poison_dead: bool,
    /// DAO_WRITERS=team (default) | master: inside a parallel region, the
    /// workers stopped at a candidate write part of the checkpoint
    /// (distributed saving) or the master writes all of it.
    pub team_writes: bool,
    /// DAO_PROTOCOL=nonblocking | blocking: the protocol of checkpoints
    /// inside parallel regions; None: non-blocking when every module has
    /// guards (startup decides).
    pub nonblocking: Option<bool>,
    pub keep: usize,
    pub stats: Option<PathBuf>,
    pub verbose: bool,
    pub stack_size: Option<u64>,
    /// DAO_PROFILE: where a profiling run writes its profile.
    pub profile: Option<PathBuf>,
    /// DAO_PLACEMENT: the placement file to follow.
    pub placement: Option<PathBuf>,
    /// DAO_STORE=engine: checkpoints are written by the storage engine
    /// (dao-store: incremental/differential chains, compression, async
    /// flush; storage.rs) with this configuration (its DAO_* variables).
    /// None (DAO_STORE=file, the default): one dao-format file each.
    pub store: Option<dao_store::StoreConfig>,
    /// DAO_ASYNC: off | auto | wait | skip; None when unset (single files:
    /// auto, a background writer forked at each checkpoint, background.rs;
    /// the engine: off, its own parse in dao_store).
    pub async_policy: Option<Async>,
    /// DAO_CRASH_WRITER=k: the background writer of the k-th checkpoint
    /// attempt SIGKILLs itself half-way through (tests: the program must
    /// report it and go on).
    pub crash_writer: Option<u64>,
    /// DAO_MEM_AVAILABLE: the memory a background snapshot may use, instead
    /// of what /proc/meminfo and the cgroup say.
    pub mem_available: Option<u64>,
    /// DAO_SNAPSHOT=copy: with DAO_STORE=engine, a background checkpoint is
    /// the engine's staging copy flushed by its thread (DAO_ASYNC=wait|skip;
    /// auto is off there); fork (default): a forked copy-on-write writer,
    /// as for single files (background.rs), the engine opened synchronous
    /// in both processes.
    pub snapshot_copy: bool,
    /// DAO_WRITER_RELEASE (default on): a forked engine writer gives back
    /// the pages of the program's globals and heap blocks once they are in
    /// its pipeline, so the program's later writes of them copy nothing.
    pub writer_release: bool,
    /// DAO_WRITER_RELEASE=on (the default) also gives back, first, the
    /// pages of the program memory the checkpoint does not hold (dead
    /// globals, heap blocks left out); `written`: only what was written.
    pub release_unsaved: bool,
    /// DAO_HEAP_SCAN=writer (the default): a forked writer collects the
    /// heap's part of a checkpoint (walk, reachability scan) on its
    /// snapshot, so the program does not wait for it; `program`: the
    /// program collects it before forking, as for a write in place.
    pub heap_scan_writer: bool,
    /// How this process was found to be an MPI program (a launcher's
    /// variables, or an MPI library in the process), if it is: dao does not
    /// checkpoint MPI programs yet (issue #17), so a DAO_DIR is then ignored
    /// with one warning (startup.rs).
    pub mpi: Option<String>,
    /// MPI: DAO_PARTNER=off turns the partner copies off.
    pub partner: bool,
    /// MPI: DAO_PARTNER=sync: the program waits for its partner copy.
    pub partner_sync: bool,
    /// MPI: DAO_PARTNER_DIR, where the partner copies go (default
    /// `$DAO_DIR/partner`).
    pub partner_dir: Option<PathBuf>,
    /// MPI: DAO_FLUSH_DIR, the third level (a shared directory): every
    /// `flush_every`-th version is copied there after its commit.
    pub flush_dir: Option<PathBuf>,
    /// MPI: DAO_FLUSH_EVERY (default 10): the versions whose number is a
    /// multiple of it go to DAO_FLUSH_DIR.
    pub flush_every: u64,
    /// MPI: DAO_CRASH_RANK, the one rank the crash variables apply to.
    pub crash_rank: Option<i32>,
    /// MPI: DAO_MPI_TIMEOUT, how long a rank waits for the others at a
    /// candidate before it reports that they diverged.
    pub mpi_timeout: Duration,
    /// DAO_TASK_FT: fault-tolerant tasks (task_ft/), None when off.
    pub task_ft: Option<TaskFt>,
    /// DAO_TASK_FAULTS=SEED:COUNT[:KIND]: faults injected into replicas.
    pub task_faults: Option<TaskFaults>,
    /// DAO_CHECKPOINT_SIGNALS (default USR1): a checkpoint at the next
    /// candidate, then the program goes on (batch.rs).
    pub checkpoint_signals: SignalSet,
    /// DAO_EXIT_SIGNALS (default TERM): a checkpoint at the next candidate,
    /// then exit with 128 + the signal (batch.rs, stop.rs).
    pub exit_signals: SignalSet,
    /// DAO_EXIT_GRACE (default 20 s): how long an exit signal waits for a
    /// candidate before the program exits without a checkpoint.
    pub exit_grace: Duration,
    /// DAO_DEADLINE, else the batch system's end time (SLURM_JOB_END_TIME):
    /// a last checkpoint where the next one would not fit before it.
    pub deadline: Option<Deadline>,
}

/// Signals named by DAO_CHECKPOINT_SIGNALS or DAO_EXIT_SIGNALS.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SignalSet {
    /// Signal numbers, in the order named.
    pub signals: Vec<i32>,
    /// The variable was set (not the default): dao's handler then takes
    /// precedence over one the program installs for these signals.
    pub explicit: bool,
}

/// When the job ends (DAO_DEADLINE or the batch system's variable).
#[derive(Clone, Debug, PartialEq)]
pub struct Deadline {
    /// Seconds since the epoch.
    pub unix_s: f64,
    /// The variable it was read from, and its value (for messages).
    pub from: String,
}

/// The signals a variable may name, with their numbers (the ones a batch
/// system or a user sends to ask a job to checkpoint or stop; not the
/// synchronous ones, SIGKILL or SIGSTOP).
pub const SIGNAL_NAMES: &[(&str, i32)] = &[
    ("HUP", libc::SIGHUP),
    ("INT", libc::SIGINT),
    ("QUIT", libc::SIGQUIT),
    ("USR1", libc::SIGUSR1),
    ("USR2", libc::SIGUSR2),
    ("ALRM", libc::SIGALRM),
    ("TERM", libc::SIGTERM),
    ("XCPU", libc::SIGXCPU),
    ("VTALRM", libc::SIGVTALRM),
    ("PROF", libc::SIGPROF),
    ("PWR", libc::SIGPWR),
];

/// The name of a signal of [`SIGNAL_NAMES`] ("SIGTERM"), else "signal N".
pub fn signal_name(sig: i32) -> String {
    SIGNAL_NAMES.iter().find(|(_, n)| *n == sig).map_or(format!("signal {sig}"), |(name, _)| format!("SIG{name}"))
}

/// Parses a comma list of signal names (`USR1`, `SIGUSR1`, `usr1`) or
/// `none`.
pub fn parse_signals(v: &str) -> Result<Vec<i32>, String> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let up = part.to_ascii_uppercase();
        let name = up.strip_prefix("SIG").unwrap_or(&up);
        let Some(&(_, n)) = SIGNAL_NAMES.iter().find(|(k, _)| *k == name) else {
            let known: Vec<&str> = SIGNAL_NAMES.iter().map(|(k, _)| *k).collect();
            return Err(format!("{part:?} is not a signal dao can take ({}, or none)", known.join(", ")));
        };
        if !out.contains(&n) {
            out.push(n);
        }
    }
    if out.is_empty() {
        return Err("no signal named (write none to turn it off)".into());
    }
    Ok(out)
}

/// Parses DAO_DEADLINE: seconds since the epoch, or `+SECONDS` from `now`
/// (seconds since the epoch).
pub fn parse_deadline(v: &str, now: f64) -> Result<f64, String> {
    let t = v.trim();
    let (rel, num) = match t.strip_prefix('+') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let x: f64 = num.trim().parse().map_err(|_| "expected seconds since the epoch, or +SECONDS from the start".to_string())?;
    if !x.is_finite() || x < 0.0 {
        return Err("expected a non-negative number of seconds".into());
    }
    Ok(if rel { now + x } else { x })
}

/// How tasks run twice (DAO_TASK_FT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskFt {
    /// `dual`: the second execution is a libomp task (another thread when
    /// one is free); both write to buffers.
    Dual,
    /// `serial`: one after the other on the thread that runs the task,
    /// each writing memory in place with an undo log.
    Serial,
}

/// What to inject into replicated task executions (DAO_TASK_FAULTS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskFaults {
    pub seed: u64,
    pub count: u64,
    /// None: each fault's kind drawn from the seed.
    pub kind: Option<FaultKind>,
    /// DAO_TASK_FAULT_SPAN: the executions the faults are drawn among.
    pub span: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A bit of one buffered write.
    Write,
    /// A bit of a value the replica loads (a computed value).
    Value,
    /// Bit 62 of a pointer the replica loads (it crashes on its use).
    Pointer,
}

impl TaskFaults {
    pub fn parse(v: &str, span: u64) -> Result<TaskFaults, String> {
        let mut it = v.trim().split(':');
        let seed = it.next().and_then(|x| x.trim().parse().ok()).ok_or("SEED is not a number")?;
        let count = it.next().and_then(|x| x.trim().parse().ok()).ok_or("COUNT is not a number")?;
        let kind = match it.next().map(str::trim) {
            None | Some("any") => None,
            Some("write") => Some(FaultKind::Write),
            Some("value") => Some(FaultKind::Value),
            Some("pointer") => Some(FaultKind::Pointer),
            Some(k) => return Err(format!("unknown kind {k:?} (write, value, pointer, any)")),
        };
        if it.next().is_some() {
            return Err("expected SEED:COUNT or SEED:COUNT:KIND".into());
        }
        Ok(TaskFaults { seed, count, kind, span })
    }
}

/// One environment variable: name, meaning, default, allowed values.
pub struct Var {
    pub name: &'static str,
    pub meaning: &'static str,
    pub default: &'static str,
    pub allowed: &'static str,
}

const fn v(name: &'static str, meaning: &'static str, default: &'static str, allowed: &'static str) -> Var {
    Var { name, meaning, default, allowed }
}

/// Every environment variable the runtime reads (README.md has them with
/// the details; runtime/tests/layers.rs checks that the two lists name the
/// same variables).
pub const VARS: &[Var] = &[
    v("DAO_DIR", "checkpoint directory (created if missing); unset: no checkpoints and no restart", "unset", "a path"),
    v("DAO_PROFILE", "profiling run for `dao place`: measure every candidate, write no checkpoint (DAO_DIR must be unset)", "unset", "a path (the profile written at exit)"),
    v("DAO_PLACEMENT", "checkpoint exactly at the candidates of a placement file of this executable", "unset", "a path"),
    v("DAO_EVERY", "a checkpoint at every n-th candidate reached", "unset", "an integer >= 1"),
    v("DAO_INTERVAL", "a checkpoint at the first candidate at least this long after the previous one", "60 (when no policy variable is set)", "positive seconds"),
    v("DAO_MTBF", "interval -ln(DAO_RELIABILITY) * DAO_MTBF", "unset", "positive seconds"),
    v("DAO_RELIABILITY", "R of the DAO_MTBF interval", "0.99", "a number strictly between 0 and 1"),
    v("DAO_RESTART", "resume from a checkpoint of an unfinished run, or always start fresh", "auto", "auto, never"),
    v("DAO_CRASH_AFTER", "SIGKILL right after the k-th committed checkpoint of the process", "unset", "a checkpoint count"),
    v("DAO_CRASH_IN", "SIGKILL half-way through writing the k-th checkpoint", "unset", "a checkpoint count"),
    v("DAO_CRASH_WRITER", "the background writer of the k-th checkpoint SIGKILLs itself half-way through (the program goes on)", "unset", "a checkpoint count"),
    v("DAO_MEM_AVAILABLE", "memory a background checkpoint's snapshot may use (instead of MemAvailable and the cgroup's headroom)", "unset", "a size (bytes, K, M, G)"),
    v("DAO_SAVE", "what is saved: what the pass says is live, or everything", "live", "live, all"),
    v("DAO_HEAP", "heap blocks saved: reachable ones or all", "reachable", "reachable, all"),
    v("DAO_DEAD", "on restart, globals and allocated heap blocks the checkpoint did not save (dead at every saved position): keep their start-up contents, or fill them with 0xff bytes (tests of the liveness analysis)", "keep", "keep, poison"),
    v("DAO_KEEP", "checkpoints of the current run kept (DAO_STORE=file)", "2", "an integer >= 1"),
    v("DAO_STORE", "how checkpoints are stored: the storage engine (chains of full and incremental checkpoints), or one dao-format file each", "engine", "engine, file"),
    v("DAO_INCREMENTAL", "engine: full, incremental, differential or adaptive checkpoints", "adaptive", "full, incremental, differential, adaptive"),
    v("DAO_CHAIN_MAX", "engine: deltas after a base before a new base", "16", "a count >= 0 (0: no limit)"),
    v("DAO_DELTA_MAX", "engine, adaptive: a delta over this fraction of the state becomes a new base", "0.5", "a fraction in (0, 1]"),
    v("DAO_BLOCK", "engine: hash block size", "4K", "a power of two from 256 to 64K"),
    v("DAO_HASH", "engine: block hash", "xxh3", "xxh3, blake3, md5"),
    v("DAO_COMPRESS", "engine: codec", "none", "none, lz4, zstd, zstd:LEVEL (1..=19)"),
    v("DAO_FILTER", "engine: filter before the codec (with a codec)", "shuffle", "none, shuffle, xor"),
    v("DAO_COMPRESS_SKIP", "engine: store a chunk raw when compressed/raw exceeds this", "0.9", "a fraction in [0, 1]"),
    v("DAO_BUFFER", "engine: pipeline buffer (chunk) size", "256K", "a size from 4K to 16M"),
    v("DAO_QUEUE", "engine: depth of each pipeline queue", "8", "1 to 1024"),
    v("DAO_DIRECT_IO", "engine: checkpoint files written with O_DIRECT (no page-cache copy, far less CPU; a file system without it gets plain writes): off, only by the background writer, or always", "background", "off, background, on"),
    v("DAO_WORKERS", "engine: compression threads", "cores - 1, at least 1", "1 to 256"),
    v("DAO_ASYNC", "background checkpoints: off (the program waits for the write and the commit), auto (in the background or in place, whichever measured cheaper: before the background cost is measured, in the background only when a core is spare; in place when checkpoints come faster than they are written), wait or skip (always in the background; a checkpoint due while the previous one is still being written waits for it, or is skipped)", "auto (off with DAO_SNAPSHOT=copy)", "off, auto, wait, skip"),
    v("DAO_WRITER_RELEASE", "a forked writer (engine) gives the whole pages of the program's globals and heap blocks of at least 256 KiB back as soon as they are in its pipeline, and before anything else those the checkpoint does not hold (dead arrays, heap blocks left out): the program's later writes of them copy nothing (written: only those in its pipeline; off: the writer holds the whole snapshot until it exits)", "on", "on, written, off"),
    v("DAO_HEAP_SCAN", "who collects the heap's part of a background checkpoint (the walk of the heap and the reachability scan of its blocks, the longest part of the collection with many blocks): the forked writer on its snapshot, the program not waiting for it, or the program before it forks", "writer", "writer, program"),
    v("DAO_SNAPSHOT", "how a background checkpoint secures its image: a forked copy-on-write writer, or (the engine only) the engine's staging copy written by its thread", "fork", "fork, copy"),
    v("DAO_KEEP_CHAINS", "engine: complete chains kept by GC", "2", "a count >= 1"),
    v("DAO_STATS", "append one JSON line per checkpoint and per restart", "unset", "a path"),
    v("DAO_VERBOSE", "one line per checkpoint written, restart details, run finished", "unset (off)", "any value; 0 is off"),
    v("DAO_STACK_SIZE", "size of the fixed stack", "max(RLIMIT_STACK, 64M)", "a size (bytes, K, M, G)"),
    v("DAO_PROTOCOL", "the protocol of checkpoints inside parallel regions", "nonblocking when every module has guards, else blocking", "nonblocking, blocking"),
    v("DAO_WRITERS", "who writes a synchronous checkpoint taken inside a parallel region (DAO_STORE=file)", "team", "team, master"),
    v("DAO_OMP_TIMEOUT", "seconds the main thread waits to gather its team for a checkpoint inside a region", "10", "positive seconds"),
    v("DAO_PARTNER", "MPI: each rank also keeps a copy of its partner rank's newest checkpoint, sent over MPI after the commit while the program goes on (sync: while it waits); a restart rebuilds a missing or damaged checkpoint from it", "on", "on, sync, off"),
    v("DAO_PARTNER_DIR", "MPI: where the partner copies are kept (a directory per owner rank)", "$DAO_DIR/partner", "a path"),
    v("DAO_FLUSH_DIR", "MPI: a third level: each rank also copies every DAO_FLUSH_EVERY-th checkpoint into this directory (meant on a shared file system), after the commit, by a thread while the program goes on; a restart takes a version from it when neither a rank's own checkpoint nor its partner copy can be restored (all node-local storage lost)", "unset (no third level)", "a path"),
    v("DAO_FLUSH_EVERY", "MPI: which checkpoints go to DAO_FLUSH_DIR: those whose number is a multiple of it", "10", "a count >= 1"),
    v("DAO_CRASH_RANK", "MPI: the crash variables (DAO_CRASH_AFTER, DAO_CRASH_IN) apply to this rank only", "unset (every rank)", "a rank"),
    v("DAO_MPI_TIMEOUT", "MPI: seconds a rank waits for the others at a candidate before it stops with an error (ranks that do not reach the candidates the same number of times)", "300", "positive seconds"),
    v("DAO_TASK_FT", "dual: every task whose body the pass could replicate runs twice (the second copy a libomp task, on another thread when one is free) against write buffers; equal buffers are written to memory, different ones (or a replica that crashes with SIGSEGV, SIGBUS, SIGFPE or SIGILL) make the task run again until two executions agree. serial: the two executions run one after the other on the task's thread, in place with an undo log (cheaper)", "off", "dual, serial, off"),
    v("DAO_TASK_FAULTS", "with DAO_TASK_FT=dual or serial: flips one bit in COUNT replicated executions drawn by SEED: in a buffered write, a stored value, or a loaded pointer (KIND; by default drawn too)", "unset", "SEED:COUNT or SEED:COUNT:KIND, KIND one of write, value, pointer, any"),
    v("DAO_TASK_FAULT_SPAN", "the injected executions are drawn among the first N replicated executions", "1000", "a count"),
    v("DAO_CHECKPOINT_SIGNALS", "signals that make the program take a checkpoint at its next candidate, whatever the policy says, and go on", "USR1", "a comma list of signal names (HUP, INT, QUIT, USR1, USR2, ALRM, TERM, XCPU, VTALRM, PROF, PWR; SIG prefix optional), or none"),
    v("DAO_EXIT_SIGNALS", "signals that make the program take a checkpoint at its next candidate, wait for its commit, and exit with status 128 + the signal", "TERM", "a comma list of signal names (as DAO_CHECKPOINT_SIGNALS), or none"),
    v("DAO_EXIT_GRACE", "seconds an exit signal waits for a candidate; past it the program exits at once with 128 + the signal, the previous checkpoint current", "20", "positive seconds"),
    v("DAO_DEADLINE", "when the job will be ended: a last checkpoint at the last candidate where the next candidate plus a checkpoint would not fit before it", "unset (SLURM_JOB_END_TIME when set)", "seconds since the epoch, or +SECONDS from the start of the process"),
    v("SLURM_JOB_END_TIME", "read: the job's end time Slurm exports (seconds since the epoch), used as DAO_DEADLINE when that is unset", "set by Slurm", "Slurm's"),
    v("OMPI_COMM_WORLD_SIZE", "read: set in every rank by Open MPI's mpirun; with DAO_DIR, dao initialises MPI before main and checkpoints are coordinated across the ranks", "set by the launcher", "the launcher's"),
    v("PMI_SIZE", "read: set by MPICH-style launchers (Hydra, Slurm's PMI); as OMPI_COMM_WORLD_SIZE (dao's MPI layer needs Open MPI)", "set by the launcher", "the launcher's"),
    v("PMIX_RANK", "read: set by PMIx launchers (Open MPI 4+, Slurm); as OMPI_COMM_WORLD_SIZE", "set by the launcher", "the launcher's"),
    v("OMP_MAX_TASK_PRIORITY", "read, and set to 1 under DAO_TASK_FT=dual when the user did not set it: replica tasks are queued with priority 1, into libomp's team-wide priority list, which every thread looks at before its own deque, so that another thread takes them more often", "1 under DAO_TASK_FT=dual", "libomp's"),
    v("KMP_FORCE_REDUCTION", "read, and set to critical when DAO_DIR is set and the user did not set it (libomp's tree reduction waits where the protocol cannot see it)", "critical when DAO_DIR is set", "libomp's"),
];

/// The storage engine's variables (dao_store::config); they mean nothing
/// without DAO_STORE=engine.
const STORE_VARS: [&str; 13] = [
    "DAO_INCREMENTAL",
    "DAO_CHAIN_MAX",
    "DAO_DELTA_MAX",
    "DAO_BLOCK",
    "DAO_HASH",
    "DAO_COMPRESS",
    "DAO_FILTER",
    "DAO_COMPRESS_SKIP",
    "DAO_BUFFER",
    "DAO_QUEUE",
    "DAO_DIRECT_IO",
    "DAO_WORKERS",
    "DAO_KEEP_CHAINS",
];

/// DAO_STORE: `engine` (the default) or `file`; the engine's configuration
/// is read and validated only with `engine`. `snapshot_copy`
/// (DAO_SNAPSHOT=copy): the engine's own asynchronous flush follows
/// DAO_ASYNC; otherwise the engine is synchronous and a forked writer runs
/// it in the background. The runtime's engine defaults differ from the
/// library's where measurement said so (docs/results.md, "One storage
/// format by default"): no codec (DAO_COMPRESS=none).
fn store(snapshot_copy: bool) -> Option<dao_store::StoreConfig> {
    let engine = var("DAO_STORE").map(|v| match v.trim() {
        "engine" => true,
        "file" => false,
        _ => fatal(format_args!("DAO_STORE={v:?}: expected engine (the storage engine: chains of full and incremental checkpoints, the default) or file (one dao-format checkpoint file each, the format before the engine was the default)")),
    });
    if engine != Some(false) {
        // the single-file writer's variables
        let set: Vec<&str> = ["DAO_KEEP", "DAO_WRITERS"].into_iter().filter(|k| var(k).is_some()).collect();
        if !set.is_empty() && var("DAO_DIR").is_some() {
            crate::diag::warn(format_args!("{} set without DAO_STORE=file: ignored (the storage engine keeps DAO_KEEP_CHAINS chains, and its checkpoints are written by one thread)", set.join(", ")));
        }
    }
    if engine == Some(false) {
        let mut set: Vec<&str> = STORE_VARS.iter().copied().filter(|k| var(k).is_some()).collect();
        // the staging copy is the engine's; single files are always forked
        if snapshot_copy {
            set.push("DAO_SNAPSHOT=copy");
        }
        // single files are written from the snapshot itself (no pipeline)
        if var("DAO_WRITER_RELEASE").is_some() {
            set.push("DAO_WRITER_RELEASE");
        }
        if !set.is_empty() && var("DAO_DIR").is_some() {
            crate::diag::warn(format_args!("{} set with DAO_STORE=file: ignored (checkpoints are single files)", set.join(", ")));
        }
        return None;
    }
    let defaults = |k: &str| match k {
        "DAO_COMPRESS" => Some(DEFAULT_COMPRESS.to_string()),
        _ => None,
    };
    match dao_store::StoreConfig::from_lookup(|k| var(k).or_else(|| defaults(k))) {
        Ok(mut c) => {
            if !snapshot_copy {
                c.async_policy = dao_store::AsyncPolicy::Off;
            }
            Some(c)
        }
        Err(e) => fatal(e),
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parse<T: std::str::FromStr>(name: &str, what: &str) -> Option<T> {
    var(name).map(|v| {
        v.trim().parse().unwrap_or_else(|_| fatal(format_args!("{name}={v:?} is not {what}")))
    })
}

fn positive(name: &str) -> Option<f64> {
    parse::<f64>(name, "a number").inspect(|&x| {
        if !(x > 0.0 && x.is_finite()) {
            fatal(format_args!("{name} must be a positive number of seconds"));
        }
    })
}

fn choice(name: &str, a: &str, b: &str) -> Option<bool> {
    var(name).map(|v| match v.trim() {
        x if x == a => true,
        x if x == b => false,
        _ => fatal(format_args!("{name}={v:?}: expected {a} or {b}")),
    })
}

/// Parses a size such as `1048576`, `64M`, `1G`.
fn size(name: &str) -> Option<u64> {
    var(name).map(|v| {
        let t = v.trim();
        let (num, mul) = match t.as_bytes().last() {
            Some(b'k' | b'K') => (&t[..t.len() - 1], 1u64 << 10),
            Some(b'm' | b'M') => (&t[..t.len() - 1], 1 << 20),
            Some(b'g' | b'G') => (&t[..t.len() - 1], 1 << 30),
            _ => (t, 1),
        };
        num.parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(mul))
            .unwrap_or_else(|| fatal(format_args!("{name}={v:?} is not a size (e.g. 256M, 1G)")))
    })
}

impl Config {
    pub fn from_env() -> Config {
        let every = parse::<u64>("DAO_EVERY", "a positive integer");
        if every == Some(0) {
            fatal("DAO_EVERY must be at least 1");
        }
        let interval = positive("DAO_INTERVAL");
        let mtbf = positive("DAO_MTBF");
        let rel = parse::<f64>("DAO_RELIABILITY", "a number").unwrap_or(DEFAULT_RELIABILITY);
        if !(rel > 0.0 && rel < 1.0) {
            fatal("DAO_RELIABILITY must be strictly between 0 and 1");
        }
        // Precedence: DAO_PROFILE, then DAO_PLACEMENT, then the rest.
        let profile = var("DAO_PROFILE").map(PathBuf::from);
        let placement = var("DAO_PLACEMENT").map(PathBuf::from);
        if profile.is_some() && var("DAO_DIR").is_some() {
            fatal("DAO_PROFILE and DAO_DIR are both set: a profiling run measures every candidate and writes no checkpoints; unset DAO_DIR for the profiling run");
        }
        if profile.is_some() && placement.is_some() {
            fatal("DAO_PROFILE and DAO_PLACEMENT are both set: profile first (without DAO_PLACEMENT), then run with the placement");
        }
        if placement.is_some() {
            for v in ["DAO_EVERY", "DAO_INTERVAL", "DAO_MTBF"] {
                if var(v).is_some() {
                    crate::diag::warn(format_args!("{v} is ignored: DAO_PLACEMENT says where to checkpoint"));
                }
            }
        }
        let policy = match (every, interval, mtbf) {
            _ if profile.is_some() => Policy::Profile,
            _ if placement.is_some() => Policy::Placement,
            (Some(n), _, _) => Policy::Every(n),
            (None, Some(s), _) => Policy::Interval(s),
            (None, None, Some(m)) => Policy::Interval(-rel.ln() * m),
            (None, None, None) => Policy::Interval(DEFAULT_INTERVAL_S),
        };
        let keep = parse::<usize>("DAO_KEEP", "a positive integer").unwrap_or(dao_format::DEFAULT_KEEP);
        if keep == 0 {
            fatal("DAO_KEEP must be at least 1");
        }
        let snapshot_copy = choice("DAO_SNAPSHOT", "copy", "fork").unwrap_or(false);
        let (checkpoint_signals, exit_signals) = signal_sets();
        Config {
            dir: var("DAO_DIR").map(PathBuf::from),
            policy,
            restart_auto: choice("DAO_RESTART", "auto", "never").unwrap_or(true),
            crash_after: parse("DAO_CRASH_AFTER", "a checkpoint count"),
            crash_in: parse("DAO_CRASH_IN", "a checkpoint count"),
            save_all: choice("DAO_SAVE", "all", "live").unwrap_or(false),
            heap_all: choice("DAO_HEAP", "all", "reachable").unwrap_or(false),
            poison_dead: choice("DAO_DEAD", "poison", "keep").unwrap_or(false),
            team_writes: choice("DAO_WRITERS", "team", "master").unwrap_or(true),
            nonblocking: choice("DAO_PROTOCOL", "nonblocking", "blocking"),
            keep,
            stats: var("DAO_STATS").map(PathBuf::from),
            verbose: var("DAO_VERBOSE").is_some_and(|v| v != "0"),
            stack_size: size("DAO_STACK_SIZE"),
            profile,
            placement,
            store: store(snapshot_copy),
            snapshot_copy,
            writer_release: var("DAO_WRITER_RELEASE").map_or(true, |v| v.trim() != "off" && (v.trim() == "on" || v.trim() == "written" || fatal(format_args!("DAO_WRITER_RELEASE={v:?}: expected on, written or off")))),
            release_unsaved: var("DAO_WRITER_RELEASE").map_or(true, |v| v.trim() == "on"),
            heap_scan_writer: var("DAO_HEAP_SCAN").map_or(true, |v| match v.trim() {
                "writer" => true,
                "program" => false,
                _ => fatal(format_args!("DAO_HEAP_SCAN={v:?}: expected writer or program")),
            }),
            async_policy: var("DAO_ASYNC").map(|v| match v.trim() {
                "off" | "0" | "no" => Async::Off,
                "auto" => Async::Auto,
                "wait" | "1" | "on" | "yes" => Async::Wait,
                "skip" => Async::Skip,
                _ => fatal(format_args!("DAO_ASYNC={v:?}: expected off, auto, wait or skip")),
            }),
            crash_writer: parse("DAO_CRASH_WRITER", "a checkpoint count"),
            mem_available: size("DAO_MEM_AVAILABLE"),
            mpi: mpi_program(),
            partner: var("DAO_PARTNER").is_none_or(|v| v.trim() != "off"),
            partner_sync: match var("DAO_PARTNER").as_deref().map(str::trim) {
                None | Some("on" | "off") => false,
                Some("sync") => true,
                Some(v) => fatal(format_args!("DAO_PARTNER={v:?}: expected on, sync or off")),
            },
            partner_dir: var("DAO_PARTNER_DIR").map(PathBuf::from),
            flush_dir: var("DAO_FLUSH_DIR").map(PathBuf::from),
            flush_every: match parse::<u64>("DAO_FLUSH_EVERY", "a count") {
                None => 10,
                Some(0) => fatal("DAO_FLUSH_EVERY must be at least 1"),
                Some(k) => k,
            },
            crash_rank: parse("DAO_CRASH_RANK", "a rank"),
            mpi_timeout: positive("DAO_MPI_TIMEOUT").map_or(Duration::from_secs(300), Duration::from_secs_f64),
            task_ft: match var("DAO_TASK_FT").as_deref().map(str::trim) {
                None | Some("off") => None,
                Some("dual") => Some(TaskFt::Dual),
                Some("serial") => Some(TaskFt::Serial),
                Some(v) => fatal(format_args!("DAO_TASK_FT={v:?}: expected dual, serial or off")),
            },
            task_faults: var("DAO_TASK_FAULTS").map(|v| {
                let span = parse::<u64>("DAO_TASK_FAULT_SPAN", "a count").unwrap_or(1000).max(1);
                TaskFaults::parse(&v, span).unwrap_or_else(|e| fatal(format_args!("DAO_TASK_FAULTS={v:?}: {e}")))
            }),
            checkpoint_signals,
            exit_signals,
            exit_grace: positive("DAO_EXIT_GRACE").map_or(Duration::from_secs(20), Duration::from_secs_f64),
            deadline: deadline(),
        }
    }
}

/// DAO_CHECKPOINT_SIGNALS and DAO_EXIT_SIGNALS (a signal in both is an
/// error: it cannot both go on and stop).
fn signal_sets() -> (SignalSet, SignalSet) {
    let set = |name: &str, default: i32| match var(name) {
        None => SignalSet { signals: vec![default], explicit: false },
        Some(v) => SignalSet { signals: parse_signals(&v).unwrap_or_else(|e| fatal(format_args!("{name}={v:?}: {e}"))), explicit: true },
    };
    let mut ckpt = set("DAO_CHECKPOINT_SIGNALS", libc::SIGUSR1);
    let exit = set("DAO_EXIT_SIGNALS", libc::SIGTERM);
    if let Some(&both) = ckpt.signals.iter().find(|s| exit.signals.contains(s)) {
        if ckpt.explicit && exit.explicit {
            fatal(format_args!("{} is named by both DAO_CHECKPOINT_SIGNALS and DAO_EXIT_SIGNALS: a signal either lets the program go on or stops it", signal_name(both)));
        }
        // one of them is the default: the variable that names it wins
        if exit.explicit {
            ckpt.signals.retain(|s| *s != both);
        }
    }
    let exit = if ckpt.explicit && !exit.explicit { SignalSet { signals: exit.signals.into_iter().filter(|s| !ckpt.signals.contains(s)).collect(), ..exit } } else { exit };
    (ckpt, exit)
}

/// DAO_DEADLINE, else SLURM_JOB_END_TIME (Slurm 23.02 and later export
/// it in the job's environment; PBS and LSF export no end time: set
/// DAO_DEADLINE in the job script there).
fn deadline() -> Option<Deadline> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    if let Some(v) = var("DAO_DEADLINE") {
        let t = parse_deadline(&v, now).unwrap_or_else(|e| fatal(format_args!("DAO_DEADLINE={v:?}: {e}")));
        return Some(Deadline { unix_s: t, from: format!("DAO_DEADLINE={}", v.trim()) });
    }
    let v = var("SLURM_JOB_END_TIME")?;
    match v.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Some(Deadline { unix_s: t, from: format!("SLURM_JOB_END_TIME={}", v.trim()) }),
        // the batch system's variable, not the user's: a value dao cannot
        // read is no reason to stop the job
        _ => {
            crate::diag::warn(format_args!("SLURM_JOB_END_TIME={v:?} is not seconds since the epoch: no deadline"));
            None
        }
    }
}

/// Whether this process was started by an MPI launcher (the variables it
/// sets in every rank), and which; `identity::mpi_library` sees a program
/// run without one. Read before `main`, so before `MPI_Init`.
fn mpi_program() -> Option<String> {
    [("OMPI_COMM_WORLD_SIZE", "started by Open MPI's mpirun"), ("PMIX_RANK", "started by a PMIx launcher"), ("PMI_SIZE", "started by an MPI launcher")]
        .into_iter()
        .find_map(|(k, what)| var(k).map(|v| format!("{what}: {k}={v}")))
}

/// The gathering timeout (DAO_OMP_TIMEOUT seconds, default 10). A
/// malformed value is fatal, like every other DAO_* variable.
pub fn omp_timeout() -> Duration {
    static T: OnceLock<Duration> = OnceLock::new();
    *T.get_or_init(|| match std::env::var("DAO_OMP_TIMEOUT") {
        Err(_) => Duration::from_secs(10),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Duration::from_secs_f64(x),
            _ => fatal(format_args!("DAO_OMP_TIMEOUT={v:?} must be a positive number of seconds")),
        },
    })
}

/// Before main: settings that keep libomp from blocking threads where the
/// protocol cannot see them. Reductions are forced to the critical method
/// (unless the user chose one): libomp's tree reduction waits inside
/// `__kmpc_reduce*` for other threads, a wait no participation point covers.
/// With the critical method a thread waits there only for the lock, which
/// the holder releases after combining its contribution (no marker, no
/// barrier in between). Not `atomic`: flang's reductions do not support it,
/// and libomp then warns at every reduction.
pub fn prepare_env() {
    let _ = omp_timeout(); // a malformed DAO_OMP_TIMEOUT fails at start, not at the first checkpoint
    if std::env::var_os("DAO_DIR").is_some() && std::env::var_os("KMP_FORCE_REDUCTION").is_none() {
        std::env::set_var("KMP_FORCE_REDUCTION", "critical");
    }
    // DAO_TASK_FT=dual queues replica tasks with a priority (task_ft/,
    // `spawn`): libomp honours it only with a positive maximum
    if std::env::var("DAO_TASK_FT").is_ok_and(|v| v.trim() == "dual") && std::env::var_os("OMP_MAX_TASK_PRIORITY").is_none() {
        std::env::set_var("OMP_MAX_TASK_PRIORITY", "1");
    }
}

/// The thread count OMP_NUM_THREADS asks for (its first level), if set and
/// valid: libomp's variable, read by the runtime only to decide whether a
/// restart between regions may change the team size (startup.rs).
pub fn omp_num_threads() -> Option<u32> {
    std::env::var("OMP_NUM_THREADS").ok()?.split(',').next()?.trim().parse().ok().filter(|n| *n > 0)
}

/// The runtime's own paths (DAO_DIR, DAO_PARTNER_DIR, DAO_FLUSH_DIR,
/// DAO_STATS, DAO_PROFILE) as set, for files/ to tell them from the
/// program's files.
pub fn runtime_paths() -> Vec<String> {
    ["DAO_DIR", "DAO_PARTNER_DIR", "DAO_FLUSH_DIR", "DAO_STATS", "DAO_PROFILE"].iter().filter_map(|v| std::env::var(v).ok()).filter(|v| !v.is_empty()).collect()
}

/// Whether the program's environment has `name` now (libc_state.rs: a
/// `setenv` without overwrite of a name already set changes nothing).
pub fn env_has(name: &std::ffi::CStr) -> bool {
    std::env::var_os(&*name.to_string_lossy()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_lists() {
        assert_eq!(parse_signals("USR1"), Ok(vec![libc::SIGUSR1]));
        assert_eq!(parse_signals(" sigterm, USR2 ,TERM"), Ok(vec![libc::SIGTERM, libc::SIGUSR2]));
        assert_eq!(parse_signals("none"), Ok(vec![]));
        assert!(parse_signals("KILL").is_err());
        assert!(parse_signals("SEGV").is_err());
        assert!(parse_signals(",").is_err());
        assert_eq!(signal_name(libc::SIGTERM), "SIGTERM");
    }

    #[test]
    fn deadlines() {
        assert_eq!(parse_deadline("+30", 1000.0), Ok(1030.0));
        assert_eq!(parse_deadline("1700000000", 5.0), Ok(1_700_000_000.0));
        assert!(parse_deadline("+x", 0.0).is_err());
        assert!(parse_deadline("-5", 0.0).is_err());
    }
}
