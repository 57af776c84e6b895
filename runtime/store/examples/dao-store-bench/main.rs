//! dao-store-bench: the measurements behind docs/results.md ("Storage engine").
//!
//! ```text
//! cargo run --release -p dao-store --example dao-store-bench -- <command> [options]
//!   hash      --data FILE [--mib N] [--reps R]     hashing GB/s per hash, block size, 1/2 threads vs memcpy
//!   curve     --data FILE [--reps R] [--dir D]     pipeline time vs buffer size; vs serial and raw write
//!   codecs    --data FILE...                       compression ratio per codec and filter
//!   series    --ckpts DIR [--max N] [--block B]    incremental/differential size over a checkpoint series
//!   blocks    --ckpts DIR [--max N]                incremental size and hash time vs block size
//!   pause     --data FILE [--reps R] [--dir D]     pause seen by the program: async vs synchronous
//!   read      --data FILE [--reps R] [--dir D]     restore: verify + parallel decode of a full file, 1/2 threads
//! ```
//! `--data FILE` is a dao checkpoint (format 1) whose regions are the data;
//! `--dir` is where files are written (default: a temp dir under /tmp), and
//! every write includes fsync. Times are the best of `--reps` runs (the
//! machine is shared; the best is the least disturbed).
mod ckpt;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dao_store::codec::Encoder;
use dao_store::{AsyncEngine, AsyncPolicy, Codec, Engine, Filter, HashKind, Mode, PipelineConfig, Region, Staged, StoreConfig};

struct Args {
    cmd: String,
    data: Vec<PathBuf>,
    ckpts: Vec<PathBuf>,
    mib: usize,
    reps: usize,
    max: usize,
    block: usize,
    dir: Option<PathBuf>,
    workers: usize,
}

fn args() -> Args {
    let mut a = Args { cmd: String::new(), data: vec![], ckpts: vec![], mib: 256, reps: 5, max: 40, block: 4096, dir: None, workers: 0 };
    let mut it = std::env::args().skip(1);
    a.cmd = it.next().unwrap_or_default();
    while let Some(k) = it.next() {
        let v = it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--data" => a.data.push(v.into()),
            "--ckpts" => a.ckpts.push(v.into()),
            "--mib" => a.mib = v.parse().unwrap(),
            "--reps" => a.reps = v.parse().unwrap(),
            "--max" => a.max = v.parse().unwrap(),
            "--block" => a.block = v.parse().unwrap(),
            "--dir" => a.dir = Some(v.into()),
            "--workers" => a.workers = v.parse().unwrap(),
            _ => panic!("unknown option {k}"),
        }
    }
    a
}

fn gbs(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn best<T>(reps: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut out = f();
    for _ in 1..reps {
        let r = f();
        if r.0 < out.0 {
            out = r;
        }
    }
    out
}

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// Regions of a checkpoint file, with duplicate keys dropped.
fn load(p: &Path) -> (Vec<u8>, Vec<(u64, usize, usize)>) {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let rs = ckpt::regions(&b).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut seen = std::collections::HashSet::new();
    let base = b.as_ptr() as usize;
    let layout: Vec<(u64, usize, usize)> = rs
        .iter()
        .filter(|r| seen.insert(r.addr))
        .map(|r| (r.addr, r.bytes.as_ptr() as usize - base, r.bytes.len()))
        .collect();
    (b, layout)
}

fn view<'a>(b: &'a [u8], layout: &[(u64, usize, usize)]) -> Vec<Region<'a>> {
    layout.iter().map(|&(addr, off, len)| Region { addr, bytes: &b[off..off + len] }).collect()
}

/// The concatenated bytes of every region.
fn concat(p: &Path) -> Vec<u8> {
    let (b, l) = load(p);
    let mut v = Vec::new();
    for r in view(&b, &l) {
        v.extend_from_slice(r.bytes);
    }
    v
}

fn tmpdir(a: &Args) -> tempfile::TempDir {
    match &a.dir {
        Some(d) => tempfile::tempdir_in(d).unwrap(),
        None => tempfile::tempdir().unwrap(),
    }
}

fn main() {
    let a = args();
    match a.cmd.as_str() {
        "hash" => hash(&a),
        "curve" => curve(&a),
        "codecs" => codecs(&a),
        "series" => series(&a),
        "blocks" => blocks(&a),
        "pause" => pause(&a),
        "read" => read(&a),
        _ => {
            eprintln!("usage: dao-store-bench hash|curve|codecs|series|blocks|pause [options] (see the source header)");
            std::process::exit(2);
        }
    }
}

fn hash(a: &Args) {
    let src = concat(&a.data[0]);
    let n = a.mib << 20;
    let mut data = Vec::with_capacity(n);
    while data.len() < n {
        let k = (n - data.len()).min(src.len());
        data.extend_from_slice(&src[..k]);
    }
    let regions = [Region { addr: 0, bytes: &data }];
    let mut dst = vec![1u8; n];
    println!("data: {} MiB from {} (regions concatenated, repeated); best of {} reps\n", a.mib, a.data[0].display(), a.reps);
    println!("| operation | block | 1 thread GB/s | 2 threads GB/s |");
    println!("|---|---|---|---|");
    let row = |name: &str, block: &str, f: &dyn Fn(&rayon::ThreadPool)| {
        let mut r = Vec::new();
        for t in [1, 2] {
            let p = pool(t);
            let (d, ()) = best(a.reps, || {
                let t0 = Instant::now();
                f(&p);
                (t0.elapsed(), ())
            });
            r.push(gbs(n, d));
        }
        println!("| {name} | {block} | {:.2} | {:.2} |", r[0], r[1]);
    };
    let dst_cell = std::sync::Mutex::new(&mut dst);
    row("memcpy", "-", &|p| {
        let mut g = dst_cell.lock().unwrap();
        let d: &mut [u8] = &mut g[..];
        p.install(|| dao_store::flush::stage_copy(&regions, d));
    });
    for (kind, name, blocks) in [
        (HashKind::Xxh3, "xxh3-128", &[256usize, 1024, 4096, 16384, 65536][..]),
        (HashKind::Blake3, "blake3", &[1024, 4096, 65536][..]),
        (HashKind::Md5, "md5", &[1024, 4096][..]),
    ] {
        for &bs in blocks {
            row(name, &bs.to_string(), &|p| {
                let s = p.install(|| dao_store::hash::signature(&regions, bs, kind));
                std::hint::black_box(s);
            });
        }
    }
}

/// One full checkpoint of `regions` through the pipeline; (wall of the
/// stream, longest stage, total with fsync, file bytes, stats).
fn pipelined(a: &Args, regions: &[Region<'_>], pc: &PipelineConfig) -> (Duration, dao_store::Committed) {
    let tmp = tmpdir(a);
    let mut e = Engine::open(tmp.path(), StoreConfig { mode: Mode::Full, pipeline: pc.clone(), ..StoreConfig::default() }).unwrap();
    let c = e.checkpoint(regions, &[]).unwrap();
    (c.write_time, c)
}

fn serial(a: &Args, data: &[u8], pc: &PipelineConfig) -> (Duration, (Duration, Duration, usize)) {
    let tmp = tmpdir(a);
    let t0 = Instant::now();
    let mut enc = Encoder::new(pc).unwrap();
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    for (i, c) in data.chunks(pc.buffer_size).enumerate() {
        enc.encode(i as u32, c, &mut out).unwrap();
    }
    let tz = t0.elapsed();
    let t1 = Instant::now();
    write_sync(&tmp.path().join("serial"), &out);
    let tw = t1.elapsed();
    (t0.elapsed(), (tz, tw, out.len()))
}

fn write_sync(p: &Path, b: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::File::create(p).unwrap();
    for c in b.chunks(4 << 20) {
        f.write_all(c).unwrap();
    }
    f.sync_all().unwrap();
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn curve(a: &Args) {
    let (b, l) = load(&a.data[0]);
    let regions = view(&b, &l);
    let data = concat(&a.data[0]);
    let workers = if a.workers == 0 { dao_store::config::default_workers() } else { a.workers };
    println!(
        "data: {} ({} regions, {:.1} MiB); workers {workers}; times in ms, best of {} reps; every write ends with fsync\n",
        a.data[0].display(),
        regions.len(),
        data.len() as f64 / 1048576.0,
        a.reps
    );
    let (raw, ()) = best(a.reps, || {
        let tmp = tmpdir(a);
        let t = Instant::now();
        write_sync(&tmp.path().join("raw"), &data);
        (t.elapsed(), ())
    });
    println!("raw write of the same bytes + fsync: {} ms\n", ms(raw));
    for codec in [Codec::Lz4, Codec::Zstd(1)] {
        println!("codec {codec:?}:\n");
        println!("| buffer | pipeline total | stream | longest stage | stream/longest | collect | compress/worker | write | fsync+rename | serial (compress + write) | ratio |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|");
        for bs in [4usize << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20, 4 << 20] {
            let pc = PipelineConfig { codec, buffer_size: bs, workers, ..PipelineConfig::default() };
            let (total, c) = best(a.reps, || pipelined(a, &regions, &pc));
            let (st, (tz, tw, _)) = best(a.reps, || serial(a, &data, &pc));
            let s = &c.pipeline;
            let longest = s.longest_stage();
            println!(
                "| {}K | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} ({} + {}) | {:.3} |",
                bs >> 10,
                ms(total),
                ms(s.wall),
                ms(longest),
                s.wall.as_secs_f64() / longest.as_secs_f64(),
                ms(s.collect_busy),
                ms(s.compress_busy / s.workers as u32),
                ms(s.write_busy),
                ms(c.sync_time),
                ms(st),
                ms(tz),
                ms(tw),
                c.file_bytes as f64 / c.total_bytes as f64
            );
        }
        println!();
    }
}

fn codecs(a: &Args) {
    println!("compressed/raw (compression MB/s, 1 thread, filter included); chunks of the default buffer size\n");
    println!("| data | MiB | codec | filter none | filter shuffle8 | filter xor8 |");
    println!("|---|---|---|---|---|---|");
    for p in &a.data {
        let data = concat(p);
        for codec in [Codec::Lz4, Codec::Zstd(1), Codec::Zstd(3), Codec::Zstd(9)] {
            let mut cells = Vec::new();
            for filter in [Filter::None, Filter::Shuffle8, Filter::XorPrev8] {
                let pc = PipelineConfig { codec, filter, skip_ratio: 1.0, ..PipelineConfig::default() };
                let mut enc = Encoder::new(&pc).unwrap();
                let mut out = Vec::with_capacity(data.len());
                let t = Instant::now();
                for (i, c) in data.chunks(pc.buffer_size).enumerate() {
                    enc.encode(i as u32, c, &mut out).unwrap();
                }
                let speed = data.len() as f64 / t.elapsed().as_secs_f64() / 1e6;
                cells.push(format!("{:.3} ({speed:.0})", out.len() as f64 / data.len() as f64));
            }
            println!(
                "| {} | {:.1} | {codec:?} | {} | {} | {} |",
                p.file_name().unwrap().to_string_lossy(),
                data.len() as f64 / 1048576.0,
                cells[0],
                cells[1],
                cells[2],
            );
        }
    }
}

fn series_files(d: &Path, max: usize) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("ckpt."))
        .collect();
    v.sort();
    // Skip the warm-up: checkpoints taken before the program allocated its
    // data (a base there would make every later region "new").
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let big = v.iter().map(size).max().unwrap_or(0);
    let start = v.iter().position(|p| size(p) * 10 >= big * 9).unwrap_or(0);
    v.drain(..start);
    v.truncate(max);
    v
}

/// Runs one series through an engine; returns per checkpoint
/// (stored region bytes / total, file bytes / full file bytes, hash time).
fn run_series(a: &Args, files: &[PathBuf], mode: Mode, block: usize, codec: Codec) -> Vec<(f64, u64, u64, Duration)> {
    let tmp = tmpdir(a);
    let cfg = StoreConfig {
        mode,
        max_chain: 0,
        keep_chains: 1000,
        block_size: block,
        pipeline: PipelineConfig { codec, ..PipelineConfig::default() },
        ..StoreConfig::default()
    };
    let mut e = Engine::open(tmp.path(), cfg).unwrap();
    let mut out = Vec::new();
    for f in files {
        let (b, l) = load(f);
        let c = e.checkpoint(&view(&b, &l), &[]).unwrap();
        out.push((c.stored_region_bytes as f64 / c.total_bytes.max(1) as f64, c.file_bytes, c.total_bytes, c.hash_time));
        // Only the chain is needed; keep the disk footprint small.
        if c.kind != dao_store::Kind::Full {
            let _ = std::fs::remove_file(&c.path);
        }
    }
    out
}

fn summary(v: &[f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    format!("{:.2}% / {:.2}% / {:.2}% / {:.2}%", 100.0 * mean, 100.0 * s[s.len() / 2], 100.0 * s[0], 100.0 * s[s.len() - 1])
}

fn series(a: &Args) {
    println!("block {} B; base = first checkpoint after the warm-up; per checkpoint after the base: changed bytes / all bytes of that checkpoint, as mean / median / min / max\n", a.block);
    println!("| series | checkpoints | MiB | incremental | differential | incremental file (lz4) / raw full | full file (lz4) / raw full |");
    println!("|---|---|---|---|---|---|---|");
    for d in &a.ckpts {
        let files = series_files(d, a.max);
        let inc = run_series(a, &files, Mode::Incremental, a.block, Codec::Lz4);
        let dif = run_series(a, &files, Mode::Differential, a.block, Codec::None);
        let file_ratio: Vec<f64> = inc[1..].iter().map(|x| x.1 as f64 / x.2 as f64).collect();
        println!(
            "| {} | {} (from {}) | {:.1} | {} | {} | {} | {:.1}% |",
            d.file_name().unwrap().to_string_lossy(),
            files.len(),
            files[0].file_name().unwrap().to_string_lossy(),
            inc[0].2 as f64 / 1048576.0,
            summary(&inc[1..].iter().map(|x| x.0).collect::<Vec<_>>()),
            summary(&dif[1..].iter().map(|x| x.0).collect::<Vec<_>>()),
            summary(&file_ratio),
            100.0 * inc[0].1 as f64 / inc[0].2 as f64,
        );
    }
}

fn blocks(a: &Args) {
    println!("incremental, mean stored/full after the first checkpoint; hash time = mean per checkpoint (all cores)\n");
    println!("| series | block | stored/full (mean) | signature KiB | hash ms |");
    println!("|---|---|---|---|---|");
    for d in &a.ckpts {
        let files = series_files(d, a.max);
        for bs in [256usize, 1024, 4096, 16384, 65536] {
            let v = run_series(a, &files, Mode::Incremental, bs, Codec::None);
            let r: Vec<f64> = v[1..].iter().map(|x| x.0).collect();
            let mean = r.iter().sum::<f64>() / r.len().max(1) as f64;
            let ht = v.iter().map(|x| x.3).sum::<Duration>() / v.len() as u32;
            let sig = v[0].2 / bs as u64 * 16 / 1024;
            println!("| {} | {bs} | {:.2}% | {sig} | {} |", d.file_name().unwrap().to_string_lossy(), 100.0 * mean, ms(ht));
        }
    }
}

fn pause(a: &Args) {
    let (b, l) = load(&a.data[0]);
    let regions = view(&b, &l);
    let total: usize = regions.iter().map(|r| r.bytes.len()).sum();
    println!("data: {} ({:.1} MiB, {} regions); best and median of {} reps, ms\n", a.data[0].display(), total as f64 / 1048576.0, regions.len(), a.reps);
    println!("| how | pause best | pause median | background flush (best) |");
    println!("|---|---|---|---|");
    for (name, codec) in [("sync, lz4", Codec::Lz4), ("sync, none", Codec::None)] {
        let tmp = tmpdir(a);
        let cfg = StoreConfig { mode: Mode::Full, keep_chains: 1, pipeline: PipelineConfig { codec, ..PipelineConfig::default() }, ..StoreConfig::default() };
        let mut e = Engine::open(tmp.path(), cfg).unwrap();
        let mut v: Vec<Duration> = (0..a.reps)
            .map(|_| {
                let t = Instant::now();
                e.checkpoint(&regions, &[]).unwrap();
                t.elapsed()
            })
            .collect();
        v.sort();
        println!("| {name} | {} | {} | - |", ms(v[0]), ms(v[v.len() / 2]));
    }
    for (name, mode) in [("async (Wait), lz4, full", Mode::Full), ("async (Wait), lz4, adaptive", Mode::Adaptive)] {
        let tmp = tmpdir(a);
        let cfg = StoreConfig { mode, keep_chains: 1, ..StoreConfig::default() };
        let mut ae = AsyncEngine::new(Engine::open(tmp.path(), cfg).unwrap(), AsyncPolicy::Wait).unwrap();
        let mut pauses = Vec::new();
        let mut flush = Vec::new();
        let mut first = Duration::ZERO;
        for i in 0..a.reps + 1 {
            let t = Instant::now();
            let s = ae.checkpoint(&regions, &[]).unwrap();
            let p = t.elapsed();
            assert!(matches!(s, Staged::Started { .. }));
            let c = ae.wait().unwrap().unwrap();
            flush.push(c.write_time + c.hash_time);
            if i == 0 {
                first = p; // the staging arena is allocated and first touched here
            } else {
                pauses.push(p);
            }
        }
        pauses.sort();
        flush.sort();
        println!("| {name} (first: {} ms, arena allocation) | {} | {} | {} |", ms(first), ms(pauses[0]), ms(pauses[pauses.len() / 2]), ms(flush[0]));
    }
}

fn read(a: &Args) {
    let (b, l) = load(&a.data[0]);
    let regions = view(&b, &l);
    let total: usize = regions.iter().map(|r| r.bytes.len()).sum();
    println!("data: {} ({:.1} MiB); a full checkpoint written, then restored (file in page cache); best of {} reps\n", a.data[0].display(), total as f64 / 1048576.0, a.reps);
    println!("| codec | filter | file MiB | restore 1 thread ms | restore 2 threads ms | GB/s (2 threads) |");
    println!("|---|---|---|---|---|---|");
    for (codec, filter) in [(Codec::None, Filter::None), (Codec::Lz4, Filter::None), (Codec::Lz4, Filter::Shuffle8), (Codec::Zstd(1), Filter::Shuffle8)] {
        let tmp = tmpdir(a);
        let cfg = StoreConfig { mode: Mode::Full, pipeline: PipelineConfig { codec, filter, ..PipelineConfig::default() }, ..StoreConfig::default() };
        let c = Engine::open(tmp.path(), cfg).unwrap().checkpoint(&regions, &[]).unwrap();
        let dir = dao_store::StoreDir::at(tmp.path());
        let mut t = Vec::new();
        for n in [1, 2] {
            let p = pool(n);
            let (d, ()) = best(a.reps, || {
                let t0 = Instant::now();
                let r = p.install(|| dir.restore(c.seq).unwrap());
                assert_eq!(r.state.regions.len(), regions.len());
                (t0.elapsed(), ())
            });
            t.push(d);
        }
        println!("| {codec:?} | {filter:?} | {:.1} | {} | {} | {:.2} |", c.file_bytes as f64 / 1048576.0, ms(t[0]), ms(t[1]), gbs(total, t[1]));
    }
}
