//! Fault injection (`DAO_TASK_FAULTS`): which executions get a fault, of
//! which kind, drawn from the seed.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use crate::config::{FaultKind, TaskFaults};

static FAULTS: OnceLock<Option<Faults>> = OnceLock::new();

/// Set up from `DAO_TASK_FAULTS` (once, at program start).
pub(super) fn configure(cfg: Option<TaskFaults>) {
    let _ = FAULTS.set(cfg.map(Faults::new));
}

/// The fault for the next first-or-second execution, if it gets one.
pub(super) fn draw() -> Option<Inject> {
    FAULTS.get().and_then(|f| f.as_ref()).and_then(Faults::draw)
}

/// splitmix64.
pub(super) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Faults {
    cfg: TaskFaults,
    /// The execution numbers (first and second runs of replicated tasks,
    /// counted from 0) that get a fault.
    targets: Vec<u64>,
    next: AtomicU64,
}

impl Faults {
    fn new(cfg: TaskFaults) -> Faults {
        let mut targets = Vec::new();
        let n = cfg.count.min(cfg.span);
        let mut k = 0;
        while (targets.len() as u64) < n {
            let t = mix(cfg.seed ^ mix(k)) % cfg.span;
            k += 1;
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        Faults { cfg, targets, next: AtomicU64::new(0) }
    }

    /// The fault for the next first-or-second execution, if it gets one.
    fn draw(&self) -> Option<Inject> {
        let n = self.next.fetch_add(1, Relaxed);
        if !self.targets.contains(&n) {
            return None;
        }
        let r = mix(self.cfg.seed ^ n.wrapping_mul(0xA24B_AED4_963E_E407));
        let kind = self.cfg.kind.unwrap_or(match r % 3 {
            0 => FaultKind::Write,
            1 => FaultKind::Value,
            _ => FaultKind::Pointer,
        });
        Some(Inject { kind, r: mix(r), at: u64::MAX, landed: false })
    }
}

pub(super) struct Inject {
    pub(super) kind: FaultKind,
    pub(super) r: u64,
    /// The load (value) or pointer load (pointer) it lands on.
    pub(super) at: u64,
    pub(super) landed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_draw_count_targets() {
        let f = TaskFaults::parse("7:3", 10).unwrap();
        let d = Faults::new(f);
        assert_eq!(d.targets.len(), 3);
        let hits = (0..10).filter(|_| d.draw().is_some()).count();
        assert_eq!(hits, 3);
        assert!(TaskFaults::parse("7:3:pointer", 10).unwrap().kind == Some(FaultKind::Pointer));
        assert!(TaskFaults::parse("x:3", 10).is_err());
    }
}
