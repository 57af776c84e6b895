//! The CPU-GPU paper's table 1: synchronous vs asynchronous checkpoint
//! counts at MTBF_CPU = 400 s, MTBF_GPU = 240 s (R = 0.99), on synthetic
//! profiles shaped like its experiment (`synth::gpu_run`; the run length
//! per program from its synchronous count, `synth::table1_total`).
//!
//! Invariant: with the paper's M fixed to its smallest admissible value
//! (fewest checkpoints, then least cost), the asynchronous CPU and GPU
//! counts are the paper's for all six programs (they follow from the
//! intervals T_C = 4.02 s and T_G = 2.41 s against the series T_CG =
//! 1.51 s); the least-cost optimum with M free never has fewer checkpoints
//! nor a higher cost; an asynchronous checkpoint set costs less in total
//! than the synchronous one.

use dao_placement::gpu::{asynchronous, synchronous, Method, Params};
use dao_placement::interval::{series_mtbf, t_itvl};
use dao_placement::synth::{gpu_run, table1_total, TABLE1};

#[test]
fn table1_counts_are_reproduced() {
    let q = Params { mtbf_cpu: 400.0, mtbf_gpu: 240.0, reliability: 0.99, storage_bw: 1e9, host_device_bw: 4e9 };
    let t_c = t_itvl(series_mtbf(&[400.0, 240.0]), 0.99);
    for (k, row) in TABLE1.iter().enumerate() {
        let total = table1_total(row, t_c);
        let pts = gpu_run(total, 100 + k as u64);
        let s = synchronous(&pts, total, &q, Method::FewestThenCost).unwrap();
        let a = asynchronous(&pts, total, &q, Method::FewestThenCost).unwrap();
        let free = synchronous(&pts, total, &q, Method::Exact).unwrap();
        assert!(free.count() >= s.count() && free.cost <= s.cost + 1e-12, "{}", row.name);
        let free_a = asynchronous(&pts, total, &q, Method::Exact).unwrap();
        assert!(free_a.cpu.count() >= a.cpu.count() && free_a.gpu.count() >= a.gpu.count());
        assert_eq!(
            (s.count(), a.cpu.count(), a.gpu.count()),
            (row.sync, row.async_cpu, row.async_gpu),
            "{}: sync {} vs async {}+{}",
            row.name,
            s.count(),
            a.cpu.count(),
            a.gpu.count()
        );
        assert!(a.cpu.cost + a.gpu.cost < s.cost, "{}", row.name);
        // The offset heuristic is feasible and never better than the optimum.
        let h = synchronous(&pts, total, &q, Method::Offset(0.25 * t_c)).unwrap();
        assert!(h.cost >= free.cost - 1e-12);
    }
}
