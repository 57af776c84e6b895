//! The solvers against exhaustive search on thousands of random small
//! inputs, and the degenerate and infeasible cases.
//!
//! Invariant: `min_weight` returns a feasible placement whose cost equals
//! the minimum over all 2^n subsets (brute force) and the paper's filtered
//! implicit enumeration; it is infeasible exactly when no subset is
//! feasible, and then names the same first gap.

use dao_placement::enumerate::{brute_force, implicit};
use dao_placement::expected::{evaluate, expected_time, min_expected, min_expected_unpruned, CostModel};
use dao_placement::gpu::{self, offset, Method, Params};
use dao_placement::synth::{random_problem, Rng};
use dao_placement::window::{min_count_then_weight, min_weight, Problem};

#[test]
fn dp_equals_brute_force_and_implicit_enumeration() {
    let mut rng = Rng::new(7);
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..6000 {
        let n = (case % 15) as usize;
        let p = random_problem(&mut rng, n);
        let dp = min_weight(&p);
        let bf = brute_force(&p);
        let (ie, _) = implicit(&p, None).unwrap();
        match (&dp, &bf, &ie) {
            (Ok(a), Ok(b), Ok(c)) => {
                feasible += 1;
                p.check(&a.chosen).unwrap_or_else(|e| panic!("case {case}: DP placement infeasible: {e}\n{p:?}"));
                assert_eq!(a.cost, p.cost(&a.chosen), "case {case}");
                assert_eq!(a.cost, b.cost, "case {case}: DP {a:?} vs brute force {b:?}\n{p:?}");
                assert_eq!(c.cost, b.cost, "case {case}: implicit enumeration {c:?} vs brute force {b:?}\n{p:?}");
                p.check(&c.chosen).unwrap();
                assert!(a.chosen.windows(2).all(|w| w[0] < w[1]));
                // Fewest checkpoints, then least weight: against brute force.
                let f = min_count_then_weight(&p).unwrap();
                p.check(&f.chosen).unwrap();
                let mut best = (usize::MAX, f64::INFINITY);
                for mask in 0u32..(1 << n) {
                    let s: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
                    if p.check(&s).is_ok() {
                        let k = (s.len(), p.cost(&s));
                        if k.0 < best.0 || (k.0 == best.0 && k.1 < best.1) {
                            best = k;
                        }
                    }
                }
                assert_eq!((f.chosen.len(), f.cost), best, "case {case}");
                assert!(f.chosen.len() <= a.chosen.len() && f.cost >= a.cost);
            }
            (Err(a), Err(b), Err(c)) => {
                infeasible += 1;
                assert_eq!(a, b, "case {case}");
                assert_eq!(a, c, "case {case}");
                assert!(a.gap > p.max_gap);
            }
            _ => panic!("case {case}: feasibility disagrees: {dp:?} {bf:?} {ie:?}\n{p:?}"),
        }
    }
    // The generator must exercise both outcomes.
    assert!(feasible > 1000 && infeasible > 500, "feasible {feasible}, infeasible {infeasible}");
}

#[test]
fn implicit_enumeration_filter_cuts_nodes() {
    let mut rng = Rng::new(11);
    let p = loop {
        let p = random_problem(&mut rng, 20);
        if min_weight(&p).is_ok() && p.max_gap > 8.0 {
            break p;
        }
    };
    let (r, nodes) = implicit(&p, None).unwrap();
    assert_eq!(r.unwrap().cost, min_weight(&p).unwrap().cost);
    assert!(nodes.filtered > 0);
    // and the node limit stops it
    assert!(implicit(&p, Some(3)).is_none());
}

#[test]
fn large_inputs_stay_feasible_and_no_worse_than_greedy() {
    let p = dao_placement::synth::uniform(200_000, 3);
    let c = min_weight(&p).unwrap();
    p.check(&c.chosen).unwrap();
    let heur = offset(&p, 0.2).unwrap();
    p.check(&heur.chosen).unwrap();
    assert!(c.cost <= heur.cost);
    // 200,000 instances over ~2000 s with a 1 s interval: about 2000 chosen.
    assert!(c.chosen.len() > 1500 && c.chosen.len() < 4000, "{}", c.chosen.len());
}

#[test]
fn degenerate_inputs() {
    let cases = [
        // no instances, short run: nothing chosen
        (Problem { times: vec![], weights: vec![], end: 1.0, max_gap: 2.0 }, Some(0)),
        // every instance at time 0 and end 0
        (Problem { times: vec![0.0; 5], weights: vec![1.0; 5], end: 0.0, max_gap: 1.0 }, Some(0)),
        // the run is exactly one interval long
        (Problem { times: vec![0.5], weights: vec![3.0], end: 2.0, max_gap: 2.0 }, Some(0)),
        // one interval and a bit: the single instance is needed
        (Problem { times: vec![1.0], weights: vec![3.0], end: 2.0, max_gap: 1.0 }, Some(1)),
        // gap exactly equal to the interval is allowed
        (Problem { times: vec![1.0, 2.0], weights: vec![3.0, 1.0], end: 3.0, max_gap: 1.0 }, Some(2)),
        // infinite interval
        (Problem { times: vec![1.0], weights: vec![3.0], end: 1e9, max_gap: f64::INFINITY }, Some(0)),
        // no instances, long run: infeasible
        (Problem { times: vec![], weights: vec![], end: 3.0, max_gap: 2.0 }, None),
    ];
    for (p, want) in cases {
        match (min_weight(&p), want) {
            (Ok(c), Some(k)) => assert_eq!(c.chosen.len(), k, "{p:?}"),
            (Err(_), None) => {}
            (r, w) => panic!("{p:?}: got {r:?}, want {w:?}"),
        }
    }
}

fn model(rng: &mut Rng) -> CostModel {
    CostModel {
        mtbf: 5.0 + 50.0 * rng.unit(),
        write_bandwidth: 20.0 + 100.0 * rng.unit(),
        read_bandwidth: 20.0 + 200.0 * rng.unit(),
        latency: 0.2 * rng.unit(),
        restart: 0.5 * rng.unit(),
    }
}

#[test]
fn expected_time_optimum_equals_brute_force() {
    let mut rng = Rng::new(5);
    for case in 0..2000 {
        let n = (case % 12) as usize;
        let p = random_problem(&mut rng, n);
        let m = model(&mut rng);
        let (dp, _) = min_expected(&p, &m);
        let plain = min_expected_unpruned(&p, &m);
        let mut best = f64::INFINITY;
        for mask in 0u32..(1 << n) {
            let chosen: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
            best = best.min(expected_time(&p, &m, &chosen));
        }
        let tol = 1e-9 * best.max(1.0);
        assert!((dp.cost - best).abs() <= tol, "case {case}: pruned DP {} vs brute force {best}\n{p:?}\n{m:?}", dp.cost);
        assert!((plain.cost - best).abs() <= tol, "case {case}: DP {} vs brute force {best}", plain.cost);
        assert!((expected_time(&p, &m, &dp.chosen) - dp.cost).abs() <= tol);
        let e = evaluate(&p, &m, &dp.chosen);
        assert_eq!(e.count, dp.chosen.len());
        assert!(e.expected_time >= p.end);
    }
}

#[test]
fn expected_time_optimum_beats_young_and_daly() {
    let p = dao_placement::synth::uniform(20_000, 9);
    let m = CostModel { mtbf: 600.0, write_bandwidth: 500e6, read_bandwidth: 1e9, latency: 0.01, restart: 1.0 };
    let (opt, examined) = min_expected(&p, &m);
    let r = dao_placement::expected::reference(&p, &m);
    let ey = expected_time(&p, &m, &r.young_placement);
    let ed = expected_time(&p, &m, &r.daly_placement);
    assert!(opt.cost <= ey + 1e-9 && opt.cost <= ed + 1e-9, "{} {ey} {ed}", opt.cost);
    // The pruning (segments longer than d_max cannot be optimal) must cut
    // a good part of the n^2 / 2 = 2e8 segments.
    assert!(examined < 150_000_000, "{examined}");
    // Segments of the optimum are near Young's interval (same order).
    let e = evaluate(&p, &m, &opt.chosen);
    assert!(e.max_gap < 4.0 * r.young && e.max_gap > 0.25 * r.young, "{} vs {}", e.max_gap, r.young);
}

#[test]
fn gpu_placements_equal_brute_force() {
    let mut rng = Rng::new(13);
    let mut checked = 0;
    for case in 0..3000 {
        let n = 1 + (case % 14) as usize;
        let mut t = 0.0;
        let pts: Vec<gpu::Point> = (0..n)
            .map(|_| {
                t += rng.below(4) as f64;
                gpu::Point {
                    time: t,
                    cpu_bytes: rng.below(50) as f64,
                    gpu_bytes: (rng.below(3) != 0).then(|| rng.below(80) as f64),
                }
            })
            .collect();
        let end = t + rng.below(4) as f64;
        let q = Params {
            mtbf_cpu: 100.0 + rng.below(800) as f64,
            mtbf_gpu: 100.0 + rng.below(800) as f64,
            reliability: 0.99,
            storage_bw: 1.0 + rng.below(4) as f64,
            host_device_bw: 1.0 + rng.below(8) as f64,
        };
        let sync = gpu::sync_problem(&pts, end, &q);
        let (cpu, gpuside) = gpu::async_problems(&pts, end, &q);
        for sub in [&sync, &cpu, &gpuside] {
            let bf = brute_force(&sub.problem);
            let dp = min_weight(&sub.problem);
            match (&bf, &dp) {
                (Ok(b), Ok(d)) => {
                    checked += 1;
                    assert!((b.cost - d.cost).abs() <= 1e-9 * b.cost.max(1.0), "case {case}: {b:?} {d:?}");
                    let h = offset(&sub.problem, 0.3 * sub.problem.max_gap).unwrap();
                    sub.problem.check(&h.chosen).unwrap();
                    assert!(h.cost + 1e-9 >= d.cost);
                }
                (Err(_), Err(_)) => {}
                _ => panic!("case {case}: feasibility differs {bf:?} {dp:?}"),
            }
        }
        // The public entry points map indices back to the points.
        if let Ok(s) = gpu::synchronous(&pts, end, &q, Method::Exact) {
            assert!(s.chosen.iter().all(|&i| pts[i].gpu_bytes.is_some()));
        }
        if let Ok(a) = gpu::asynchronous(&pts, end, &q, Method::Exact) {
            assert!(a.gpu.chosen.iter().all(|&i| pts[i].gpu_bytes.is_some()));
        }
    }
    assert!(checked > 2000, "{checked}");
}
