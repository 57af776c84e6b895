//! Background checkpoints (single files, `DAO_ASYNC=wait|skip`, the
//! default `wait`): the program is stopped only until a copy-on-write
//! snapshot of itself exists; a child process writes the checkpoint.
//!
//! At the consistent point (the team gathered or checked in, the live set
//! collected: `collect::Collected` describes the bytes to save by their
//! addresses) the main thread calls `fork()`. The child is a copy-on-write
//! image of the process at that instant: the collected addresses hold the
//! checkpoint's bytes there for as long as it lives, whatever the parent
//! does next. The child encodes, writes, fsyncs and commits the file
//! (temp name, fsync, rename, directory fsync; `CheckpointDir::commit`),
//! prunes, reports the outcome on a pipe and `_exit`s. The parent returns
//! to the program as soon as `fork` returns. (Redis's BGSAVE works the same
//! way; docs/design.md section 15 has the choice against the staging copy.)
//!
//! The child of a multithreaded process has one thread. It runs only code
//! that needs no lock another thread could have held: no libomp, no dao
//! heap (the runtime's own allocations go to glibc's malloc, whose locks
//! glibc's `fork` takes and releases around the fork), no stdio, no
//! diagnostics (what it has to say goes into the report). Every signal with
//! a handler is reset to its default action, so a handler of the program
//! never runs in it (ignored ones stay ignored, as across `exec`), and `PR_SET_PDEATHSIG` makes it die with the thread that
//! forked it (the main thread, which lives as long as the program): no
//! writer outlives its job. It `_exit`s without running `atexit` handlers.
//!
//! The parent learns the outcome before the checkpoint counts: at the next
//! checkpoint (`before_checkpoint`: `wait` blocks for it, `skip` skips the
//! candidate while the writer runs) and at normal exit (`finish`, before the
//! run is marked finished). A committed checkpoint is then counted (the
//! sequence number advances, DAO_STATS line, DAO_CRASH_AFTER); a failed one
//! warns once per distinct error; a writer killed before it committed is
//! reported, its temp file removed, and the previous checkpoint stays
//! current. The pipe, not `waitpid`, carries the outcome: a program that
//! reaps children itself (`wait(-1)` in a SIGCHLD handler) may take the
//! child's exit status, never its report.
//!
//! Fallback to writing in the program, with one warning: when the worst
//! case of the snapshot's extra memory (every resident page of the process
//! copied because the program writes it while the child lives: the
//! resident size) exceeds the memory available (MemAvailable, or the
//! cgroup's limit less its usage, or `DAO_MEM_AVAILABLE`), or when `fork`
//! fails.
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::config::Async;
use dao_store::{Engine, Region};

use crate::diag;
use crate::session::Session;
use crate::stats;

/// This process is a background writer child.
pub fn in_writer() -> bool {
    diag::WRITER_OF.load(Ordering::Relaxed) != 0
}

pub use crate::report::Report;

/// A checkpoint being written by a child.
struct InFlight {
    pid: libc::pid_t,
    /// The read end of the report pipe (non-blocking).
    fd: RawFd,
    got: Vec<u8>,
    seq: u64,
    /// The temp file the child writes (removed if the child dies).
    tmp: PathBuf,
    /// The DAO_STATS fields known at the fork (no braces).
    fields: String,
    frames: usize,
    collect_s: f64,
    /// Program stopped for: flush, collection, fork.
    pause_s: f64,
    fork_s: f64,
    started: Instant,
    /// The process that forked (a child of the program that exits must not
    /// settle its parent's writer).
    owner: u32,
    /// DAO_STORE=engine: the engine's checkpoint (settled by storage.rs).
    engine: Option<Box<ForkJob>>,
}

static IN_FLIGHT: std::sync::Mutex<Option<InFlight>> = std::sync::Mutex::new(None);

fn in_flight() -> std::sync::MutexGuard<'static, Option<InFlight>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The policy for single files: DAO_ASYNC, `auto` when unset.
pub fn policy(s: &Session) -> Async {
    s.cfg.async_policy.unwrap_or(Async::Auto)
}

/// `auto`'s measurements (ns, f64 seconds as bits): when the program last
/// returned from a checkpoint, how long the last write took (the writer's
/// own time, or the synchronous write), and the gap the program computed
/// before the checkpoint now being taken.
static LAST_END_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static LAST_WRITE_S: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static GAP_S: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(u64::MAX);
/// The checkpoint now being taken had to wait for the previous writer.
static WAITED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn load_f(a: &std::sync::atomic::AtomicU64) -> f64 {
    f64::from_bits(a.load(Ordering::Relaxed))
}

/// `auto`'s measurements and decisions (auto_mode.rs), the CPU counters
/// at the last checkpoint's return (or the start), and the decision of the
/// checkpoint being taken, for its DAO_STATS line.
static AUTO: std::sync::Mutex<Option<crate::auto_mode::Auto>> = std::sync::Mutex::new(None);
static CPU_PREV: std::sync::Mutex<Option<crate::auto_mode::CpuSample>> = std::sync::Mutex::new(None);
static CHOICE: std::sync::Mutex<Option<crate::auto_mode::Choice>> = std::sync::Mutex::new(None);
/// Why the forked writer is light on the CPU (storage::light_writer), found
/// at the start: auto's prior on busy cores.
static LIGHT: std::sync::OnceLock<Option<&'static str>> = std::sync::OnceLock::new();

fn with_auto<R>(f: impl FnOnce(&mut crate::auto_mode::Auto) -> R) -> R {
    let mut g = AUTO.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Default::default))
}

/// The CPU counters at the start (the first checkpoint's idle span).
pub fn started(s: &Session) {
    if s.cfg.async_policy.is_none_or(|p| p == Async::Auto) {
        crate::auto_mode::set_look(look);
        let _ = LIGHT.set(crate::storage::light_writer(s));
        *CPU_PREV.lock().unwrap_or_else(|e| e.into_inner()) = crate::auto_mode::CpuSample::read(crate::policy::now_ns());
    }
}

/// A look of the policy at candidate count `n` while auto is measuring a
/// writer's span (auto_mode::measuring): has the writer finished?
fn look(now: u64, n: u64) {
    let done = match in_flight().as_mut() {
        Some(f) => drain(f),
        None => true,
    };
    if !with_auto(|a| a.look(now, n, done)) {
        crate::auto_mode::set_measuring(false);
    }
}

/// The DAO_STATS field of `auto`'s decision for this checkpoint, if it made one.
pub fn take_choice() -> Option<String> {
    CHOICE.lock().unwrap_or_else(|e| e.into_inner()).take().map(|c| {
        format!(",\"async\":{{\"background\":{},\"why\":{}}}", c.background, stats::quote(&c.why))
    })
}

/// The program goes on after a checkpoint; `write_s` is its synchronous
/// write's time (None: a background one, whose time its report brings);
/// `pause_s`: how long the program stopped for it, `collect_s` of which
/// the collection.
pub fn returned(write_s: Option<f64>, pause_s: f64, collect_s: f64) {
    let now = crate::policy::now_ns();
    LAST_END_NS.store(now, Ordering::Relaxed);
    if let Some(w) = write_s {
        LAST_WRITE_S.store(w.to_bits(), Ordering::Relaxed);
    }
    let mut prev = CPU_PREV.lock().unwrap_or_else(|e| e.into_inner());
    if prev.is_none() {
        return; // not auto
    }
    let n = crate::policy::candidates();
    with_auto(|a| a.returned(now, n, write_s.is_none(), pause_s, collect_s));
    crate::auto_mode::set_measuring(write_s.is_none());
    *prev = crate::auto_mode::CpuSample::read(now).or(*prev);
}

/// Whether this checkpoint is written in the background. `auto`: unless
/// checkpoints come faster than they are written: this one had to wait for
/// the previous writer (more than 1 ms), or the program computed less since
/// the previous (synchronous) checkpoint than its write took. Then the next
/// would wait for the writer anyway, and the fork, the copy-on-write faults
/// and a writer competing with the program's threads for cores make
/// background writing slower than writing in place (measured:
/// docs/design.md section 15). `auto` also writes in place inside a
/// non-blocking round (`nonblocking_round`), where the checked-in workers
/// run while the master forks: see docs/design.md section 15, "What is not
/// solved here".
pub fn wanted(s: &Session, nonblocking_round: bool) -> bool {
    // a checkpoint for a signal or the deadline: in the program, which is
    // waited for at once anyway (batch.rs)
    if crate::batch::urgent() {
        return false;
    }
    match policy(s) {
        Async::Off => false,
        Async::Wait | Async::Skip => true,
        Async::Auto if nonblocking_round => false,
        Async::Auto => {
            let gap = load_f(&GAP_S);
            let faster = WAITED.load(Ordering::Relaxed) || gap < load_f(&LAST_WRITE_S);
            let now = crate::policy::now_ns();
            let sample = crate::auto_mode::CpuSample::read(now);
            let prev = *CPU_PREV.lock().unwrap_or_else(|e| e.into_inner());
            let threads = crate::omp::libomp::max_threads().max(1) as u32;
            let mut machine = match &sample {
                Some(c) => c.machine_since(prev.as_ref(), threads),
                None => crate::auto_mode::Machine { usable: std::thread::available_parallelism().map_or(1.0, |n| n.get() as f64), idle: None, threads, light: None },
            };
            machine.light = LIGHT.get().copied().flatten();
            let ch = with_auto(|a| a.decide(now, crate::policy::candidates(), &machine, faster));
            let bg = ch.background;
            *CHOICE.lock().unwrap_or_else(|e| e.into_inner()) = Some(ch);
            bg
        }
    }
}

/// Memory available for a snapshot's copies, in bytes: DAO_MEM_AVAILABLE,
/// else the smaller of /proc/meminfo's MemAvailable and the headroom of
/// this process's cgroup (v2: memory.max - memory.current), if limited.
pub fn mem_available(configured: Option<u64>) -> Option<u64> {
    if configured.is_some() {
        return configured;
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines().find(|l| l.starts_with("MemAvailable:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()).map(|kib| kib * 1024)
    });
    let cgroup = cgroup_headroom();
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn cgroup_headroom() -> Option<u64> {
    let dir = crate::auto_mode::cgroup_dir()?;
    let max = std::fs::read_to_string(dir.join("memory.max")).ok()?.trim().parse::<u64>().ok()?;
    let cur = std::fs::read_to_string(dir.join("memory.current")).ok()?.trim().parse::<u64>().ok()?;
    Some(max.saturating_sub(cur))
}

/// Why a background checkpoint cannot be afforded now, if so.
pub fn unaffordable(rss: u64, available: Option<u64>) -> Option<String> {
    let a = available?;
    (rss > a).then(|| {
        format!(
            "a background checkpoint could need up to {} MiB (the resident size, if the program rewrites all of it while the snapshot is written) and {} MiB are available",
            rss >> 20,
            a >> 20
        )
    })
}

/// How the child's write ends under crash injection.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Kill {
    None,
    /// DAO_CRASH_IN: the job (parent and writer) half-way through.
    Job,
    /// DAO_CRASH_WRITER: the writer alone, half-way through.
    Writer,
}

/// Forks the writer. `write` runs in the child and returns its report;
/// `fields` are the DAO_STATS fields known now. Returns Err(errno text)
/// when the fork (or the pipe) fails: the caller writes synchronously.
#[allow(clippy::too_many_arguments)]
pub fn start(
    s: &mut Session,
    seq: u64,
    tmp: PathBuf,
    frames: usize,
    collect_s: f64,
    t0: Instant,
    fields: String,
    engine: Option<Box<ForkJob>>,
    write: impl FnOnce() -> Report,
) -> Result<(), (String, Option<Box<ForkJob>>)> {
    let measure = s.cfg.stats.is_some();
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err((format!("pipe: {}", std::io::Error::last_os_error()), engine));
    }
    let (rfd, wfd) = (fds[0], fds[1]);
    let parent = std::process::id() as libc::pid_t;
    let tf = Instant::now();
    // every signal blocked across the fork: the child changes its
    // dispositions before any handler can run in it (then unblocks all)
    let mask = crate::batch::block_for_fork(true);
    // the dao heap's lock held across the fork (heap::hold_across_fork):
    // the child's heap is consistent, and the child may walk it
    let pid = crate::heap::hold_across_fork(|| {
        // SAFETY: fork; the child runs only `child` below and _exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            child(parent, rfd, wfd, measure, write);
        }
        pid
    });
    if pid != 0 {
        crate::batch::unblock_after_fork(&mask);
    }
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: closing the descriptors pipe2 gave us.
        unsafe {
            libc::close(rfd);
            libc::close(wfd);
        }
        return Err((format!("fork: {e}"), engine));
    }
    let fork_s = tf.elapsed().as_secs_f64();
    // SAFETY: our copy of the write end; the read end is made non-blocking.
    unsafe {
        libc::close(wfd);
        let fl = libc::fcntl(rfd, libc::F_GETFL);
        libc::fcntl(rfd, libc::F_SETFL, fl | libc::O_NONBLOCK);
    }
    let f = InFlight {
        pid,
        fd: rfd,
        got: Vec::new(),
        seq,
        tmp,
        fields,
        frames,
        collect_s,
        pause_s: t0.elapsed().as_secs_f64(),
        fork_s,
        started: Instant::now(),
        owner: std::process::id(),
        engine,
    };
    let (pause_s, collect_s) = (f.pause_s, f.collect_s);
    *in_flight() = Some(f);
    returned(None, pause_s, collect_s);
    crate::policy::rearm();
    Ok(())
}

/// The child: write, report, _exit. Never returns.
/// `measure`: report the extra memory (for DAO_STATS; reading
/// smaps_rollup walks the page tables).
fn child(parent: libc::pid_t, rfd: RawFd, wfd: RawFd, measure: bool, write: impl FnOnce() -> Report) -> ! {
    diag::WRITER_OF.store(parent, Ordering::Relaxed);
    // every allocation here is the writer's own: never the dao heap (whose
    // lock a thread of the program may have held at the fork)
    crate::libc_alloc::own_thread();
    // SAFETY: plain libc calls on this single-threaded child.
    unsafe {
        libc::close(rfd);
        // a handler of the program never runs here; ignored signals stay
        // ignored (as across exec)
        for sig in 1..32 {
            let mut old: libc::sigaction = std::mem::zeroed();
            if sig != libc::SIGKILL && sig != libc::SIGSTOP && libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction != libc::SIG_IGN && old.sa_sigaction != libc::SIG_DFL {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        // the batch system's signals (batch.rs) reach every process of
        // the job: the writer finishes its file (and dies with the program)
        crate::batch::in_writer_child();
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        // the parent died before the line above: nobody to write for
        if libc::getppid() != parent {
            libc::_exit(0);
        }
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write))
        .unwrap_or_else(|_| Report { result: Err(("panic".into(), "the background writer panicked".into())), ..Report::default() });
    let mut r = r;
    if measure {
        r.extra_bytes = private_anon_bytes();
    }
    let b = r.encode();
    let mut off = 0;
    while off < b.len() {
        // SAFETY: writing our own buffer to our pipe end.
        let n = unsafe { libc::write(wfd, b[off..].as_ptr().cast(), b.len() - off) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        off += n as usize;
    }
    // SAFETY: leave without atexit handlers, stdio flushes or destructors.
    unsafe { libc::_exit(0) }
}

/// Anonymous memory of this process not shared with another (kB lines of
/// /proc/self/smaps_rollup: Private_Dirty + Private_Clean of anonymous
/// pages, approximated by Anonymous - Shared of the rollup).
fn private_anon_bytes() -> u64 {
    let Ok(t) = std::fs::read_to_string("/proc/self/smaps_rollup") else { return 0 };
    let field = |name: &str| -> u64 {
        t.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()).unwrap_or(0) * 1024
    };
    field("Private_Dirty:") + field("Private_Clean:")
}

/// Reads what the pipe holds. Returns true when the child is done (a
/// complete report, or end of file: every write end closed).
fn drain(f: &mut InFlight) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: reading into our buffer from our pipe end.
        let n = unsafe { libc::read(f.fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            f.got.extend_from_slice(&buf[..n as usize]);
            continue;
        }
        if n == 0 {
            return true;
        }
        let e = std::io::Error::last_os_error();
        match e.kind() {
            std::io::ErrorKind::Interrupted => continue,
            std::io::ErrorKind::WouldBlock => return Report::decode(&f.got).is_some(),
            _ => return true,
        }
    }
}

/// Blocks until the child is done.
fn wait_done(f: &mut InFlight) {
    while !drain(f) {
        let mut p = libc::pollfd { fd: f.fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: poll on one descriptor we own.
        unsafe { libc::poll(&mut p, 1, -1) };
    }
}

/// Writers that reported and were still exiting (tearing down their copy
/// of the address space) when their report was read: reaped later.
static EXITING: std::sync::Mutex<Vec<libc::pid_t>> = std::sync::Mutex::new(Vec::new());

/// Reaps the writers of [`EXITING`] that have exited.
fn reap_exited() {
    let mut g = EXITING.lock().unwrap_or_else(|e| e.into_inner());
    g.retain(|&pid| {
        let mut st = 0;
        // SAFETY: polling our own child.
        let r = unsafe { libc::waitpid(pid, &mut st, libc::WNOHANG) };
        r == 0
    });
}

/// Reaps the child and returns how it ended: Some(signal) if killed; None
/// when it exited or the program reaped it. `reported`: its report is
/// complete, so it is not waited for (its exit may take a while: it
/// unmaps its copy of the address space); it is reaped later.
fn reap(pid: libc::pid_t, reported: bool) -> Option<i32> {
    let mut st = 0;
    loop {
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::waitpid(pid, &mut st, if reported { libc::WNOHANG } else { 0 }) };
        if r == 0 {
            EXITING.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
            return None;
        }
        if r == pid {
            return libc::WIFSIGNALED(st).then(|| libc::WTERMSIG(st));
        }
        if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
}

/// Before a checkpoint: settles the one being written. Under `skip`,
/// returns false (skip this candidate) while the writer still runs;
/// otherwise waits for it.
pub fn before_checkpoint(s: &mut Session) -> bool {
    let end = LAST_END_NS.load(Ordering::Relaxed);
    let gap = if end == 0 { f64::INFINITY } else { crate::policy::now_ns().saturating_sub(end) as f64 * 1e-9 };
    GAP_S.store(gap.to_bits(), Ordering::Relaxed);
    WAITED.store(false, Ordering::Relaxed);
    let mut g = in_flight();
    let Some(f) = g.as_mut() else { return true };
    if f.owner != std::process::id() {
        *g = None;
        return true;
    }
    let wait_t = Instant::now();
    // a checkpoint a signal or the deadline asked for is never skipped
    if policy(s) == Async::Skip && !crate::batch::urgent() && !drain(f) {
        return false;
    }
    wait_done(f);
    let f = g.take().expect("in flight");
    drop(g);
    let waited = wait_t.elapsed().as_secs_f64();
    WAITED.store(waited > 0.001, Ordering::Relaxed);
    settle(s, f, waited);
    true
}

/// Waits for the checkpoint being written, if any, and settles it (at
/// normal exit, before the run is marked finished; and right after the
/// fork when DAO_CRASH_AFTER is due at this checkpoint).
pub fn finish(s: &mut Session) {
    let mut g = in_flight();
    let Some(f) = g.as_mut() else { return };
    if f.owner != std::process::id() {
        *g = None;
        return;
    }
    let t = Instant::now();
    wait_done(f);
    let f = g.take().expect("in flight");
    drop(g);
    settle(s, f, t.elapsed().as_secs_f64());
}

fn settle(s: &mut Session, mut f: InFlight, wait_s: f64) {
    let report = Report::decode(&f.got);
    reap_exited();
    let killed = reap(f.pid, report.is_some());
    // SAFETY: closing our read end.
    unsafe { libc::close(f.fd) };
    let elapsed = f.started.elapsed().as_secs_f64();
    if let Some(r) = &report {
        // what a checkpoint costs until its commit (batch.rs: the deadline)
        crate::batch::note_cost(f.pause_s + r.heap_collect_s + r.encode_s + r.write_s);
    }
    let policy_name = match policy(s) {
        Async::Skip => "skip",
        Async::Wait => "wait",
        _ => "auto",
    };
    let background = format!(
        "{{\"mode\":\"fork\",\"policy\":\"{policy_name}\",\"pause_s\":{:.6},\"fork_s\":{:.6},\"wait_s\":{:.6},\"elapsed_s\":{:.6},\"extra_bytes\":{},\"released_bytes\":{},\"released_unsaved_bytes\":{}}}",
        f.pause_s,
        f.fork_s,
        wait_s,
        elapsed,
        report.as_ref().map_or(0, |r| r.extra_bytes),
        report.as_ref().map_or(0, |r| r.released_bytes),
        report.as_ref().map_or(0, |r| r.released_unsaved_bytes)
    );
    let engine = f.engine.take();
    let Some(r) = report else {
        let _ = std::fs::remove_file(&f.tmp);
        let how = killed.map_or("ended".to_string(), |sig| format!("was killed by signal {sig}"));
        diag::warn(format_args!(
            "checkpoint {}: its background writer (pid {}) {how} before committing it; the previous checkpoint stays current (checkpointing continues)",
            f.seq, f.pid
        ));
        if let Some(job) = engine {
            settle_forked(s, *job, None, policy_name, &background, f.pause_s);
        }
        crate::policy::rearm();
        return;
    };
    // the writer's time, its heap collection included: what writing in
    // place would add to the pause (auto_mode.rs)
    let writer_s = r.heap_collect_s + r.write_s;
    LAST_WRITE_S.store(writer_s.to_bits(), Ordering::Relaxed);
    with_auto(|a| a.settled(writer_s, wait_s));
    // the fields as the writer completed them (the heap's numbers)
    if let Some(fields) = &r.fields {
        f.fields = fields.clone();
    }
    if let Some(job) = engine {
        if r.result.is_err() {
            let _ = std::fs::remove_file(&f.tmp);
        }
        settle_forked(s, *job, Some(r), policy_name, &background, f.pause_s);
        return;
    }
    if let Some(w) = &r.prune_warning {
        diag::warn_once(&format!("prune {w}"), w);
    }
    match r.result {
        Ok((path, file_bytes)) => {
            s.checkpoints += 1;
            s.commits += 1;
            s.next_seq = s.next_seq.max(f.seq + 1);
            if s.cfg.verbose {
                diag::info(format_args!(
                    "checkpoint {} written to {} ({} bytes, {} frames, collect {:.6} s, pause {:.6} s, background write {:.6} s)",
                    f.seq,
                    path.display(),
                    file_bytes,
                    f.frames,
                    f.collect_s,
                    f.pause_s,
                    r.write_s
                ));
            }
            stats::append(
                s.cfg.stats.as_deref(),
                &format!(
                    "{{\"event\":\"checkpoint\",\"writers\":1,\"seq\":{},\"file\":{},\"file_bytes\":{},\"write_s\":{:.6},\"encode_s\":{:.6},\"background\":{background},{}}}",
                    f.seq,
                    stats::quote(&path.display().to_string()),
                    file_bytes,
                    r.write_s,
                    r.encode_s,
                    f.fields
                ),
            );
            if s.cfg.crash_after == Some(s.commits) {
                if s.cfg.verbose {
                    diag::info(format_args!("DAO_CRASH_AFTER={}: killing the process", s.commits));
                }
                diag::kill_self();
            }
        }
        Err((key, e)) => {
            let _ = std::fs::remove_file(&f.tmp);
            diag::warn_once(&key, format_args!("{e} (checkpointing continues; this warning is shown once)"));
            crate::policy::rearm();
        }
    }
}

// ---- the storage engine (DAO_STORE=engine) run by the writer ----
/// An engine checkpoint written by a forked writer: what
/// the parent settles when the writer reports.
pub struct ForkJob {
    pending: crate::storage::Pending,
    /// The mapping shared with the writer (address, length): its first 8
    /// bytes the length of the chain hand-over that follows
    /// (`Engine::export_advance`).
    shm: usize,
    shm_len: usize,
}


/// Starts a forked writer that runs the engine on the child's image of
/// `regions` and `skeleton`. Err (the pipe, the mapping or the fork
/// failed): nothing was started, the caller writes synchronously.
/// `unsaved`: the program memory the checkpoint does not hold
/// (`Collected::unsaved`), given back by the child first.
pub fn checkpoint_forked(s: &mut Session, img: &mut crate::image::Image, p: crate::storage::Pending, t0: Instant, kill: Kill) -> Result<(), String> {
    let e = crate::storage::sync_engine(s).ok_or("no synchronous storage engine")?;
    // the skeleton and the regions are built by the child (246 797 regions
    // and a 6 MB skeleton for MG.A: 11-18 ms the program no longer waits
    // for), the heap's part of the collection too when pending; the
    // hand-over is sized from upper bounds of them
    let (count, bytes) = {
        let (n, b) = dao_format::skeleton_regions_bound(&img.parts());
        let (hn, hb) = img.c.heap_pending_bound();
        (n + hn, b + hb)
    };
    let shm_len = e.advance_bound_of(count, bytes) + 8;
    // SAFETY: a fresh anonymous shared mapping; unmapped when the job settles.
    let shm = unsafe { libc::mmap(std::ptr::null_mut(), shm_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0) };
    if shm == libc::MAP_FAILED {
        return Err(format!("mmap: {}", std::io::Error::last_os_error()));
    }
    let seq = e.next_seq();
    let tmp = e.dir().path().join(format!(".{}.tmp", dao_store::StoreDir::file_name(seq)));
    let engine_ptr: *mut Engine = e;
    let (frames, collect_s) = (p.frames, p.collect_s);
    let (release, release_unsaved) = (s.cfg.writer_release, s.cfg.release_unsaved);
    let job = ForkJob { pending: p, shm: shm as usize, shm_len };
    let write = move || {
        // SAFETY: runs only in the forked child, on its own copy of the
        // engine (the parent's is not touched by it).
        let e = unsafe { &mut *engine_ptr };
        img.finish_heap();
        let img = &*img;
        let parts = &img.parts();
        let given = if release_unsaved { crate::release::give_back_unsaved(&img.c.unsaved, parts) } else { 0 };
        let r = engine_in_child(e, parts, kill, shm.cast::<u8>(), shm_len, release);
        Report { released_unsaved_bytes: given, heap_collect_s: img.heap_collect_s, fields: Some(img.fields.clone()), ..r }
    };
    match start(s, seq, tmp, frames, collect_s, t0, String::new(), Some(Box::new(job)), write) {
        Ok(()) => {
            // the number is the writer's, whatever becomes of it
            if let Some(e) = crate::storage::sync_engine(s) {
                e.skip_to(seq + 1);
                s.next_seq = e.next_seq();
            }
            Ok(())
        }
        Err((e, job)) => {
            if let Some(job) = job {
                unmap(&job);
            }
            Err(e)
        }
    }
}

fn unmap(job: &ForkJob) {
    // SAFETY: the mapping made in checkpoint_forked, unmapped once.
    unsafe { libc::munmap(job.shm as *mut libc::c_void, job.shm_len) };
}

/// The forked writer's work: the skeleton and the regions of the
/// checkpoint, the engine's checkpoint (hash, delta, pipeline, commit, GC)
/// and the chain hand-over into the shared mapping.
fn engine_in_child(e: &mut Engine, parts: &dao_format::Parts<'_>, kill: Kill, shm: *mut u8, shm_len: usize, release: bool) -> Report {
    use crate::storage::error_key;
    let t = Instant::now();
    if let Err(err) = e.after_fork() {
        return Report { result: Err((format!("store {}", error_key(&err)), err.to_string())), ..Report::default() };
    }
    e.set_fault(match kill {
        Kill::None => None,
        Kill::Job => Some(crate::storage::crash_fault(true)),
        Kill::Writer => Some(crate::storage::crash_fault(false)),
    });
    let te = Instant::now();
    let skeleton = match dao_format::encode_skeleton(parts) {
        Ok(b) => b,
        Err(err) => return Report { result: Err((format!("skeleton {err}"), format!("its skeleton cannot be encoded: {err}"))), ..Report::default() },
    };
    let regions: Vec<Region<'_>> = dao_format::skeleton_regions(parts).into_iter().map(|(addr, bytes)| Region { addr, bytes }).collect();
    let encode_s = te.elapsed().as_secs_f64();
    let mut rel = crate::release::Releaser::new(parts);
    let r = if release {
        e.checkpoint_releasing(&regions, &skeleton, &mut |i| rel.written(regions[i].bytes))
    } else {
        e.checkpoint(&regions, &skeleton)
    };
    let released = rel.released;
    let write_s = t.elapsed().as_secs_f64();
    match r {
        Ok(c) => {
            let b = e.export_advance(&c);
            // SAFETY: the mapping holds shm_len bytes; a hand-over that does
            // not fit (it cannot: advance_bound) is left out (length 0), and
            // the parent starts a new chain.
            unsafe {
                let n = if b.len() + 8 <= shm_len { b.len() } else { 0 };
                std::ptr::copy_nonoverlapping((n as u64).to_le_bytes().as_ptr(), shm, 8);
                std::ptr::copy_nonoverlapping(b.as_ptr(), shm.add(8), n);
            }
            let done = crate::storage::Done { regions: regions.len(), skeleton_bytes: skeleton.len(), encode_s, ..crate::storage::Done::from(&c) };
            Report { result: Ok((c.path.clone(), c.file_bytes)), write_s, encode_s, released_bytes: released, store: Some(done.encode()), ..Report::default() }
        }
        Err(err) => Report { result: Err((format!("store {}", error_key(&err)), err.to_string())), write_s, released_bytes: released, ..Report::default() },
    }
}

/// Settles an engine checkpoint a forked writer wrote (background.rs):
/// `r` its report (None: it died before reporting), `policy` DAO_ASYNC's,
/// `background` the DAO_STATS `"background"` object.
/// `pause_s`: the time the program stopped for it (collection, fork).
fn settle_forked(s: &mut Session, mut job: ForkJob, r: Option<Report>, policy: &str, background: &str, pause_s: f64) {
    job.pending.pause_s = pause_s;
    // the fields as the writer completed them (the heap's numbers)
    if let Some(fields) = r.as_ref().and_then(|r| r.fields.as_ref()) {
        job.pending.fields = format!("\"writers\":1,{fields}");
    }
    let seq = job.pending.seq;
    let outcome = match r {
        None => None,
        Some(r) => Some(match r.result {
            Ok((path, _)) => match r.store.as_deref().and_then(|l| crate::storage::Done::decode(l, path)) {
                Some(d) => Ok(d),
                None => Err(("store report".to_string(), "the background writer's report is malformed".to_string())),
            },
            Err(e) => Err(e),
        }),
    };
    if let Some(Ok(_)) = &outcome {
        // SAFETY: reading the hand-over the writer (now done) left in the mapping.
        let hand_over = unsafe {
            let p = job.shm as *const u8;
            let mut n = [0u8; 8];
            std::ptr::copy_nonoverlapping(p, n.as_mut_ptr(), 8);
            let n = (u64::from_le_bytes(n) as usize).min(job.shm_len - 8);
            std::slice::from_raw_parts(p.add(8), n).to_vec()
        };
        if let Some(e) = crate::storage::sync_engine(s) {
            if let Err(err) = e.import_advance(&hand_over) {
                // the next checkpoint is full: never a delta against a
                // reference the parent does not have
                e.reset_chain();
                diag::warn_once("store hand-over", format_args!("checkpoint {seq}: {err}; the next checkpoint starts a new chain"));
            }
        }
    }
    unmap(&job);
    let ForkJob { mut pending, .. } = job;
    if let Some(Ok(d)) = &outcome {
        // built by the writer
        pending.regions = d.regions;
        pending.skeleton_bytes = d.skeleton_bytes;
        pending.fields = format!("{},\"encode_s\":{:.6}", pending.fields, d.encode_s);
    }
    match outcome {
        None => {} // background.rs warned
        Some(r) => {
            let failed = r.is_err();
            crate::storage::settle(s, pending, r, policy, "fork", &format!(",\"background\":{background}"));
            if failed {
                crate::policy::rearm();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affordability() {
        assert!(unaffordable(100 << 20, Some(50 << 20)).is_some());
        assert!(unaffordable(10 << 20, Some(50 << 20)).is_none());
        assert!(unaffordable(10 << 20, None).is_none());
        assert_eq!(mem_available(Some(7)), Some(7));
    }
}
