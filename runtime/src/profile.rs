//! `DAO_PROFILE=path`: a profiling run for `dao place`. Every candidate
//! instance calls in (policy.rs arms `dao_poll` with 1) and is measured
//! without copying anything: `collect::collect` walks the chain and scans
//! the heap for reachability exactly as a checkpoint would, and we keep
//! only the byte counts. No checkpoint is written (DAO_DIR must be unset).
//!
//! Times are seconds since dao_main with the time spent measuring
//! subtracted, so they describe the unprofiled program; the measuring time
//! is recorded too (`overhead_s`, per instance `measure_s`). At exit the
//! profile is written atomically (temp file, rename) as JSON: one object
//! whose schema is `dao_placement::profile::Profile` (docs/design.md,
//! "Checkpoint placement"), one instance per line.
//!
//! Bytes: shared = globals + heap (and `heap_dead`, the blocks of heap
//! objects a checkpoint would leave out, not counted in either), private
//! (per thread) = slots + stack
//! objects of its frames + its thread-local values (`tls`). Instances are
//! the main thread's candidates; inside a parallel region the team is
//! gathered and `threads` has one entry per worker too (role "worker",
//! with the `state` it stopped in: candidate, barrier, exited), plus idle
//! workers outside regions that hold thread-local values.
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

use crate::abi::DaoFrame;
use crate::config::Config;
use crate::diag::{self, fatal};
use crate::identity::Identity;
use crate::policy::now_ns;
use crate::stats::quote;

static ON: AtomicBool = AtomicBool::new(false);
/// `DAO_SAVE=all` / `DAO_HEAP=all` during a profile: instances are measured
/// as a save-everything checkpoint would be (the baseline of the size
/// benchmarks, without writing anything).
static SAVE_ALL: AtomicBool = AtomicBool::new(false);
static HEAP_ALL: AtomicBool = AtomicBool::new(false);
static STATE: Mutex<Option<State>> = Mutex::new(None);

struct State {
    path: PathBuf,
    exe: String,
    ident: Identity,
    start_ns: u64,
    /// Time spent measuring so far.
    overhead_ns: u64,
    /// One JSON object per instance.
    lines: Vec<String>,
    /// Largest team seen at an instance.
    team: u32,
}

/// Starts profiling when DAO_PROFILE is set (config.rs has checked that
/// DAO_DIR is not).
pub fn setup(cfg: &Config) {
    let Some(path) = cfg.profile.clone() else { return };
    let start_ns = now_ns();
    let ident = crate::identity::current()
        .unwrap_or_else(|e| fatal(format_args!("cannot read /proc/self/exe to identify the executable: {e}")));
    let exe = std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or_default();
    *STATE.lock().unwrap_or_else(|e| e.into_inner()) = Some(State { path, exe, ident, start_ns, overhead_ns: 0, lines: Vec::new(), team: 1 });
    SAVE_ALL.store(cfg.save_all, Relaxed);
    HEAP_ALL.store(cfg.heap_all, Relaxed);
    ON.store(true, Relaxed);
    // (libc's registration, not the recording one: process.rs)
    crate::process::runtime_atexit(at_exit);
}

pub fn enabled() -> bool {
    ON.load(Relaxed)
}

fn frame_bytes(chain: &[dao_format::Frame<'_>]) -> (u64, u64) {
    let slots = chain.iter().flat_map(|f| &f.slots).map(|v| v.bytes.len() as u64).sum();
    let stack = chain.iter().flat_map(|f| &f.stack_objects).map(|o| o.bytes.len() as u64).sum();
    (slots, stack)
}

fn tls_bytes(t: &[dao_format::TlsValue<'_>]) -> u64 {
    t.iter().map(|v| v.bytes.len() as u64).sum()
}

/// The byte counts of one instance, as the JSON fields after "site".
fn measure(frame: *mut DaoFrame, workers: &[crate::collect::Stopped]) -> (String, u32) {
    let c = crate::collect::collect_team(frame, workers, SAVE_ALL.load(Relaxed), HEAP_ALL.load(Relaxed));
    let (ms, mk) = frame_bytes(&c.chain);
    let mt = tls_bytes(&c.master_tls);
    let wt: u64 = c.workers.iter().map(|w| tls_bytes(&w.tls)).sum();
    let mut threads = vec![format!("{{\"role\":\"master\",\"id\":0,\"slots\":{ms},\"stack\":{mk},\"tls\":{mt}}}")];
    let mut team = 1;
    for w in &c.workers {
        let (s, k) = frame_bytes(&w.chain);
        let state = match w.state {
            dao_format::WORKER_AT_CANDIDATE => "candidate",
            dao_format::WORKER_AT_BARRIER => "barrier",
            dao_format::WORKER_EXITED => "exited",
            _ => "idle",
        };
        if w.state != dao_format::WORKER_IDLE {
            team += 1;
        }
        threads.push(format!("{{\"role\":\"worker\",\"id\":{},\"state\":\"{state}\",\"slots\":{s},\"stack\":{k},\"tls\":{}}}", w.thread, tls_bytes(&w.tls)));
    }
    let globals = c.bytes.globals.saturating_sub(mt + wt);
    // heap_dead: the blocks of heap objects left out (not in the bytes)
    (format!("\"shared\":{{\"globals\":{globals},\"heap\":{},\"heap_dead\":{}}},\"threads\":[{}]", c.bytes.heap, c.bytes.heap_dead, threads.join(",")), team)
}

/// Measures the candidate instance the countdown just reached. Inside a
/// parallel region the team is gathered as for a checkpoint (the blocking
/// protocol), so every worker's private bytes are those at the position it
/// stopped at; the gathering time counts as measuring time.
pub fn record(frame: *mut DaoFrame) {
    let t0 = now_ns();
    let n = crate::policy::candidates();
    let site = crate::checkpoint::site_name(frame);
    let mut m = None;
    if crate::omp::in_region() {
        crate::protocol::with_team_stopped(false, |w, _| m = Some(measure(frame, w)));
    }
    // outside a region, or the team could not be gathered (DAO_OMP_TIMEOUT,
    // warned): the master alone
    let (fields, team) = m.unwrap_or_else(|| measure(frame, &[]));
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(s) = g.as_mut() else { return };
    let time = t0.saturating_sub(s.start_ns).saturating_sub(s.overhead_ns);
    s.team = s.team.max(team);
    let mut line = format!("{{\"n\":{n},\"time_s\":{:.9},\"site\":{},{fields}", time as f64 * 1e-9, quote(&site));
    // an offload program: this instance is a kernel boundary (offload/)
    let dead = if SAVE_ALL.load(Relaxed) { Vec::new() } else { crate::offload::dead_ranges(frame) };
    if let Some(d) = crate::offload::profile_fields(&dead) {
        line += ",";
        line += &d;
    }
    let spent = now_ns().saturating_sub(t0);
    line += &format!(",\"measure_s\":{:.9}}}", spent as f64 * 1e-9);
    s.lines.push(line);
    s.overhead_ns += now_ns().saturating_sub(t0);
}

extern "C" fn at_exit() {
    if std::panic::catch_unwind(finish).is_err() {
        diag::info("internal error while writing the DAO_PROFILE file; aborting");
        std::process::abort();
    }
}

fn finish() {
    if diag::FATAL.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let Some(s) = STATE.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
    let wall = now_ns().saturating_sub(s.start_ns);
    let total = wall.saturating_sub(s.overhead_ns);
    let text = format!(
        "{{\"format\":\"dao-profile\",\"version\":1,\"executable\":{{\"path\":{},\"hash\":\"{:016x}\",\"size\":{}}},\"threads\":{},\"total_time_s\":{:.9},\"overhead_s\":{:.9},\"wall_time_s\":{:.9},\"instances\":[\n{}\n]}}\n",
        quote(&s.exe),
        s.ident.hash,
        s.ident.size,
        s.team,
        total as f64 * 1e-9,
        s.overhead_ns as f64 * 1e-9,
        wall as f64 * 1e-9,
        s.lines.join(",\n")
    );
    let tmp = PathBuf::from(format!("{}.tmp", s.path.display()));
    let r = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, &s.path));
    match r {
        Ok(()) if crate::session::verbose() => diag::info(format_args!(
            "profile of {} candidate instances written to {} (measuring took {:.3} s of {:.3} s)",
            s.lines.len(),
            s.path.display(),
            s.overhead_ns as f64 * 1e-9,
            wall as f64 * 1e-9
        )),
        Ok(()) => {}
        Err(e) => diag::warn(format_args!("cannot write the DAO_PROFILE file {}: {e}", s.path.display())),
    }
}
