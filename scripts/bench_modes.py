#!/usr/bin/env python3
"""The right storage mode by default (issue #16, part 3), side by side in one run.

For every NPB port (C: cg, mg, ft, bt) and class (W, A by default), one
instrumented build (`dao cc -O3 -fopenmp -DCLASS_X`), OMP_NUM_THREADS=
--threads, a checkpoint every tenth of the run's candidates
(`DAO_EVERY=N/10`, N from a profiling run: ten checkpoints), runs
interleaved rep by rep in these modes:

- `none`: no DAO_DIR (the baseline);
- `default`: nothing set (the engine, adaptive, no codec, `DAO_ASYNC=auto`);
- `file/sync`: single files (`DAO_STORE=file`) written in place (`DAO_ASYNC=off`);
- `file/fork`: single files written by a forked writer (`DAO_ASYNC=wait`);
- `full/fork`: the storage engine, full checkpoints, no compression
  (a chain of length one each), forked writer;
- `incr/fork`: the engine, incremental (changed 4 KiB blocks), no
  compression, forked writer;
- `adapt-lz4/fork`: the engine's defaults (adaptive, lz4 with the
  shuffle filter), forked writer;
- `adapt-lz4/sync`: the same written in place;
- `adapt-lz4/copy`: the same with the engine's staging copy and flush
  thread (`DAO_SNAPSHOT=copy DAO_ASYNC=wait`).

Per mode, the median over --reps of: whole-process wall time (overhead
against `none`), the benchmark's timed section, the mean pause per
checkpoint (DAO_STATS: background pause + wait when forked, the engine's
pause_s for sync/copy, collect + write for single files in place), and the
bytes written over the series (file bytes summed) against ten full
checkpoints (the single-file size of each). Every run must verify.

Usage: python3 scripts/bench_modes.py [--classes W,A] [--threads 2]
       [--reps 2] [--only mg,ft] [--json out.json]
"""
import argparse
import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_background import DAO, PORTS, build, run, candidates, med  # noqa: E402

ENGINE = {"DAO_STORE": "engine"}
FILE = {"DAO_STORE": "file"}
MODES = {
    "none": None,
    # nothing set: the default (since issue #16: the engine, adaptive, no
    # codec, DAO_ASYNC=auto)
    "default": {},
    "file/sync": {**FILE, "DAO_ASYNC": "off"},
    "file/fork": {**FILE, "DAO_ASYNC": "wait"},
    "full/fork": {**ENGINE, "DAO_INCREMENTAL": "full", "DAO_COMPRESS": "none", "DAO_ASYNC": "wait"},
    "incr/fork": {**ENGINE, "DAO_INCREMENTAL": "incremental", "DAO_COMPRESS": "none", "DAO_ASYNC": "wait"},
    "adapt-lz4/fork": {**ENGINE, "DAO_ASYNC": "wait"},
    "adapt-lz4/sync": {**ENGINE, "DAO_ASYNC": "off"},
    "adapt-lz4/copy": {**ENGINE, "DAO_SNAPSHOT": "copy", "DAO_ASYNC": "wait"},
    # DAO_ASYNC=auto (the default): forked unless checkpoints come faster
    # than they are written
    "file/auto": {**FILE},
    "full/auto": {**ENGINE, "DAO_INCREMENTAL": "full", "DAO_COMPRESS": "none"},
    "incr/auto": {**ENGINE, "DAO_INCREMENTAL": "incremental", "DAO_COMPRESS": "none"},
    "adapt/auto": {**ENGINE, "DAO_COMPRESS": "none"},
    "adapt-lz4/auto": {**ENGINE},
}


def events(path):
    if not Path(path).exists():
        return []
    return [json.loads(l) for l in Path(path).read_text().splitlines() if '"event":"checkpoint"' in l]


def pause(ev):
    bg = ev.get("background")
    if bg:
        return bg["pause_s"] + bg["wait_s"]
    st = ev.get("store")
    if st:
        return st["pause_s"]
    return ev["collect_s"] + ev["write_s"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", default="W,A")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--only", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--modes", default=None, help="comma-separated subset of the modes (none is always run)")
    ap.add_argument("--schedule", default="10%", choices=["10%", "one"], help="a checkpoint every tenth of the candidates, or one at the middle")
    a = ap.parse_args()
    modes_run = {m: e for m, e in MODES.items() if m == "none" or not a.modes or m in a.modes.split(",")}
    if not DAO.exists():
        sys.exit("build the tools first: cargo build --release -p dao-driver -p dao-pass -p dao-runtime")
    work = Path(tempfile.mkdtemp(prefix="dao-bench-modes-", dir=os.environ.get("DAO_BENCH_DIR")))
    atexit.register(shutil.rmtree, work, True)  # GBs of checkpoints: gone also on sys.exit
    rows = []
    for cls in a.classes.split(","):
        for name, srcs in PORTS:
            if a.only and name not in a.only.split(","):
                continue
            tag = f"{name}.{cls}"
            wd = work / tag
            wd.mkdir(parents=True)
            exe = wd / tag
            build(name, srcs, cls, exe)
            n = candidates(exe, a.threads, wd)
            k10 = max(1, n // 10) if a.schedule == "10%" else n // 2 + 1
            res = {m: {"wall": [], "bench": [], "pause": [], "written": [], "count": [], "full": []} for m in modes_run}
            for rep in range(a.reps):
                for m, env in modes_run.items():
                    ck = wd / "ck"
                    subprocess.run(["rm", "-rf", str(ck)])
                    st = wd / f"stats-{m.replace('/', '-')}-{rep}.jsonl"
                    e = {}
                    if env is not None:
                        e = {**env, "DAO_EVERY": str(k10), "DAO_DIR": str(ck), "DAO_STATS": str(st)}
                    wall, bench, _ = run(exe, a.threads, e, wd)
                    r = res[m]
                    r["wall"].append(wall)
                    r["bench"].append(bench)
                    evs = events(st)
                    r["count"].append(len(evs))
                    if evs:
                        r["pause"].append(statistics.mean(pause(x) for x in evs))
                        r["written"].append(sum(x["file_bytes"] for x in evs))
                        # the full size: single files, or the engine's full checkpoints
                        fulls = [x["file_bytes"] for x in evs if not x.get("storage") or x.get("store", {}).get("kind") == "full"]
                        if fulls:
                            r["full"].append(statistics.mean(fulls))
            row = {"bench": tag, "threads": a.threads, "candidates": n, "k10": k10}
            for m, r in res.items():
                row[m] = {key: med(v) for key, v in r.items()}
            rows.append(row)
            print(f"# {tag}: {json.dumps(row)}", file=sys.stderr)
    modes = [m for m in modes_run if m != "none"]
    print("| bench | full ckpt | " + " | ".join(modes) + " |")
    print("|---|---:|" + "---:|" * len(modes))
    for r in rows:
        none = r["none"]["wall"]
        full = med([r[m]["full"] for m in modes if r[m]["full"] == r[m]["full"]])
        cells = []
        for m in modes:
            x = r[m]
            written = x["written"] / (full * x["count"]) if x["count"] else float("nan")
            cells.append(f"{(x['wall'] / none - 1) * 100:+.0f}%, {x['pause'] * 1e3:.1f} ms, {written * 100:.0f}%")
        print(f"| {r['bench']} | {full / 1e6:.1f} MB | " + " | ".join(cells) + " |")
    print("\ncell: whole-run overhead against no checkpoints, mean pause per checkpoint, bytes written over the series / (checkpoints x full size)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
