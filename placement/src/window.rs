//! The exact optimum of the paper's 0-1 model by dynamic programming.
//!
//! Points 0..=n+1: point 0 is the program's start (t = 0), points 1..=n the
//! candidate instances sorted by time, point n+1 the end (t = T); the
//! virtual points cost nothing. A placement is a chain 0 = p_0 < p_1 < ...
//! < p_m < p_{m+1} = n+1 with t(p_{k+1}) - t(p_k) <= L for every k (L =
//! T_itvl); its cost is the sum of the weights of p_1..p_m.
//!
//! f(0) = 0, f(j) = w_j + min { f(i) : i < j, t_j - t_i <= L }, answer
//! f(n+1). Optimality: any placement ending at j is a placement ending at
//! its predecessor i plus the step i -> j, and the cost splits the same
//! way, so the best one ending at j extends the best one ending at some
//! admissible i (optimal substructure; no other state matters because the
//! constraint only links consecutive chosen points). Because the times are
//! sorted, the admissible predecessors of j form a contiguous range
//! [lo(j), j-1] with lo non-decreasing in j, so the minimum is a sliding
//! window minimum: a deque of indices with increasing f (an index is
//! dropped from the back when a newer one is no worse, from the front when
//! it leaves the window). Every index enters and leaves once: O(n) time
//! and memory, O(n log n) with the sort.
//!
//! Feasibility: a placement exists iff every two consecutive points are at
//! most L apart (then choosing every instance works; and no chain can jump
//! a longer gap). The DP finds the first such gap as an empty window.

use crate::error::Infeasible;

/// Candidate instances: `times` sorted non-decreasing in [0, end], one
/// non-negative weight each (saved bytes, or seconds of checkpoint cost).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub times: Vec<f64>,
    pub weights: Vec<f64>,
    /// T: the program's end (a virtual point; the last chosen instance must
    /// be at most `max_gap` before it).
    pub end: f64,
    /// T_itvl (may be infinite: then nothing needs to be chosen).
    pub max_gap: f64,
}

/// Chosen instances (indices into the problem, increasing) and their total
/// weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub chosen: Vec<usize>,
    pub cost: f64,
}

impl Problem {
    pub fn len(&self) -> usize {
        self.times.len()
    }
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Checks the shape of the input (sorted finite times within [0, end],
    /// non-negative finite weights, a positive interval).
    pub fn validate(&self) -> Result<(), String> {
        if self.times.len() != self.weights.len() {
            return Err(format!("{} times but {} weights", self.times.len(), self.weights.len()));
        }
        if !(self.end.is_finite() && self.end >= 0.0) {
            return Err(format!("the end time {} is not a non-negative number", self.end));
        }
        if !(self.max_gap > 0.0) || self.max_gap.is_nan() {
            return Err(format!("the interval {} is not positive", self.max_gap));
        }
        let mut prev = 0.0;
        for (i, (&t, &w)) in self.times.iter().zip(&self.weights).enumerate() {
            if !t.is_finite() || t < prev || t > self.end {
                return Err(format!("instance {i}: time {t} is not sorted within [0, {}]", self.end));
            }
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("instance {i}: weight {w} is not a non-negative number"));
            }
            prev = t;
        }
        Ok(())
    }

    fn time(&self, point: usize) -> f64 {
        match point {
            0 => 0.0,
            p if p == self.times.len() + 1 => self.end,
            p => self.times[p - 1],
        }
    }

    fn gap_error(&self, a: usize, b: usize) -> Infeasible {
        let n = self.times.len();
        let idx = |p: usize| (p >= 1 && p <= n).then(|| p - 1);
        let (from, to) = (self.time(a), self.time(b));
        Infeasible { before: idx(a), after: idx(b), from, to, gap: to - from, max_gap: self.max_gap }
    }

    /// Is `chosen` (increasing indices) a valid placement? Returns the first
    /// violated gap otherwise.
    pub fn check(&self, chosen: &[usize]) -> Result<(), Infeasible> {
        let mut prev = 0usize;
        for p in chosen.iter().map(|&i| i + 1).chain(std::iter::once(self.times.len() + 1)) {
            if self.time(p) - self.time(prev) > self.max_gap {
                return Err(self.gap_error(prev, p));
            }
            prev = p;
        }
        Ok(())
    }

    /// Total weight of `chosen`.
    pub fn cost(&self, chosen: &[usize]) -> f64 {
        // (+ 0.0: an empty f64 sum is -0.0)
        chosen.iter().map(|&i| self.weights[i]).sum::<f64>() + 0.0
    }

    /// The first gap between consecutive points that exceeds the interval.
    pub fn first_gap(&self) -> Option<Infeasible> {
        (0..=self.times.len()).find(|&p| self.time(p + 1) - self.time(p) > self.max_gap).map(|p| self.gap_error(p, p + 1))
    }
}

/// The exact minimum-weight placement (see the module comment). Ties are
/// broken towards later predecessors. Panics if the problem does not
/// [`Problem::validate`].
pub fn min_weight(p: &Problem) -> Result<Choice, Infeasible> {
    solve(p, false)
}

/// The placement with the fewest checkpoints and, among those, the least
/// weight: the paper's model read with M fixed to its smallest admissible
/// value (`sum x_i = M`, M as small as the interval allows). Same DP with
/// the lexicographic key (count, weight), which is also additive along the
/// chain, so the same proof applies.
pub fn min_count_then_weight(p: &Problem) -> Result<Choice, Infeasible> {
    solve(p, true)
}

fn solve(p: &Problem, fewest: bool) -> Result<Choice, Infeasible> {
    if let Err(e) = p.validate() {
        panic!("min_weight: {e}");
    }
    let n = p.times.len();
    // Key of a point: (checkpoints so far if `fewest`, else 0; weight).
    let mut f = vec![(0u64, 0.0f64); n + 2];
    let le = |a: (u64, f64), b: (u64, f64)| a.0 < b.0 || (a.0 == b.0 && a.1 <= b.1);
    let mut pred = vec![0u32; n + 2];
    // Deque of point indices, increasing index and key.
    let mut dq: std::collections::VecDeque<u32> = std::collections::VecDeque::with_capacity(64);
    for j in 1..=n + 1 {
        let last = j - 1;
        while dq.back().is_some_and(|&b| le(f[last], f[b as usize])) {
            dq.pop_back();
        }
        dq.push_back(last as u32);
        let tj = p.time(j);
        while dq.front().is_some_and(|&a| tj - p.time(a as usize) > p.max_gap) {
            dq.pop_front();
        }
        let Some(&best) = dq.front() else { return Err(p.gap_error(last, j)) };
        let (w, c) = if j <= n { (p.weights[j - 1], fewest as u64) } else { (0.0, 0) };
        let fb = f[best as usize];
        f[j] = (fb.0 + c, fb.1 + w);
        pred[j] = best;
    }
    let mut chosen = Vec::new();
    let mut k = pred[n + 1] as usize;
    while k != 0 {
        chosen.push(k - 1);
        k = pred[k] as usize;
    }
    chosen.reverse();
    Ok(Choice { cost: f[n + 1].1, chosen })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prob(times: &[f64], weights: &[f64], end: f64, gap: f64) -> Problem {
        Problem { times: times.to_vec(), weights: weights.to_vec(), end, max_gap: gap }
    }

    #[test]
    fn picks_the_cheap_one_in_each_window() {
        // 0 .. 10, gap 4: must have a point in every 4 s stretch.
        let p = prob(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], &[5.0, 1.0, 5.0, 5.0, 1.0, 5.0, 5.0, 1.0, 5.0], 10.0, 4.0);
        let c = min_weight(&p).unwrap();
        assert_eq!(c.chosen, vec![1, 4, 7]);
        assert_eq!(c.cost, 3.0);
        p.check(&c.chosen).unwrap();
    }

    #[test]
    fn nothing_needed_when_the_run_is_shorter_than_the_interval() {
        let p = prob(&[1.0, 2.0], &[3.0, 4.0], 3.0, 5.0);
        assert_eq!(min_weight(&p).unwrap(), Choice { chosen: vec![], cost: 0.0 });
        let p = prob(&[], &[], 3.0, 5.0);
        assert_eq!(min_weight(&p).unwrap().chosen, Vec::<usize>::new());
        let p = prob(&[1.0], &[3.0], 3.0, f64::INFINITY);
        assert_eq!(min_weight(&p).unwrap().chosen, Vec::<usize>::new());
    }

    #[test]
    fn gap_is_reported_with_its_neighbours() {
        let p = prob(&[1.0, 2.0, 9.0], &[1.0, 1.0, 1.0], 10.0, 4.0);
        let e = min_weight(&p).unwrap_err();
        assert_eq!((e.before, e.after), (Some(1), Some(2)));
        assert_eq!(e.gap, 7.0);
        assert_eq!(p.first_gap(), Some(e.clone()));
        assert!(e.to_string().contains("instance index 1") && e.to_string().contains("7.000000 s"), "{e}");
        // from the start
        let e = min_weight(&prob(&[5.0], &[1.0], 6.0, 4.0)).unwrap_err();
        assert_eq!((e.before, e.after), (None, Some(0)));
        assert!(e.to_string().contains("the program's start"));
        // to the end
        let e = min_weight(&prob(&[1.0], &[1.0], 6.0, 4.0)).unwrap_err();
        assert_eq!((e.before, e.after), (Some(0), None));
        assert!(e.to_string().contains("the program's end"));
        // no instance at all, run longer than the interval
        let e = min_weight(&prob(&[], &[], 6.0, 4.0)).unwrap_err();
        assert_eq!((e.before, e.after), (None, None));
    }

    #[test]
    fn equal_times_and_zero_weights() {
        let p = prob(&[2.0, 2.0, 2.0, 4.0], &[3.0, 0.0, 2.0, 1.0], 4.0, 2.0);
        let c = min_weight(&p).unwrap();
        assert_eq!(c.cost, 0.0);
        assert_eq!(c.chosen, vec![1]);
    }

    #[test]
    fn validate_rejects_bad_shapes() {
        assert!(prob(&[2.0, 1.0], &[1.0, 1.0], 3.0, 1.0).validate().is_err());
        assert!(prob(&[1.0], &[-1.0], 3.0, 1.0).validate().is_err());
        assert!(prob(&[4.0], &[1.0], 3.0, 1.0).validate().is_err());
        assert!(prob(&[1.0], &[1.0], 3.0, 0.0).validate().is_err());
        assert!(prob(&[1.0], &[1.0, 2.0], 3.0, 1.0).validate().is_err());
        assert!(prob(&[f64::NAN], &[1.0], 3.0, 1.0).validate().is_err());
    }
}
