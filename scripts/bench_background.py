#!/usr/bin/env python3
"""Background checkpoints (issue #16), side by side in one run.

For every NPB port (C: cg, mg, ft, bt) and class (W, A by default), one
instrumented build (`dao cc -O3 -fopenmp -DCLASS_X`), OMP_NUM_THREADS=
--threads, runs interleaved rep by rep:

- `none`: no DAO_DIR (the instrumented program without checkpoints: the
  baseline of the overheads);
- `one/sync` and `one/bg`: one checkpoint at candidate k = N/2 + 1
  (`DAO_EVERY=k`, N = candidates of the run, from a profiling run),
  `DAO_ASYNC=off` against `DAO_ASYNC=wait` (a forked writer; the
  default `auto` chooses between the two from measurements since issue
  #36: scripts/bench_busy.py);
- `10%/sync`, `10%/bg` and `10%/auto` (the default): a checkpoint every
  tenth of the run's
  candidates (`DAO_EVERY=N/10`: ten checkpoints in both modes; an
  interval of a tenth of the wall time is shorter than one synchronous
  checkpoint of MG/FT class A, which then checkpoint without end).

Per configuration, the median over --reps of: the whole process's wall
time, the benchmark's timed section (" Time in seconds"), and from
DAO_STATS the pause per checkpoint (synchronous: collect_s + write_s, the
program stops for all of it; background: `background.pause_s` = flush of
stdio + collection + fork, plus `background.wait_s` when the next
checkpoint had to wait for the writer), the fork alone (`fork_s`: the page
tables' copy), the checkpoint's bytes, and the snapshot's extra resident
memory (`background.extra_bytes`: anonymous pages the writer held alone
when it finished: those the program rewrote while it wrote, plus its own
buffers). Beside them, memcpy of the same number of bytes on this machine
(a pre-faulted destination: the staging copy's floor), measured by a small
C program built here.

Checkpoints go to the default storage (since issue #16 the storage
engine: adaptive, no codec) unless --store says otherwise (`file`: single
files, as in the first table of docs/results.md, "Background
checkpoints").

Every run's output must verify (" Verification = SUCCESSFUL").
Writes a Markdown table to stdout and the raw numbers to --json.

Usage: python3 scripts/bench_background.py [--classes W,A] [--threads 2]
       [--reps 3] [--only mg,ft] [--json out.json]
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

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
NPB = ROOT / "npb-ports"
PORTS = [
    ("cg", ["cg/cg.c", "common/npb_common.c"]),
    ("mg", ["mg/mg.c", "common/npb_common.c"]),
    ("ft", ["ft/ft.c"]),
    ("bt", ["bt/bt.c"]),
]
MEMCPY_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    size_t n = strtoull(argv[1], 0, 10);
    char *a = malloc(n), *b = malloc(n);
    memset(a, 1, n); memset(b, 2, n);
    double best = 1e9;
    for (int r = 0; r < 5; r++) { double t = now(); memcpy(b, a, n); t = now() - t; if (t < best) best = t; a[r] = b[n - 1 - r]; }
    printf("%.6f\n", best);
    return 0;
}
"""


def build(name, srcs, cls, out):
    cmd = [str(DAO), "cc", "-O3", "-fopenmp", f"-DCLASS_{cls}", f"-I{NPB / 'common'}", *[str(NPB / s) for s in srcs], "-o", str(out), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build failed: {' '.join(cmd)}\n{r.stderr}")


def run(exe, threads, env, wd):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e.update(env)
    e["OMP_NUM_THREADS"] = str(threads)
    t0 = time.perf_counter()
    r = subprocess.run([str(exe)], env=e, cwd=wd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0 or not re.search(r"Verification\s*=\s*SUCCESSFUL", r.stdout):
        sys.exit(f"run failed ({r.returncode}): {exe} {env}\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}")
    m = re.search(r"Time in seconds =\s*([0-9.]+)", r.stdout)
    return wall, float(m.group(1)) if m else float("nan"), r.stderr


def stats(path):
    if not Path(path).exists():
        return []
    return [json.loads(l) for l in Path(path).read_text().splitlines() if '"event":"checkpoint"' in l]


def pause(ev):
    bg = ev.get("background")
    if bg:
        return bg["pause_s"] + bg["wait_s"]
    if ev.get("store"):  # the storage engine in place: its own account
        return ev["store"]["pause_s"]
    return ev["collect_s"] + ev["write_s"]


def candidates(exe, threads, wd):
    prof = wd / "profile.json"
    run(exe, threads, {"DAO_PROFILE": str(prof)}, wd)
    return len(json.loads(prof.read_text())["instances"])


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", default="W,A")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--store", default=None, choices=["engine", "file"], help="DAO_STORE for every run (default: unset, the default storage)")
    a = ap.parse_args()
    if not DAO.exists():
        sys.exit("build the tools first: cargo build --release -p dao-driver -p dao-pass -p dao-runtime")
    work = Path(tempfile.mkdtemp(prefix="dao-bench-bg-", dir=os.environ.get("DAO_BENCH_DIR")))
    atexit.register(shutil.rmtree, work, True)  # GBs of checkpoints: gone also on sys.exit
    mc = work / "memcpy"
    (work / "memcpy.c").write_text(MEMCPY_C)
    subprocess.run(["clang-19", "-O2", str(work / "memcpy.c"), "-o", str(mc)], check=True)
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
            k = n // 2 + 1
            k10 = max(1, n // 10)
            configs = {
                "none": {},
                "one/sync": {"DAO_EVERY": str(k), "DAO_ASYNC": "off"},
                "one/bg": {"DAO_EVERY": str(k), "DAO_ASYNC": "wait"},
                "10%/sync": {"DAO_EVERY": str(k10), "DAO_ASYNC": "off"},
                "10%/bg": {"DAO_EVERY": str(k10), "DAO_ASYNC": "wait"},
                "10%/auto": {"DAO_EVERY": str(k10)},
            }
            if a.store:
                configs = {c: (dict(e, DAO_STORE=a.store) if c != "none" else e) for c, e in configs.items()}
            res = {c: {"wall": [], "bench": [], "pause": [], "fork": [], "bytes": [], "extra": [], "count": [], "max_pause": [], "nbg": []} for c in configs}
            for rep in range(a.reps):
                for c, env in configs.items():
                    ck = wd / "ck"
                    subprocess.run(["rm", "-rf", str(ck)])
                    st = wd / f"stats-{c.replace('/', '-')}-{rep}.jsonl"
                    e = dict(env)
                    if env:
                        e.update({"DAO_DIR": str(ck), "DAO_STATS": str(st)})
                    wall, bench, _ = run(exe, a.threads, e, wd)
                    r = res[c]
                    r["wall"].append(wall)
                    r["bench"].append(bench)
                    evs = stats(st)
                    r["count"].append(len(evs))
                    r["nbg"].append(sum(1 for x in evs if x.get("background")))
                    if evs:
                        r["pause"].append(statistics.mean(pause(x) for x in evs))
                        r["max_pause"].append(max(pause(x) for x in evs))
                        r["bytes"].append(statistics.mean(x["file_bytes"] for x in evs))
                        bgs = [x["background"] for x in evs if x.get("background")]
                        if bgs:
                            r["fork"].append(statistics.mean(b["fork_s"] for b in bgs))
                            r["extra"].append(max(b["extra_bytes"] for b in bgs))
            one_bytes = med(res["one/sync"]["bytes"])
            memcpy_s = float(subprocess.run([str(mc), str(int(one_bytes))], capture_output=True, text=True, check=True).stdout)
            row = {"bench": tag, "threads": a.threads, "candidates": n, "k": k, "k10": k10, "memcpy_s": memcpy_s}
            for c, r in res.items():
                row[c] = {key: med(v) for key, v in r.items()}
            rows.append(row)
            print(f"# {tag}: {json.dumps(row)}", file=sys.stderr)
    print("| bench | bytes | memcpy | fork | pause sync | pause bg | one ckpt: wall sync / bg | every 10%: ckpts, wall sync / bg / auto (in bg) | extra RSS (bg) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        none = r["none"]["wall"]

        def ov(c):
            return f"{(r[c]['wall'] / none - 1) * 100:+.1f}%"
        print(
            f"| {r['bench']} | {r['one/sync']['bytes'] / 1e6:.1f} MB | {r['memcpy_s'] * 1e3:.1f} ms | {r['one/bg']['fork'] * 1e3:.2f} ms "
            f"| {r['one/sync']['pause'] * 1e3:.1f} ms | {r['one/bg']['pause'] * 1e3:.2f} ms "
            f"| {ov('one/sync')} / {ov('one/bg')} "
            f"| {r['10%/sync']['count']:.0f}: {ov('10%/sync')} / {ov('10%/bg')} / {ov('10%/auto')} ({r['10%/auto']['nbg']:.0f}) "
            f"| {r['one/bg']['extra'] / 1e6:.1f} MB |"
        )
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
