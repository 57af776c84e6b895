//! Solver time for 10^3 .. 10^6 candidate instances (docs/results.md):
//! `cargo run --release -p dao-placement --example solver_time`.
//! Synthetic instances (`synth::uniform`: 10 ms apart on average, 8 sites
//! of 10-90 MB, T_itvl = 1 s); median of 5 runs; the expected-time DP
//! (O(n * window)) up to 10^5.
use std::time::Instant;

use dao_placement::expected::{min_expected, CostModel};
use dao_placement::synth::uniform;
use dao_placement::window::{min_count_then_weight, min_weight};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let m = CostModel { mtbf: 3600.0, write_bandwidth: 1e9, read_bandwidth: 1e9, latency: 0.001, restart: 1.0 };
    println!("| instances | least bytes (DP) | fewest, then bytes | chosen | expected-time DP | segments examined |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let p = uniform(n, 1);
        let mut t1 = vec![];
        let mut t2 = vec![];
        let mut chosen = 0;
        for _ in 0..5 {
            let s = Instant::now();
            let c = min_weight(&p).unwrap();
            t1.push(s.elapsed().as_secs_f64());
            chosen = c.chosen.len();
            let s = Instant::now();
            let _ = min_count_then_weight(&p).unwrap();
            t2.push(s.elapsed().as_secs_f64());
        }
        let (te, ex) = if n <= 100_000 {
            let s = Instant::now();
            let (_, ex) = min_expected(&p, &m);
            (format!("{:.4} s", s.elapsed().as_secs_f64()), ex.to_string())
        } else {
            ("-".into(), "-".into())
        };
        println!("| {n} | {:.4} s | {:.4} s | {chosen} | {te} | {ex} |", median(t1), median(t2));
    }
}
