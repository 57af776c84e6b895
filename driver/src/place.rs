//! `dao place`: checkpoint placement from a profile (`DAO_PROFILE`).
//!
//! Reads the profile, derives T_itvl = -ln(R) * MTBF, solves with the
//! chosen objective (dao-placement), reports every placement with both
//! objectives (saved bytes and expected run time), and writes the placement
//! file the runtime follows (`DAO_PLACEMENT`). With `--mtbf-gpu` it solves
//! the CPU-GPU models instead (report only: the runtime does not checkpoint
//! device state). `--paper-experiment K,M` runs the DAO paper's placement
//! experiment on one or more profiles and can draw it (`--svg`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use dao_placement::expected::{self, evaluate, CostModel, Evaluation};
use dao_placement::file::{PlacementFile, PLACEMENT_FORMAT, PLACEMENT_VERSION};
use dao_placement::gpu::{self, Method, Params};
use dao_placement::interval;
use dao_placement::profile::Profile;
use dao_placement::window::{self, Choice, Problem};
use dao_placement::Infeasible;
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Objective {
    /// The paper's: least total saved bytes, every stretch within T_itvl.
    Bytes,
    /// Fewest checkpoints within T_itvl, then least bytes (the paper's M fixed to its minimum).
    Fewest,
    /// Least expected run time under failures (no interval constraint).
    ExpectedTime,
}

impl Objective {
    fn name(self) -> &'static str {
        match self {
            Objective::Bytes => "bytes",
            Objective::Fewest => "fewest-then-bytes",
            Objective::ExpectedTime => "expected-time",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {source}")]
    Profile { path: PathBuf, source: dao_placement::PlacementError },
    #[error("{0}")]
    Usage(String),
    #[error("{path}: no placement meets T_itvl = {t_itvl:.6} s: {what}; use a larger --mtbf or --reliability closer to 0 (the interval must be at least {gap:.6} s), or add markers in that stretch")]
    Infeasible { path: PathBuf, t_itvl: f64, gap: f64, what: String },
}

pub struct PlaceRequest {
    pub profiles: Vec<PathBuf>,
    pub mtbf: Option<f64>,
    pub reliability: f64,
    pub total_time: Option<f64>,
    pub threads: Option<u32>,
    pub objective: Objective,
    pub bandwidth: f64,
    pub read_bandwidth: Option<f64>,
    pub latency: f64,
    pub restart_cost: f64,
    pub mtbf_gpu: Option<f64>,
    pub host_device_bandwidth: f64,
    pub offset_window: Option<f64>,
    /// CPU-GPU: whose placement `-o` writes (`sync`, `async`, `offset`).
    pub gpu_mode: String,
    pub output: Option<PathBuf>,
    pub json: bool,
    pub paper_experiment: Option<(usize, usize)>,
    pub svg: Option<PathBuf>,
}

fn read_profile(path: &Path) -> Result<Profile, PlaceError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlaceError::Io { path: path.into(), source })?;
    Profile::parse(&text).map_err(|source| PlaceError::Profile { path: path.into(), source })
}

fn positive(name: &str, v: f64) -> Result<f64, PlaceError> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(PlaceError::Usage(format!("{name} must be a positive number, not {v}")))
    }
}

/// Describes an infeasible gap with the instances around it.
fn infeasible(path: &Path, prof: &Profile, e: &Infeasible) -> PlaceError {
    let side = |i: Option<usize>, none: &str| i.map_or(none.to_string(), |i| prof.describe(i));
    PlaceError::Infeasible {
        path: path.into(),
        t_itvl: e.max_gap,
        gap: e.gap,
        what: format!(
            "{:.6} s pass without a candidate between {} and {}",
            e.gap,
            side(e.before, "the program's start"),
            side(e.after, &format!("the program's end (t = {:.6} s)", e.to))
        ),
    }
}

pub fn place(r: &PlaceRequest) -> Result<i32, PlaceError> {
    positive("--reliability", r.reliability)?;
    if r.reliability >= 1.0 {
        return Err(PlaceError::Usage("--reliability must be below 1".into()));
    }
    if let Some((k, m)) = r.paper_experiment {
        return paper_experiment(r, k, m);
    }
    if r.profiles.len() != 1 {
        return Err(PlaceError::Usage("give exactly one --profile (several only with --paper-experiment)".into()));
    }
    let Some(mtbf) = r.mtbf else { return Err(PlaceError::Usage("--mtbf SECONDS is required".into())) };
    positive("--mtbf", mtbf)?;
    positive("--bandwidth", r.bandwidth)?;
    if r.threads == Some(0) {
        return Err(PlaceError::Usage("--threads must be at least 1".into()));
    }
    let path = &r.profiles[0];
    let prof = read_profile(path)?;
    if let Some(g) = r.mtbf_gpu {
        return place_gpu(r, path, &prof, mtbf, positive("--mtbf-gpu", g)?);
    }
    let t_itvl = interval::t_itvl(mtbf, r.reliability);
    let p = prof.problem(r.threads, r.total_time, t_itvl).map_err(|source| PlaceError::Profile { path: path.clone(), source })?;
    let model = CostModel {
        mtbf,
        write_bandwidth: r.bandwidth,
        read_bandwidth: r.read_bandwidth.unwrap_or(r.bandwidth),
        latency: r.latency,
        restart: r.restart_cost,
    };
    let t0 = Instant::now();
    let bytes_opt = window::min_weight(&p);
    let solve_s = t0.elapsed().as_secs_f64();
    let fewest = window::min_count_then_weight(&p);
    let (exp_opt, _) = expected::min_expected(&p, &model);
    let reference = expected::reference(&p, &model);
    let chosen: Vec<usize> = match r.objective {
        Objective::Bytes => bytes_opt.clone().map_err(|e| infeasible(path, &prof, &e))?.chosen,
        Objective::Fewest => fewest.clone().map_err(|e| infeasible(path, &prof, &e))?.chosen,
        Objective::ExpectedTime => exp_opt.chosen.clone(),
    };
    let mut rows: Vec<(String, Option<Evaluation>)> = vec![];
    let ev = |c: &Result<Choice, Infeasible>| c.as_ref().ok().map(|c| evaluate(&p, &model, &c.chosen));
    rows.push(("least bytes within T_itvl (paper)".into(), ev(&bytes_opt)));
    rows.push(("fewest within T_itvl, then bytes".into(), ev(&fewest)));
    rows.push(("least expected time".into(), Some(evaluate(&p, &model, &exp_opt.chosen))));
    rows.push((format!("Young periodic, {:.3} s", reference.young), Some(evaluate(&p, &model, &reference.young_placement))));
    rows.push((format!("Daly periodic, {:.3} s", reference.daly), Some(evaluate(&p, &model, &reference.daly_placement))));
    rows.push(("every instance".into(), Some(evaluate(&p, &model, &(0..p.len()).collect::<Vec<_>>()))));
    rows.push(("none".into(), Some(evaluate(&p, &model, &[]))));
    let chosen_eval = evaluate(&p, &model, &chosen);
    let numbers: Vec<u64> = chosen.iter().map(|&i| prof.instances[i].n).collect();
    let parameters = json!({
        "profile": path.display().to_string(),
        "mtbf_s": mtbf, "reliability": r.reliability, "t_itvl_s": t_itvl,
        "total_time_s": p.end, "threads": r.threads,
        "bandwidth_bytes_per_s": model.write_bandwidth, "read_bandwidth_bytes_per_s": model.read_bandwidth,
        "latency_s": model.latency, "restart_s": model.restart,
    });
    let eval_json = |e: &Evaluation| {
        json!({"count": e.count, "bytes": e.bytes, "max_gap_s": e.max_gap, "within_t_itvl": e.within_t_itvl,
               "expected_time_s": e.expected_time, "checkpoint_time_s": e.checkpoint_time})
    };
    let summary = json!({
        "chosen": eval_json(&chosen_eval),
        "paper_min_count": interval::paper_min_count(p.end, t_itvl),
        "candidate_instances": p.len(),
        "solve_s": solve_s,
        "young_s": reference.young, "daly_s": reference.daly, "mean_checkpoint_cost_s": reference.mean_cost,
        "placements": rows.iter().map(|(name, e)| json!({"placement": name, "evaluation": e.as_ref().map(eval_json)})).collect::<Vec<_>>(),
    });
    if let Some(out) = &r.output {
        let file = PlacementFile {
            format: PLACEMENT_FORMAT.into(),
            version: PLACEMENT_VERSION,
            executable: prof.executable.clone(),
            objective: r.objective.name().into(),
            instances: numbers.clone(),
            parameters: parameters.clone(),
            summary: summary.clone(),
        };
        let text = serde_json::to_string_pretty(&file).expect("serialisable") + "\n";
        std::fs::write(out, text).map_err(|source| PlaceError::Io { path: out.clone(), source })?;
    }
    if r.json {
        println!("{}", serde_json::to_string_pretty(&json!({"parameters": parameters, "instances": numbers, "summary": summary})).unwrap());
        return Ok(0);
    }
    println!(
        "{}: {} candidate instances over {:.6} s (profiling overhead {:.3} s excluded)",
        path.display(),
        p.len(),
        p.end,
        prof.overhead_s
    );
    println!(
        "T_itvl = -ln({}) * {} s = {:.6} s; the paper's bound M >= T/T_itvl = {:.2}",
        r.reliability,
        mtbf,
        t_itvl,
        interval::paper_min_count(p.end, t_itvl)
    );
    if let Err(e) = &bytes_opt {
        println!("no placement within T_itvl: {}", infeasible(path, &prof, e));
    }
    println!("\n{:<36} {:>7} {:>14} {:>11} {:>7} {:>15}", "placement", "count", "saved bytes", "max gap s", "<=T_itvl", "expected time s");
    for (name, e) in &rows {
        match e {
            Some(e) => println!(
                "{:<36} {:>7} {:>14.0} {:>11.4} {:>7} {:>15.6}",
                name,
                e.count,
                e.bytes,
                e.max_gap,
                if e.within_t_itvl { "yes" } else { "no" },
                e.expected_time
            ),
            None => println!("{name:<36} infeasible"),
        }
    }
    println!("\nchosen ({}, {} instances):", r.objective.name(), chosen.len());
    for &i in chosen.iter().take(40) {
        let inst = &prof.instances[i];
        println!("  {:>8}  t = {:>12.6} s  {:>12} bytes  {}", inst.n, inst.time_s, p.weights[i], inst.site);
    }
    if chosen.len() > 40 {
        println!("  ... {} more", chosen.len() - 40);
    }
    if let Some(out) = &r.output {
        println!("\nwrote {} (run with DAO_PLACEMENT={} DAO_DIR=...)", out.display(), out.display());
    }
    Ok(0)
}

/// The CPU-GPU models: synchronous and asynchronous, exact optimum,
/// fewest-then-cost and (with --offset-window) the paper's heuristic.
fn place_gpu(r: &PlaceRequest, path: &Path, prof: &Profile, mtbf_cpu: f64, mtbf_gpu: f64) -> Result<i32, PlaceError> {
    if r.gpu_mode == "offset" && r.offset_window.is_none() {
        return Err(PlaceError::Usage("--gpu-mode offset needs --offset-window SECONDS".into()));
    }
    let q = Params {
        mtbf_cpu,
        mtbf_gpu,
        reliability: r.reliability,
        storage_bw: r.bandwidth,
        host_device_bw: positive("--host-device-bandwidth", r.host_device_bandwidth)?,
    };
    let pts = prof.points(r.threads);
    let end = r.total_time.unwrap_or(prof.total_time_s);
    if !pts.iter().any(|p| p.gpu_bytes.is_some()) {
        return Err(PlaceError::Usage(format!("{}: no instance has a `device` field (kernel boundary)", path.display())));
    }
    let mut methods = vec![("least cost", Method::Exact), ("fewest, then cost", Method::FewestThenCost)];
    if let Some(dt) = r.offset_window {
        methods.push(("offset window (paper)", Method::Offset(dt)));
    }
    let mut out = vec![];
    for (name, m) in methods {
        let s = gpu::synchronous(&pts, end, &q, m).map_err(|e| infeasible(path, prof, &e))?;
        let a = gpu::asynchronous(&pts, end, &q, m).map_err(|e| infeasible(path, prof, &e))?;
        out.push(json!({
            "method": name,
            "sync": {"count": s.count(), "cost_s": s.cost, "mean_cost_s": s.mean_cost(), "t_itvl_s": s.t_itvl,
                     "instances": s.chosen.iter().map(|&i| prof.instances[i].n).collect::<Vec<_>>()},
            "async": {"cpu": {"count": a.cpu.count(), "cost_s": a.cpu.cost, "mean_cost_s": a.cpu.mean_cost(), "t_itvl_s": a.cpu.t_itvl,
                              "instances": a.cpu.chosen.iter().map(|&i| prof.instances[i].n).collect::<Vec<_>>()},
                      "gpu": {"count": a.gpu.count(), "cost_s": a.gpu.cost, "mean_cost_s": a.gpu.mean_cost(), "t_itvl_s": a.gpu.t_itvl,
                              "instances": a.gpu.chosen.iter().map(|&i| prof.instances[i].n).collect::<Vec<_>>()}},
        }));
        if !r.json {
            println!(
                "{name:<22} sync {:>4} checkpoints, {:.6} s (T_CG {:.4} s) | async CPU {:>4}, {:.6} s (T_C {:.4} s) + GPU {:>4}, {:.6} s (T_G {:.4} s)",
                s.count(),
                s.cost,
                s.t_itvl,
                a.cpu.count(),
                a.cpu.cost,
                a.cpu.t_itvl,
                a.gpu.count(),
                a.gpu.cost,
                a.gpu.t_itvl
            );
        }
    }
    if let Some(o) = &r.output {
        // the placement the runtime follows: the exact optimum of the
        // chosen model (offset: the paper's heuristic); asynchronous: the
        // CPU's and the GPU's instances together (every checkpoint holds the
        // device copies too: a restart needs both sides at one instant; the
        // host side is written in the background while the next kernels run)
        let (chosen, cost): (Vec<usize>, f64) = match r.gpu_mode.as_str() {
            "async" => {
                let a = gpu::asynchronous(&pts, end, &q, Method::Exact).map_err(|e| infeasible(path, prof, &e))?;
                let mut c: Vec<usize> = a.cpu.chosen.iter().chain(&a.gpu.chosen).copied().collect();
                c.sort_unstable();
                c.dedup();
                (c, a.cpu.cost + a.gpu.cost)
            }
            mode => {
                let m = if mode == "offset" { Method::Offset(r.offset_window.unwrap_or(0.0)) } else { Method::Exact };
                let s = gpu::synchronous(&pts, end, &q, m).map_err(|e| infeasible(path, prof, &e))?;
                (s.chosen, s.cost)
            }
        };
        let numbers: Vec<u64> = chosen.iter().map(|&i| prof.instances[i].n).collect();
        let file = PlacementFile {
            format: PLACEMENT_FORMAT.into(),
            version: PLACEMENT_VERSION,
            executable: prof.executable.clone(),
            objective: format!("gpu-{}", r.gpu_mode),
            instances: numbers.clone(),
            parameters: json!({"gpu_mode": r.gpu_mode, "mtbf_cpu_s": mtbf_cpu, "mtbf_gpu_s": mtbf_gpu, "reliability": r.reliability,
                               "bandwidth": r.bandwidth, "host_device_bandwidth": r.host_device_bandwidth, "offset_window_s": r.offset_window}),
            summary: json!({"checkpoints": numbers.len(), "cost_s": cost}),
        };
        let text = serde_json::to_string_pretty(&file).expect("serialisable") + "\n";
        std::fs::write(o, text).map_err(|source| PlaceError::Io { path: o.clone(), source })?;
        if !r.json {
            println!("{} mode: {} checkpoints written to {} (cost {:.6} s)", r.gpu_mode, numbers.len(), o.display(), cost);
        }
    }
    if r.json {
        println!("{}", serde_json::to_string_pretty(&json!({"profile": path.display().to_string(), "mtbf_cpu_s": mtbf_cpu, "mtbf_gpu_s": mtbf_gpu, "reliability": r.reliability, "gpu_mode": r.gpu_mode, "results": out})).unwrap());
    }
    Ok(0)
}

/// The DAO paper's placement experiment: per profile, K candidates (the
/// instances nearest to K evenly spaced times, so that they are spread over
/// the run; one instance per marker clusters them at the start of a class S
/// run, where no T_itvl yields M) and T_itvl set to the largest value for which the least-bytes
/// optimum chooses exactly M of them (if no value does, fewest-then-bytes,
/// as the paper fixes M). The optimum's saved bytes against the mean over
/// all C(K, M) choices of M instances (the exact expectation of a random
/// choice) and over the feasible ones.
fn paper_experiment(r: &PlaceRequest, k: usize, m: usize) -> Result<i32, PlaceError> {
    if !(1..=20).contains(&k) || m == 0 || m > k {
        return Err(PlaceError::Usage(format!("--paper-experiment {k},{m}: need 1 <= M <= K <= 20")));
    }
    let mut results = vec![];
    for path in &r.profiles {
        let prof = read_profile(path)?;
        let full = prof.problem(r.threads, r.total_time, f64::INFINITY).map_err(|source| PlaceError::Profile { path: path.clone(), source })?;
        if full.len() < k {
            return Err(PlaceError::Usage(format!("{}: {} candidate instances, fewer than {k}", path.display(), full.len())));
        }
        let mut pick: Vec<usize> = vec![];
        // K instances nearest to (j + 1/2) T / K, distinct.
        for j in 0..k {
            let target = (j as f64 + 0.5) * full.end / k as f64;
            let best = (0..full.len())
                .filter(|i| !pick.contains(i))
                .min_by(|&a, &b| (full.times[a] - target).abs().total_cmp(&(full.times[b] - target).abs()))
                .expect("enough instances");
            pick.push(best);
        }
        pick.sort_unstable();
        let mut p = Problem {
            times: pick.iter().map(|&i| full.times[i]).collect(),
            weights: pick.iter().map(|&i| full.weights[i]).collect(),
            end: full.end,
            max_gap: f64::INFINITY,
        };
        // The optimum changes only where T_itvl crosses a distance between
        // two points: try those, largest first.
        let mut pts = vec![0.0];
        pts.extend(&p.times);
        pts.push(p.end);
        let mut gaps: Vec<f64> = vec![];
        for a in 0..pts.len() {
            for b in a + 1..pts.len() {
                gaps.push(pts[b] - pts[a]);
            }
        }
        gaps.sort_by(|a, b| b.total_cmp(a));
        gaps.dedup();
        let mut found = None;
        for (method, solve) in [("least bytes", window::min_weight as fn(&Problem) -> _), ("fewest, then bytes", window::min_count_then_weight)] {
            for &g in &gaps {
                p.max_gap = g;
                if let Ok(c) = solve(&p) {
                    if c.chosen.len() == m {
                        found = Some((g, c, method));
                        break;
                    }
                }
            }
            if found.is_some() {
                break;
            }
        }
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let Some((t_itvl, opt, method)) = found else {
            results.push(json!({"profile": name, "note": format!("no T_itvl makes the optimum choose exactly {m}")}));
            continue;
        };
        let (mut sum, mut count, mut fsum, mut fcount) = (0.0, 0u64, 0.0, 0u64);
        for mask in 0u32..(1 << k) {
            if mask.count_ones() as usize != m {
                continue;
            }
            let s: Vec<usize> = (0..k).filter(|&i| mask & (1 << i) != 0).collect();
            let c = p.cost(&s);
            sum += c;
            count += 1;
            if p.check(&s).is_ok() {
                fsum += c;
                fcount += 1;
            }
        }
        let mean = sum / count as f64;
        let fmean = fsum / fcount as f64;
        results.push(json!({
            "profile": name,
            "instances": pick.iter().map(|&i| json!({"n": prof.instances[i].n, "time_s": full.times[i], "bytes": full.weights[i], "site": prof.instances[i].site})).collect::<Vec<_>>(),
            "t_itvl_s": t_itvl,
            "method": method,
            "optimum": {"chosen": opt.chosen.iter().map(|&i| prof.instances[pick[i]].n).collect::<Vec<_>>(), "bytes": opt.cost, "per_checkpoint": opt.cost / m as f64},
            "random": {"subsets": count, "mean_bytes": mean, "feasible_subsets": fcount, "feasible_mean_bytes": fmean},
            "saving_vs_random": 1.0 - opt.cost / mean,
            "saving_vs_feasible_random": 1.0 - opt.cost / fmean,
        }));
    }
    let doc = json!({"experiment": format!("{k} candidates, T_itvl such that the optimum chooses {m}"), "results": results});
    if let Some(svg) = &r.svg {
        let groups: Vec<crate::svg::Group> = results
            .iter()
            .filter(|x| x.get("optimum").is_some())
            .map(|x| crate::svg::Group {
                label: x["profile"].as_str().unwrap_or("").to_string(),
                values: vec![
                    x["optimum"]["bytes"].as_f64().map(|b| b / m as f64 / 1e6),
                    x["random"]["mean_bytes"].as_f64().map(|b| b / m as f64 / 1e6),
                    x["random"]["feasible_mean_bytes"].as_f64().map(|b| b / m as f64 / 1e6),
                ],
            })
            .collect();
        let text = crate::svg::bars(
            &format!("Saved bytes per checkpoint: optimum vs random {m} of {k} candidates"),
            "MB (10^6 bytes) per checkpoint",
            &["optimum (dao place)", "random (all subsets)", "random (feasible subsets)"],
            &groups,
            &|v| format!("{v:.3} MB"),
        );
        std::fs::write(svg, text).map_err(|source| PlaceError::Io { path: svg.clone(), source })?;
    }
    if let Some(out) = &r.output {
        std::fs::write(out, serde_json::to_string_pretty(&doc).unwrap() + "\n").map_err(|source| PlaceError::Io { path: out.clone(), source })?;
    }
    if r.json {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        println!("{:<16} {:>10} {:>16} {:>16} {:>16} {:>9} {:>9}", "profile", "T_itvl s", "optimum B", "random mean B", "feasible mean B", "saving", "vs feas.");
        for x in &results {
            if x.get("optimum").is_none() {
                println!("{:<16} {}", x["profile"].as_str().unwrap_or(""), x["note"].as_str().unwrap_or(""));
                continue;
            }
            println!(
                "{:<16} {:>10.4} {:>16.0} {:>16.0} {:>16.0} {:>8.1}% {:>8.1}%",
                x["profile"].as_str().unwrap_or(""),
                x["t_itvl_s"].as_f64().unwrap_or(0.0),
                x["optimum"]["bytes"].as_f64().unwrap_or(0.0),
                x["random"]["mean_bytes"].as_f64().unwrap_or(0.0),
                x["random"]["feasible_mean_bytes"].as_f64().unwrap_or(0.0),
                100.0 * x["saving_vs_random"].as_f64().unwrap_or(0.0),
                100.0 * x["saving_vs_feasible_random"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(0)
}
