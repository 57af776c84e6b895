//! CPU-GPU placement (Jia, Yang, Ma: "checkpoint placement for CPU-GPU
//! programs", Journal of Software, 2013).
//!
//! A kernel cannot be interrupted and host-device copies happen at kernel
//! boundaries, so GPU state can only be checkpointed there: it is copied to
//! the host (bandwidth B2) and written to storage (bandwidth B). CPU and
//! GPU fail independently (exponential), MTBF_CPU and MTBF_GPU.
//!
//! - **Synchronous**: one checkpoint of both at a kernel boundary; the two
//!   form a series system, MTBF_CG = 1/(1/MTBF_CPU + 1/MTBF_GPU), interval
//!   T_C = -ln(R) MTBF_CG; the cost of boundary i is
//!   (C_i + G_i)/B + G_i/B2 seconds (C, G: live CPU and GPU bytes).
//! - **Asynchronous**: two independent placements. CPU checkpoints at any
//!   candidate instance (cost C_i/B, interval from MTBF_CPU); GPU
//!   checkpoints at kernel boundaries (cost G_j/B + G_j/B2, interval from
//!   MTBF_GPU). The CPU checkpoint overlaps GPU computation.
//! - **Offset window dt** ([`offset`]): the paper's heuristic. From the last
//!   checkpoint, the ideal next one is T_itvl later; among the boundaries in
//!   [ideal - dt, ideal] it takes the one with the smallest cost (the
//!   paper says "around" the ideal point; after it the interval would be
//!   exceeded, so we look only before). Without a boundary in the window it
//!   takes the latest one before the ideal point.
//!
//! Each placement problem is the paper's 0-1 model with costs in seconds as
//! weights, so [`crate::window::min_weight`] gives the exact optimum; the
//! paper solved it by filtered implicit enumeration ([`crate::enumerate`]).

use crate::error::Infeasible;
use crate::interval::{series_mtbf, t_itvl};
use crate::window::{min_weight, Choice, Problem};

/// One candidate instance: time, live CPU bytes, and live GPU bytes if it
/// is a kernel boundary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub time: f64,
    pub cpu_bytes: f64,
    pub gpu_bytes: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub mtbf_cpu: f64,
    pub mtbf_gpu: f64,
    pub reliability: f64,
    /// Storage bandwidth B, bytes/s.
    pub storage_bw: f64,
    /// Host-device bandwidth B2, bytes/s.
    pub host_device_bw: f64,
}

/// The placement of one checkpoint set.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// Indices into the points.
    pub chosen: Vec<usize>,
    /// Total checkpoint time, seconds.
    pub cost: f64,
    pub t_itvl: f64,
}

impl Side {
    pub fn count(&self) -> usize {
        self.chosen.len()
    }
    /// Mean cost of one checkpoint (0 if none).
    pub fn mean_cost(&self) -> f64 {
        if self.chosen.is_empty() { 0.0 } else { self.cost / self.chosen.len() as f64 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Async {
    pub cpu: Side,
    pub gpu: Side,
}

/// How a side is placed: the exact optimum, or the paper's offset heuristic
/// with window dt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// The least total cost.
    Exact,
    /// The fewest checkpoints, then the least cost (the paper's M fixed to
    /// its smallest admissible value).
    FewestThenCost,
    Offset(f64),
}

/// A sub-problem over some of the points, with the map back.
pub struct Sub {
    pub problem: Problem,
    pub index: Vec<usize>,
}

impl Sub {
    fn build(points: &[Point], end: f64, max_gap: f64, pick: impl Fn(&Point) -> Option<f64>) -> Sub {
        let (mut times, mut weights, mut index) = (vec![], vec![], vec![]);
        for (i, p) in points.iter().enumerate() {
            if let Some(w) = pick(p) {
                times.push(p.time);
                weights.push(w);
                index.push(i);
            }
        }
        Sub { problem: Problem { times, weights, end, max_gap }, index }
    }
    fn solve(&self, method: Method) -> Result<Side, Infeasible> {
        let c = match method {
            Method::Exact => min_weight(&self.problem),
            Method::FewestThenCost => crate::window::min_count_then_weight(&self.problem),
            Method::Offset(dt) => offset(&self.problem, dt),
        }
        .map_err(|mut e| {
            e.before = e.before.map(|i| self.index[i]);
            e.after = e.after.map(|i| self.index[i]);
            e
        })?;
        Ok(Side { chosen: c.chosen.iter().map(|&i| self.index[i]).collect(), cost: c.cost, t_itvl: self.problem.max_gap })
    }
}

/// The synchronous problem: kernel boundaries, series MTBF.
pub fn sync_problem(points: &[Point], end: f64, q: &Params) -> Sub {
    let l = t_itvl(series_mtbf(&[q.mtbf_cpu, q.mtbf_gpu]), q.reliability);
    Sub::build(points, end, l, |p| p.gpu_bytes.map(|g| (p.cpu_bytes + g) / q.storage_bw + g / q.host_device_bw))
}

/// The asynchronous problems: (CPU at every instance, GPU at boundaries).
pub fn async_problems(points: &[Point], end: f64, q: &Params) -> (Sub, Sub) {
    let cpu = Sub::build(points, end, t_itvl(q.mtbf_cpu, q.reliability), |p| Some(p.cpu_bytes / q.storage_bw));
    let gpu = Sub::build(points, end, t_itvl(q.mtbf_gpu, q.reliability), |p| {
        p.gpu_bytes.map(|g| g / q.storage_bw + g / q.host_device_bw)
    });
    (cpu, gpu)
}

pub fn synchronous(points: &[Point], end: f64, q: &Params, method: Method) -> Result<Side, Infeasible> {
    sync_problem(points, end, q).solve(method)
}

pub fn asynchronous(points: &[Point], end: f64, q: &Params, method: Method) -> Result<Async, Infeasible> {
    let (c, g) = async_problems(points, end, q);
    Ok(Async { cpu: c.solve(method)?, gpu: g.solve(method)? })
}

/// The paper's offset heuristic (module comment). Always feasible when a
/// placement exists; never better than [`min_weight`].
pub fn offset(p: &Problem, dt: f64) -> Result<Choice, Infeasible> {
    if let Some(g) = p.first_gap() {
        return Err(g);
    }
    let n = p.len();
    let mut chosen = Vec::new();
    let mut last = 0.0;
    // First instance not yet considered (all before it are <= last).
    let mut k = 0;
    while p.end - last > p.max_gap {
        let ideal = last + p.max_gap;
        // Instances in (last, ideal]; the window is [ideal - dt, ideal].
        let mut j = k;
        while j < n && p.times[j] <= ideal {
            j += 1;
        }
        // Candidates strictly after `last` (instances at `last` itself make
        // no progress).
        let mut first = k;
        while first < j && p.times[first] <= last {
            first += 1;
        }
        if first == j {
            unreachable!("first_gap() found no gap, so an instance lies in (last, last + T_itvl]");
        }
        let lo = ideal - dt;
        let mut best: Option<usize> = None;
        for i in first..j {
            if p.times[i] >= lo && best.map_or(true, |b| p.weights[i] <= p.weights[b]) {
                best = Some(i);
            }
        }
        let pick = best.unwrap_or(j - 1);
        chosen.push(pick);
        last = p.times[pick];
        k = pick + 1;
    }
    let cost = p.cost(&chosen);
    Ok(Choice { chosen, cost })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_window_picks_the_small_boundary() {
        // interval 4; boundaries every second; weight 1 at 3 and 6, else 9.
        let p = Problem {
            times: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            weights: vec![9.0, 9.0, 1.0, 9.0, 9.0, 1.0, 9.0, 9.0, 9.0],
            end: 10.0,
            max_gap: 4.0,
        };
        // dt = 0: always the latest boundary within the interval.
        assert_eq!(offset(&p, 0.0).unwrap().chosen, vec![3, 7]);
        // dt = 1: ideal 4 -> window [3, 4] -> 3 (t=3); ideal 7 -> [6, 7] -> t=6; ideal 10 = end.
        assert_eq!(offset(&p, 1.0).unwrap().chosen, vec![2, 5]);
        assert_eq!(min_weight(&p).unwrap().cost, 2.0);
    }

    #[test]
    fn series_interval_is_shorter() {
        let q = Params { mtbf_cpu: 400.0, mtbf_gpu: 240.0, reliability: 0.99, storage_bw: 1e9, host_device_bw: 4e9 };
        let pts: Vec<Point> = (1..100).map(|i| Point { time: i as f64 * 0.1, cpu_bytes: 1e6, gpu_bytes: Some(1e6) }).collect();
        let s = sync_problem(&pts, 10.0, &q);
        let (c, g) = async_problems(&pts, 10.0, &q);
        assert!(s.problem.max_gap < g.problem.max_gap && g.problem.max_gap < c.problem.max_gap);
        assert!((s.problem.max_gap - t_itvl(150.0, 0.99)).abs() < 1e-9);
    }
}
