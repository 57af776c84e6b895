//! The counters of fault-tolerant tasks, and their summary at exit (the
//! `task_ft` line of DAO_STATS and one line on stderr).
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::stats;

/// Counters of the summary.
pub(super) struct Counters {
    pub(super) tasks: AtomicU64,
    pub(super) runs: AtomicU64,
    pub(super) other_thread: AtomicU64,
    pub(super) reruns: AtomicU64,
    pub(super) crashes: AtomicU64,
    pub(super) runaways: AtomicU64,
    pub(super) mismatches: AtomicU64,
    pub(super) injected: AtomicU64,
    pub(super) not_landed: AtomicU64,
    pub(super) detected: AtomicU64,
    pub(super) corrected: AtomicU64,
    pub(super) benign: AtomicU64,
}
pub(super) static C: Counters = Counters {
    tasks: AtomicU64::new(0),
    runs: AtomicU64::new(0),
    other_thread: AtomicU64::new(0),
    reruns: AtomicU64::new(0),
    crashes: AtomicU64::new(0),
    runaways: AtomicU64::new(0),
    mismatches: AtomicU64::new(0),
    injected: AtomicU64::new(0),
    not_landed: AtomicU64::new(0),
    detected: AtomicU64::new(0),
    corrected: AtomicU64::new(0),
    benign: AtomicU64::new(0),
};

/// The `task_ft` line of DAO_STATS and the stderr summary (task.rs
/// `summary`: only when fault-tolerant tasks are on).
pub(super) fn report(stats: Option<&std::path::Path>) {
    let counters = [
        ("tasks", &C.tasks),
        ("runs", &C.runs),
        ("other_thread", &C.other_thread),
        ("reruns", &C.reruns),
        ("mismatches", &C.mismatches),
        ("crashes", &C.crashes),
        ("runaways", &C.runaways),
        ("injected", &C.injected),
        ("not_landed", &C.not_landed),
        ("detected", &C.detected),
        ("corrected", &C.corrected),
        ("benign", &C.benign),
    ];
    let v: Vec<u64> = counters.iter().map(|(_, a)| a.load(Relaxed)).collect();
    let fields: Vec<String> = counters.iter().zip(&v).map(|((k, _), n)| format!("\"{k}\":{n}")).collect();
    stats::append(stats, &format!("{{\"event\":\"task_ft\",{}}}", fields.join(",")));
    crate::diag::info(format_args!(
        "fault-tolerant tasks: {} tasks replicated ({} executions, {} pairs on two threads, {} re-executions); {} mismatches, {} replica crashes and {} runaways recovered; faults injected {} (not landed {}), detected {}, corrected {}, benign {}",
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]
    ));
}
