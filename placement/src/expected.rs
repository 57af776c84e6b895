//! Beyond the paper: the placement that minimises the expected run time
//! under failures, and the numbers every placement is reported with.
//!
//! Model. Failures are exponential with rate lambda = 1/M (M = MTBF).
//! Checkpoint at instance j costs c_j = latency + s_j / B_write seconds;
//! restarting from the checkpoint at i costs R_i = restart + s_i / B_read
//! (from the program's start: R_0 = restart). A segment runs d = t_j - t_i
//! seconds of work from the checkpoint at i and then writes the one at j
//! (at the end of the program nothing is written: c = 0). An attempt takes
//! X = d + c_j and succeeds with probability p = e^{-lambda X}; a failure
//! at time tau < X costs tau plus R_i, and the segment is tried again (we
//! assume no failure during the restart itself). With E[tau | tau < X] =
//! 1/lambda - X e^{-lambda X} / (1 - e^{-lambda X}) and (1-p)/p expected
//! failures,
//!
//!   E(i, j) = X + (1-p)/p (E[tau | tau < X] + R_i)
//!           = (e^{lambda X} - 1) (M + R_i),
//!
//! the standard form (Daly 2006 without failures during recovery). Segments
//! are independent (memoryless failures), so the expected run time of a
//! placement is the sum of its segments' E, and the optimum is the DP
//! g(j) = min_{i<j} g(i) + E(i, j), g(0) = 0, answer g(n+1): O(n^2).
//!
//! Pruning, exact: every segment costs at least d + waste(d) with
//! waste(d) = M (e^{d/M} - 1) - d (take c = R = 0), and waste is
//! increasing. Segments sum to T, so a placement whose longest segment is
//! d costs at least T + waste(d). Given any placement of expected time U
//! (we use the better of Young's and Daly's periodic placements and of no
//! checkpoint at all), the optimum has no segment longer than d_max with
//! waste(d_max) = U - T, and the DP only looks that far back. Second, per
//! j: g(i) >= t_i (every segment costs at least its work) and E grows with
//! the recovery cost, so g(i) + E(i, j) >= t_j - d + E(d, c_j, restart),
//! a bound that does not decrease with d (its derivative is
//! (M + restart)/M e^{(d+c)/M} - 1 >= 0): scanning i backwards, the DP
//! stops at the first i whose bound reaches the best value found so far.
//!
//! Young's interval sqrt(2 C M) and Daly's are computed with C the mean
//! checkpoint cost over the instances; their placements are periodic
//! (the first instance at least the interval after the previous
//! checkpoint, what DAO_INTERVAL does at run time).

use crate::interval;
use crate::window::{Choice, Problem};

/// Costs of checkpointing and restarting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    /// Mean time between failures, seconds.
    pub mtbf: f64,
    /// Bytes per second when writing a checkpoint.
    pub write_bandwidth: f64,
    /// Bytes per second when reading one at restart.
    pub read_bandwidth: f64,
    /// Fixed cost per checkpoint, seconds.
    pub latency: f64,
    /// Fixed cost of a restart (relaunch, before reading), seconds.
    pub restart: f64,
}

impl CostModel {
    pub fn checkpoint_cost(&self, bytes: f64) -> f64 {
        self.latency + bytes / self.write_bandwidth
    }
    pub fn recovery_cost(&self, bytes: f64) -> f64 {
        self.restart + bytes / self.read_bandwidth
    }
    /// E(segment): `work` seconds, then a checkpoint costing `ckpt`, after
    /// a restart costing `recovery` on each failure.
    pub fn segment(&self, work: f64, ckpt: f64, recovery: f64) -> f64 {
        ((work + ckpt) / self.mtbf).exp_m1() * (self.mtbf + recovery)
    }
    fn waste(&self, d: f64) -> f64 {
        (d / self.mtbf).exp_m1() * self.mtbf - d
    }
}

/// The expected run time of the placement `chosen` (increasing indices;
/// the problem's weights are the instances' bytes).
pub fn expected_time(p: &Problem, m: &CostModel, chosen: &[usize]) -> f64 {
    let mut total = 0.0;
    let (mut t, mut r) = (0.0, m.restart);
    for &i in chosen {
        total += m.segment(p.times[i] - t, m.checkpoint_cost(p.weights[i]), r);
        t = p.times[i];
        r = m.recovery_cost(p.weights[i]);
    }
    total + m.segment(p.end - t, 0.0, r)
}

/// The periodic placement for interval `tau`: the first instance at least
/// `tau` after the previous checkpoint (or the start).
pub fn periodic(p: &Problem, tau: f64) -> Vec<usize> {
    let mut last = 0.0;
    let mut out = Vec::new();
    for (i, &t) in p.times.iter().enumerate() {
        if t - last >= tau {
            out.push(i);
            last = t;
        }
    }
    out
}

/// Mean checkpoint cost over the instances (0 without instances).
pub fn mean_cost(p: &Problem, m: &CostModel) -> f64 {
    if p.is_empty() {
        return 0.0;
    }
    p.weights.iter().map(|&s| m.checkpoint_cost(s)).sum::<f64>() / p.len() as f64
}

/// Young's and Daly's intervals for this problem, and their periodic
/// placements.
#[derive(Debug, Clone)]
pub struct Reference {
    pub mean_cost: f64,
    pub young: f64,
    pub daly: f64,
    pub young_placement: Vec<usize>,
    pub daly_placement: Vec<usize>,
}

pub fn reference(p: &Problem, m: &CostModel) -> Reference {
    let c = mean_cost(p, m);
    let (y, d) = (interval::young(c, m.mtbf), interval::daly(c, m.mtbf));
    Reference { mean_cost: c, young: y, daly: d, young_placement: periodic(p, y), daly_placement: periodic(p, d) }
}

/// The placement of minimum expected run time (exact; see the module
/// comment). Returns it with its expected time as `cost`, and the number
/// of segments the DP examined.
pub fn min_expected(p: &Problem, m: &CostModel) -> (Choice, u64) {
    if let Err(e) = p.validate() {
        panic!("min_expected: {e}");
    }
    let n = p.len();
    let r = reference(p, m);
    let upper = [expected_time(p, m, &r.young_placement), expected_time(p, m, &r.daly_placement), expected_time(p, m, &[])]
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    // d_max: waste(d_max) = upper - T, by bisection (waste is increasing).
    let slack = (upper - p.end).max(0.0);
    let (mut lo, mut hi) = (0.0f64, p.end.max(1e-9));
    if m.waste(hi) <= slack {
        lo = hi;
    } else {
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if m.waste(mid) <= slack {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    let d_max = hi.max(lo) * (1.0 + 1e-9) + 1e-12;
    let time = |k: usize| if k == 0 { 0.0 } else if k == n + 1 { p.end } else { p.times[k - 1] };
    let bytes = |k: usize| if k == 0 || k == n + 1 { 0.0 } else { p.weights[k - 1] };
    let mut g = vec![f64::INFINITY; n + 2];
    let mut pred = vec![0u32; n + 2];
    let mut rec = vec![0.0f64; n + 2];
    g[0] = 0.0;
    rec[0] = m.restart;
    let mut examined = 0u64;
    for j in 1..=n + 1 {
        let tj = time(j);
        let cj = if j == n + 1 { 0.0 } else { m.checkpoint_cost(bytes(j)) };
        let (mut best, mut arg) = (f64::INFINITY, 0usize);
        for i in (0..j).rev() {
            let d = tj - time(i);
            if d > d_max {
                break;
            }
            // g(i) >= t_i and E(i, j) >= E with the smallest recovery, so
            // g(i) + E(i, j) >= t_j - d + E(d, c_j, restart), which does
            // not decrease with d: nothing further back can beat `best`
            if tj - d + m.segment(d, cj, m.restart) >= best {
                break;
            }
            if g[i].is_finite() {
                examined += 1;
                let v = g[i] + m.segment(d, cj, rec[i]);
                if v < best {
                    best = v;
                    arg = i;
                }
            }
        }
        g[j] = best;
        pred[j] = arg as u32;
        rec[j] = m.recovery_cost(bytes(j));
    }
    let mut chosen = Vec::new();
    let mut k = pred[n + 1] as usize;
    while k != 0 {
        chosen.push(k - 1);
        k = pred[k] as usize;
    }
    chosen.reverse();
    (Choice { chosen, cost: g[n + 1] }, examined)
}

/// What every placement is reported with: both objectives.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub count: usize,
    /// Total saved bytes (the paper's objective).
    pub bytes: f64,
    /// Longest stretch between consecutive checkpoints, the start and the end.
    pub max_gap: f64,
    /// Whether every stretch is within T_itvl.
    pub within_t_itvl: bool,
    /// Expected run time under the cost model (beyond the paper).
    pub expected_time: f64,
    /// Total checkpoint time without failures.
    pub checkpoint_time: f64,
}

pub fn evaluate(p: &Problem, m: &CostModel, chosen: &[usize]) -> Evaluation {
    let mut max_gap = 0.0f64;
    let mut last = 0.0;
    for &i in chosen {
        max_gap = max_gap.max(p.times[i] - last);
        last = p.times[i];
    }
    max_gap = max_gap.max(p.end - last);
    Evaluation {
        count: chosen.len(),
        bytes: p.cost(chosen),
        max_gap,
        within_t_itvl: p.check(chosen).is_ok(),
        expected_time: expected_time(p, m, chosen),
        checkpoint_time: chosen.iter().map(|&i| m.checkpoint_cost(p.weights[i])).sum(),
    }
}

/// The plain O(n^2) DP without pruning (tests compare the two).
pub fn min_expected_unpruned(p: &Problem, m: &CostModel) -> Choice {
    let n = p.len();
    let time = |k: usize| if k == 0 { 0.0 } else if k == n + 1 { p.end } else { p.times[k - 1] };
    let bytes = |k: usize| if k == 0 || k == n + 1 { 0.0 } else { p.weights[k - 1] };
    let mut g = vec![0.0f64; n + 2];
    let mut pred = vec![0usize; n + 2];
    for j in 1..=n + 1 {
        let cj = if j == n + 1 { 0.0 } else { m.checkpoint_cost(bytes(j)) };
        let (mut best, mut arg) = (f64::INFINITY, 0);
        for i in 0..j {
            let r = if i == 0 { m.restart } else { m.recovery_cost(bytes(i)) };
            let v = g[i] + m.segment(time(j) - time(i), cj, r);
            if v < best {
                best = v;
                arg = i;
            }
        }
        g[j] = best;
        pred[j] = arg;
    }
    let mut chosen = Vec::new();
    let mut k = pred[n + 1];
    while k != 0 {
        chosen.push(k - 1);
        k = pred[k];
    }
    chosen.reverse();
    Choice { chosen, cost: g[n + 1] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_formula_matches_a_direct_expectation() {
        // Monte-Carlo-free check: for small lambda X, E ~ X + lambda X (X/2 + R).
        let m = CostModel { mtbf: 1e6, write_bandwidth: 1.0, read_bandwidth: 1.0, latency: 0.0, restart: 0.0 };
        let e = m.segment(10.0, 0.0, 5.0);
        let approx = 10.0 + 10.0 / 1e6 * (5.0 + 5.0);
        assert!((e - approx).abs() < 1e-6, "{e} vs {approx}");
    }

    #[test]
    fn no_failures_no_checkpoints() {
        let p = Problem { times: vec![1.0, 2.0], weights: vec![1e6, 1e6], end: 3.0, max_gap: 1.0 };
        let m = CostModel { mtbf: 1e12, write_bandwidth: 1e6, read_bandwidth: 1e6, latency: 0.0, restart: 0.0 };
        let (c, _) = min_expected(&p, &m);
        assert!(c.chosen.is_empty());
        assert!((c.cost - 3.0).abs() < 1e-6);
    }
}
