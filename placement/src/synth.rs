//! Synthetic inputs: a small seeded RNG, random problems (tests), large
//! uniform ones (solver timing), and CPU-GPU profiles shaped like the
//! experiment of the CPU-GPU paper's table 1 (Jia, Yang, Ma, Journal of
//! Software, 2013).

use crate::gpu::Point;
use crate::window::Problem;

/// splitmix64 (Steele, Lea, Flood 2014): the workspace's one seeded RNG, also used
/// by the whole-program tests' random kills (dao-tests) and dao-store's codec tests.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random small problem with integer times and weights (so sums are
/// exact in f64): n instances, times in [0, 4n], end up to 4n + 4, an
/// interval between 1 and 2n + 2, weights 0..100; times repeat sometimes.
pub fn random_problem(rng: &mut Rng, n: usize) -> Problem {
    let horizon = 4 * n as u64 + 1;
    let mut times: Vec<f64> = (0..n).map(|_| rng.below(horizon) as f64).collect();
    times.sort_by(f64::total_cmp);
    let end = times.last().copied().unwrap_or(0.0) + rng.below(5) as f64;
    let weights = (0..n).map(|_| rng.below(100) as f64).collect();
    let max_gap = 1.0 + rng.below(2 * n as u64 + 2) as f64;
    Problem { times, weights, end, max_gap }
}

/// n instances, 10 ms apart on average (jittered), with sizes of 1-100 MB
/// in the pattern of an iterative solver (a few sites, each with its own
/// live set, plus noise); interval 1 s.
pub fn uniform(n: usize, seed: u64) -> Problem {
    let mut rng = Rng::new(seed);
    let mut t = 0.0;
    let mut times = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    let sites = [20e6, 60e6, 35e6, 90e6, 10e6, 45e6, 70e6, 25e6];
    for i in 0..n {
        t += 0.005 + 0.01 * rng.unit();
        times.push(t);
        weights.push((sites[i % sites.len()] * (0.9 + 0.2 * rng.unit())).round());
    }
    Problem { times, weights, end: t + 0.01, max_gap: 1.0 }
}

/// One program of the CPU-GPU paper's table 1 (checkpoint counts for
/// MTBF_CPU = 400 s, MTBF_GPU = 240 s).
#[derive(Debug, Clone, Copy)]
pub struct Table1Row {
    pub name: &'static str,
    pub sync: usize,
    pub async_cpu: usize,
    pub async_gpu: usize,
}

pub const TABLE1: [Table1Row; 6] = [
    Table1Row { name: "Swim", sync: 14, async_cpu: 5, async_gpu: 9 },
    Table1Row { name: "Mgrid", sync: 56, async_cpu: 21, async_gpu: 35 },
    Table1Row { name: "FFT2D", sync: 11, async_cpu: 4, async_gpu: 7 },
    Table1Row { name: "BackProp", sync: 66, async_cpu: 24, async_gpu: 41 },
    Table1Row { name: "BFS", sync: 28, async_cpu: 10, async_gpu: 17 },
    Table1Row { name: "Gaussian", sync: 52, async_cpu: 19, async_gpu: 32 },
];

/// A CPU-GPU run of `total` seconds: a time-step loop over a cycle of
/// kernels (3 to 6 kernels, 1-8 ms each), a kernel boundary at each kernel
/// entry and a host-only candidate in the middle of every kernel (the CPU
/// works while the GPU computes). As in GPU codes, the device arrays are
/// allocated once, so the live device data at a boundary is nearly the same
/// everywhere (one base of 16-256 MB, +-4% per kernel for temporaries);
/// the host data is 4-64 MB, +-4% per kernel, halved at host-only points.
/// Deterministic in `seed`.
pub fn gpu_run(total: f64, seed: u64) -> Vec<Point> {
    let mut rng = Rng::new(seed);
    let k = 3 + rng.below(4) as usize;
    let gpu_base = (16.0 + 240.0 * rng.unit()) * 1048576.0;
    let cpu_base = (4.0 + 60.0 * rng.unit()) * 1048576.0;
    let kernels: Vec<(f64, f64, f64)> = (0..k)
        .map(|_| {
            let dur = 0.001 + 0.007 * rng.unit();
            let gpu = gpu_base * (0.96 + 0.08 * rng.unit());
            let cpu = cpu_base * (0.96 + 0.08 * rng.unit());
            (dur, gpu.round(), cpu.round())
        })
        .collect();
    let mut pts = Vec::new();
    let mut t = 0.0;
    let mut i = 0;
    loop {
        let (dur, gpu, cpu) = kernels[i % k];
        if t + dur >= total {
            break;
        }
        pts.push(Point { time: t, cpu_bytes: cpu, gpu_bytes: Some(gpu) });
        pts.push(Point { time: t + dur / 2.0, cpu_bytes: (cpu * 0.5).round(), gpu_bytes: None });
        t += dur;
        i += 1;
    }
    pts
}

/// The run length we give a table-1 program: the paper does not state it,
/// so we put it in the middle of the range where the synchronous count can
/// be the paper's, (N_sync + 1/2) * T_C with T_C from the series MTBF; the
/// asynchronous counts are then the model's prediction, not fitted.
pub fn table1_total(row: &Table1Row, t_c: f64) -> f64 {
    (row.sync as f64 + 0.5) * t_c
}
