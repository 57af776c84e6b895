//! The CPU-GPU paper's table 1 on synthetic profiles (docs/results.md):
//! `cargo run --release -p dao-placement --example gpu_table1`.
//! MTBF_CPU = 400 s, MTBF_GPU = 240 s, R = 0.99, B = 1 GB/s, B2 = 4 GB/s.
use dao_placement::gpu::{asynchronous, synchronous, Method, Params};
use dao_placement::interval::{series_mtbf, t_itvl};
use dao_placement::synth::{gpu_run, table1_total, TABLE1};

fn main() {
    let q = Params { mtbf_cpu: 400.0, mtbf_gpu: 240.0, reliability: 0.99, storage_bw: 1e9, host_device_bw: 4e9 };
    let t_c = t_itvl(series_mtbf(&[400.0, 240.0]), 0.99);
    println!("| program | run s | paper sync | paper async | ours sync | ours async | least-cost sync / async | one async vs one sync ckpt | total ckpt time async vs sync | offset dt=0.25 T_CG sync cost vs optimum |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (k, row) in TABLE1.iter().enumerate() {
        let total = table1_total(row, t_c);
        let pts = gpu_run(total, 100 + k as u64);
        let s = synchronous(&pts, total, &q, Method::FewestThenCost).unwrap();
        let a = asynchronous(&pts, total, &q, Method::FewestThenCost).unwrap();
        let fs = synchronous(&pts, total, &q, Method::Exact).unwrap();
        let fa = asynchronous(&pts, total, &q, Method::Exact).unwrap();
        let h = synchronous(&pts, total, &q, Method::Offset(0.25 * t_c)).unwrap();
        let one_async = (a.cpu.cost + a.gpu.cost) / (a.cpu.count() + a.gpu.count()) as f64;
        println!(
            "| {} | {:.1} | {} | {}+{} | {} | {}+{} | {} / {}+{} | {:+.1}% | {:+.1}% | {:+.2}% |",
            row.name,
            total,
            row.sync,
            row.async_cpu,
            row.async_gpu,
            s.count(),
            a.cpu.count(),
            a.gpu.count(),
            fs.count(),
            fa.cpu.count(),
            fa.gpu.count(),
            100.0 * (one_async / s.mean_cost() - 1.0),
            100.0 * ((a.cpu.cost + a.gpu.cost) / s.cost - 1.0),
            100.0 * (h.cost / fs.cost - 1.0)
        );
    }
}
