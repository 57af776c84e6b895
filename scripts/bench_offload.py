#!/usr/bin/env python3
"""OpenMP offload (issue #35): Jia, Yang and Ma's (2013) six programs
(test-programs/offload/jia/: swim, mgrid, fft2d, backprop, bfs, gaussian)
under the CPU-GPU placement models, beside the paper's table.

Per program, one build `dao cc -O2 -fopenmp -fopenmp-targets=TARGET`
(TARGET: x86_64-pc-linux-gnu, LLVM 19's host offload device: kernels on
the host CPU, device memory separate) and one `--dao-no-pass` build (the
reference output), OMP_NUM_THREADS=--threads. Then:

1. a profiling run (`DAO_PROFILE`): per kernel boundary the device bytes
   mapped (all live: no device liveness yet), the kernel time, and the
   measured device-to-host copy of every mapped range (B2 = bytes / d2h
   time: the median over the instances);
2. `dao place --profile P --mtbf M --mtbf-gpu M*r --reliability 0.5
   --bandwidth B --host-device-bandwidth B2 --gpu-mode sync|async --json
   -o place-MODE.json`, with the MTBF formula of results.md's maps.c table:
   T_itvl = max((T - t1) / 8, 1.2 t1, 1.2 gap), where T is the profiled
   run's time, t1 the time before the first candidate (libomptarget's
   start-up) and gap the longest stretch between two candidates (a floor
   so that the model stays feasible; reported when it binds), and
   MTBF_CPU = T_itvl (1 + r) / (r ln 2), MTBF_GPU = r MTBF_CPU, so that
   the series system's T_CG = -ln(0.5) MTBF_CG = T_itvl. r = --gpu-ratio:
   1 (equal MTBFs, as for maps.c) by default, 0.6 is the paper's
   (240,000 ms / 400,000 ms). From the model's exact optimum ("least
   cost"): the checkpoints chosen (sync; async CPU + GPU), the cost of one
   checkpoint each way (sync: the total over the count; async: the CPU's
   and the GPU's totals over their counts together) and the total;
3. --reps runs per mode with `DAO_PLACEMENT=place-MODE.json DAO_DIR
   DAO_STATS`: the synchronous placement with DAO_ASYNC=off (the program
   writes each checkpoint itself before it goes on: both sides paused until
   everything is stored), the asynchronous one with DAO_ASYNC=auto (the
   default: the host side is written by a background writer while the next
   kernels run; in dao every checkpoint of an asynchronous placement holds
   both sides, docs/design.md section 8). Measured per checkpoint (medians
   over the checkpoints of a run, then over the runs): the device copy
   (every mapped range, d2h), the host collect (collect_s less the device
   copy), the write (write_s: by the program with DAO_ASYNC=off, by the
   background writer otherwise), the pause the program sees (the storage
   engine's pause_s: from the checkpoint's start, collect included, to the
   program's return; with the background writer that is the collect and
   the fork), and per run the sum of the pauses. Each run's output must equal the clean build's.

Prints two Markdown tables (the model beside the paper's counts; the
measured costs), writes the raw numbers as JSON to --json.

Usage: python3 scripts/bench_offload.py [--reps 3] [--threads 2]
       [--only swim,bfs] [--scale 1] [--gpu-ratio 1] [--bandwidth 1e9]
       [--target x86_64-pc-linux-gnu] [--json out.json] [--keep DIR]
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
SRC = ROOT / "test-programs" / "offload" / "jia"
# name, steps for a time loop of about 1.5 s here (times --scale)
PROGRAMS = [("swim", 1000), ("mgrid", 450), ("fft2d", 450), ("backprop", 3000), ("bfs", 360), ("gaussian", 30)]
# Jia, Yang, Ma (2013), as summarised in ../shared/papers.md section 2:
# checkpoints chosen, synchronous vs asynchronous (CPU + GPU)
PAPER = {"swim": (14, 5, 9), "mgrid": (56, 21, 35), "fft2d": (11, 4, 7), "backprop": (66, 24, 41), "bfs": (28, 10, 17), "gaussian": (52, 19, 32)}
LIBDIR = "/usr/lib/llvm-19/lib"


def env_for(threads, extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e["LD_LIBRARY_PATH"] = LIBDIR + (":" + e["LD_LIBRARY_PATH"] if e.get("LD_LIBRARY_PATH") else "")
    e["OMP_NUM_THREADS"] = str(threads)
    e.update(extra)
    return e


def build(name, target, wd, clean):
    exe = wd / (f"{name}.clean" if clean else name)
    cmd = [str(DAO), "cc", "-O2", "-fopenmp", f"-fopenmp-targets={target}", str(SRC / f"{name}.c"), "-o", str(exe), "-lm"]
    if clean:
        cmd.insert(2, "--dao-no-pass")
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=wd)
    if r.returncode != 0:
        sys.exit(f"build failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return exe


def run(exe, args, env, wd):
    t0 = time.perf_counter()
    r = subprocess.run([str(exe), *args], env=env, cwd=wd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{exe} {' '.join(args)} failed ({r.returncode}):\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}")
    return r.stdout, wall


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def profile(exe, args, threads, wd):
    prof = wd / "prof.json"
    prof.unlink(missing_ok=True)
    run(exe, args, env_for(threads, {"DAO_PROFILE": str(prof)}), wd)
    v = json.loads(prof.read_text())
    inst = v["instances"]
    dev = [i["device"] for i in inst if "device" in i]
    times = [0.0] + [i["time_s"] for i in inst] + [v["total_time_s"]]
    b2 = [d["bytes"] / d["d2h_s"] for d in dev if d.get("d2h_s", 0) > 0]
    host = [sum(i["shared"].values()) + sum(t["slots"] + t["stack"] + t["tls"] for t in i["threads"]) for i in inst]
    return {
        "path": prof,
        "T": v["total_time_s"],
        "t1": times[1],
        "gap": max(b - a for a, b in zip(times[1:-1], times[2:])) if len(times) > 3 else times[-1],
        "instances": len(inst),
        "kernel_boundaries": len(dev),
        "mapped_bytes": med([d["mapped_bytes"] for d in dev]),
        "device_bytes": med([d["bytes"] for d in dev]),
        "ranges": med([d["ranges"] for d in dev]),
        "host_bytes": med(host),
        "b2": med(b2),
        "d2h_s": med([d["d2h_s"] for d in dev]),
    }


def place(p, mode, mtbf_cpu, mtbf_gpu, bw, b2, wd):
    out = wd / f"place-{mode}.json"
    cmd = [str(DAO), "place", "--profile", str(p["path"]), "--mtbf", repr(mtbf_cpu), "--mtbf-gpu", repr(mtbf_gpu), "--reliability", "0.5",
           "--bandwidth", repr(bw), "--host-device-bandwidth", repr(b2), "--gpu-mode", mode, "--json", "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"dao place failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    v = json.loads(r.stdout)
    exact = next(x for x in v["results"] if x["method"] == "least cost")
    chosen = json.loads(out.read_text())["instances"]
    return out, exact, chosen, " ".join(cmd)


def measured(exe, args, threads, wd, placement, asyncmode, reference):
    ck = wd / "ck"
    st = wd / "stats.jsonl"
    shutil.rmtree(ck, ignore_errors=True)
    st.unlink(missing_ok=True)
    out, wall = run(exe, args, env_for(threads, {"DAO_DIR": str(ck), "DAO_STATS": str(st), "DAO_PLACEMENT": str(placement), "DAO_ASYNC": asyncmode}), wd)
    if out != reference:
        sys.exit(f"{exe}: the output with DAO_PLACEMENT={placement} differs from the clean build's")
    evs = [json.loads(l) for l in st.read_text().splitlines() if '"event":"checkpoint"' in l] if st.exists() else []
    shutil.rmtree(ck, ignore_errors=True)
    rows = []
    for e in evs:
        d = e.get("device", {})
        copy = d.get("copy_s", 0.0)
        bg = e.get("background")
        # the storage engine's pause runs from the checkpoint's start
        # (collect included) to the program's return
        pause = e["store"]["pause_s"] if "store" in e else e["collect_s"] + e.get("write_s", 0.0)
        rows.append({"device_bytes": d.get("bytes", 0), "copy_s": copy, "collect_s": e["collect_s"] - copy, "write_s": e.get("write_s", 0.0),
                     "pause_s": pause, "host_bytes": sum(e["bytes"].values()), "background": bool(bg)})
    return {
        "wall_s": wall,
        "checkpoints": len(rows),
        "device_bytes": med([r["device_bytes"] for r in rows]),
        "host_bytes": med([r["host_bytes"] for r in rows]),
        "copy_s": med([r["copy_s"] for r in rows]),
        "collect_s": med([r["collect_s"] for r in rows]),
        "write_s": med([r["write_s"] for r in rows]),
        "pause_s": med([r["pause_s"] for r in rows]),
        "total_pause_s": sum(r["pause_s"] for r in rows),
        "background": sum(r["background"] for r in rows),
    }


def kib(b):
    return f"{b / 1024:.0f} KiB" if b < 1024 * 1024 else f"{b / 1048576:.2f} MiB"


def us(s):
    return f"{s * 1e6:.0f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--scale", type=float, default=1.0, help="steps times this")
    ap.add_argument("--gpu-ratio", type=float, default=1.0, help="MTBF_GPU / MTBF_CPU (the paper's: 0.6)")
    ap.add_argument("--bandwidth", type=float, default=1e9, help="B, storage bytes/s for the model")
    ap.add_argument("--target", default="x86_64-pc-linux-gnu")
    ap.add_argument("--json", default="")
    ap.add_argument("--keep", default="", help="work folder to keep (default: a temporary one, removed)")
    a = ap.parse_args()
    if not DAO.exists():
        sys.exit(f"{DAO} missing: cargo build --release -p dao-driver -p dao-pass -p dao-runtime")
    only = [x for x in a.only.split(",") if x]
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench_offload.", dir=ROOT / "target"))
    base.mkdir(parents=True, exist_ok=True)
    results = []
    for name, steps in PROGRAMS:
        if only and name not in only:
            continue
        wd = base / name
        wd.mkdir(parents=True, exist_ok=True)
        args = [str(max(1, round(steps * a.scale)))]
        exe = build(name, a.target, wd, False)
        clean = build(name, a.target, wd, True)
        reference, clean_wall = run(clean, args, env_for(a.threads, {}), wd)
        p = profile(exe, args, a.threads, wd)
        itvl = max((p["T"] - p["t1"]) / 8, 1.2 * p["t1"], 1.2 * p["gap"])
        gap_binds = 1.2 * p["gap"] > max((p["T"] - p["t1"]) / 8, 1.2 * p["t1"])
        r = a.gpu_ratio
        mtbf_cpu = itvl * (1 + r) / (r * math.log(2))
        mtbf_gpu = r * mtbf_cpu
        model, runs, cmds = {}, {}, {}
        for mode, asyncmode in (("sync", "off"), ("async", "auto")):
            placement, exact, chosen, cmd = place(p, mode, mtbf_cpu, mtbf_gpu, a.bandwidth, p["b2"], wd)
            model[mode] = exact
            cmds[mode] = cmd
            reps = [measured(exe, args, a.threads, wd, placement, asyncmode, reference) for _ in range(a.reps)]
            for x in reps:
                if x["checkpoints"] != len(chosen):
                    sys.exit(f"{name} {mode}: {x['checkpoints']} checkpoints taken, {len(chosen)} chosen")
            runs[mode] = {k: med([x[k] for x in reps]) for k in reps[0]}
            runs[mode]["chosen"] = len(chosen)
            runs[mode]["reps"] = reps
        s, asy = model["sync"]["sync"], model["async"]["async"]
        one_sync = s["cost_s"] / max(s["count"], 1)
        n_async = asy["cpu"]["count"] + asy["gpu"]["count"]
        one_async = (asy["cpu"]["cost_s"] + asy["gpu"]["cost_s"]) / max(n_async, 1)
        res = {"program": name, "args": args, "clean_wall_s": clean_wall, "profile": {k: v for k, v in p.items() if k != "path"},
               "t_itvl_s": itvl, "gap_binds": gap_binds, "mtbf_cpu_s": mtbf_cpu, "mtbf_gpu_s": mtbf_gpu, "gpu_ratio": r,
               "model": model, "one_sync_s": one_sync, "one_async_s": one_async,
               "total_sync_s": s["cost_s"], "total_async_s": asy["cpu"]["cost_s"] + asy["gpu"]["cost_s"],
               "measured": runs, "commands": cmds}
        results.append(res)
        print(f"{name}: T {p['T']:.3f} s, t1 {p['t1']:.3f} s, gap {p['gap']:.4f} s, T_itvl {itvl:.4f} s{' (gap floor)' if gap_binds else ''}, "
              f"MTBF_CPU {mtbf_cpu:.3f} s, MTBF_GPU {mtbf_gpu:.3f} s, B2 {p['b2'] / 1e9:.2f} GB/s", file=sys.stderr, flush=True)

    print(f"\nModel (`dao place --mtbf-gpu`, exact optimum; B = {a.bandwidth:.0e} B/s, B2 measured, MTBF_GPU = {a.gpu_ratio} MTBF_CPU, R = 0.5):\n")
    print("| program | steps | T (s) | device mapped (ranges) = saved | host saved | B2 measured | sync: checkpoints | async: CPU + GPU | "
          "paper: sync vs async | one sync / one async (model) | async one cheaper by | total sync / async (model) | total less by |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for x in results:
        p, m = x["profile"], x["model"]
        s, asy = m["sync"]["sync"], m["async"]["async"]
        ps, pc, pg = PAPER[x["program"]]
        print(f"| {x['program']} | {x['args'][0]} | {p['T']:.3f} | {kib(p['mapped_bytes'])} ({p['ranges']:.0f}) | {kib(p['host_bytes'])} | "
              f"{p['b2'] / 1e9:.1f} GB/s | {s['count']} | {asy['cpu']['count']} + {asy['gpu']['count']} | {ps} vs {pc} + {pg} | "
              f"{us(x['one_sync_s'])} / {us(x['one_async_s'])} | {100 * (1 - x['one_async_s'] / x['one_sync_s']):.1f}% | "
              f"{us(x['total_sync_s'])} / {us(x['total_async_s'])} | {100 * (1 - x['total_async_s'] / x['total_sync_s']):.1f}% |")
    print(f"\nMeasured (DAO_PLACEMENT; sync: DAO_ASYNC=off, async: background writer; medians over the checkpoints, then over {a.reps} runs):\n")
    print("| program | mode | checkpoints | device bytes saved | device copy (d2h) | host collect | write | pause per checkpoint | pauses per run | run wall (clean) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for x in results:
        for mode in ("sync", "async"):
            r = x["measured"][mode]
            print(f"| {x['program']} | {mode} | {r['checkpoints']:.0f} | {kib(r['device_bytes'])} | {us(r['copy_s'])} | {us(r['collect_s'])} | "
                  f"{us(r['write_s'])} | {us(r['pause_s'])} | {us(r['total_pause_s'])} | {r['wall_s']:.2f} s ({x['clean_wall_s']:.2f} s) |")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    if not a.keep:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
