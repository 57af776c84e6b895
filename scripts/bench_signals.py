#!/usr/bin/env python3
"""Batch systems (issue #37): the time from SIGTERM to the exit.

For NPB MG class A and the other ports (C: cg, mg, ft, bt; Fortran: cg,
mg; class A, BT at W by default), one instrumented build each (`dao cc|fc
-O3 -fopenmp -DCLASS_X`), OMP_NUM_THREADS=--threads. Per port, one clean
run of the instrumented build without DAO_DIR gives its wall time T; then
per writing mode, --reps runs with DAO_DIR set and periodic checkpoints
every --interval seconds (default 0.5; so a checkpoint, and in the background a writer,
may be under way when the signal comes), each sent SIGTERM at T/2:

- `background`: DAO_ASYNC=wait (the periodic checkpoints are written by a
  forked writer; one still writing when SIGTERM comes is waited for);
- `in place`: DAO_ASYNC=off (the program writes them itself).

The exit checkpoint itself is always written by the program (issue #37).
Measured per run: the time from `kill(SIGTERM)` to the process's exit
(its exit status must be 143, and DAO_STATS must show the exit
checkpoint, `"trigger":"signal"`, as the last line), the exit
checkpoint's bytes, and its collect + write time from DAO_STATS. Table:
median (min-max) of the --reps runs. Checkpoints go to the default
storage (the storage engine) in a temporary directory on the same file
system as the repository (--tmp to choose).

Usage: python3 scripts/bench_signals.py [--threads 2] [--reps 5]
       [--interval 1] [--only mg,cg_f] [--json out.json]
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
NPB = ROOT / "npb-ports"
# name, tool, class, sources (relative to npb-ports/)
PORTS = [
    ("mg", "cc", "A", ["mg/mg.c", "common/npb_common.c"]),
    ("cg", "cc", "A", ["cg/cg.c", "common/npb_common.c"]),
    ("ft", "cc", "A", ["ft/ft.c"]),
    ("bt", "cc", "W", ["bt/bt.c"]),
    ("mg_f", "fc", "A", ["common/dao_markers.F90", "common/npb_random.F90", "fortran/mg/mg.F90"]),
    ("cg_f", "fc", "A", ["common/dao_markers.F90", "common/npb_random.F90", "fortran/cg/cg_work.F90", "fortran/cg/cg.F90"]),
]
MODES = [("background", "wait"), ("in place", "off")]


def build(name, tool, cls, srcs, out):
    cmd = [str(DAO), tool, "-O3", "-fopenmp", f"-DCLASS_{cls}", f"-I{NPB / 'common'}", *[str(NPB / s) for s in srcs], "-o", str(out)]
    if tool == "cc":
        cmd.append("-lm")
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent)
    if r.returncode != 0:
        sys.exit(f"build failed: {' '.join(cmd)}\n{r.stderr}")


def env_for(threads, extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e.update(extra)
    e["OMP_NUM_THREADS"] = str(threads)
    return e


def clean_wall(exe, threads, wd):
    t0 = time.perf_counter()
    r = subprocess.run([str(exe)], env=env_for(threads, {}), cwd=wd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0 or "SUCCESSFUL" not in r.stdout:
        sys.exit(f"run failed ({r.returncode}): {exe}\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}")
    return wall


def stopped_run(exe, threads, wd, asyncmode, interval, at):
    ck = wd / "ck"
    shutil.rmtree(ck, ignore_errors=True)
    st = wd / "stats.jsonl"
    st.unlink(missing_ok=True)
    extra = {"DAO_DIR": str(ck), "DAO_STATS": str(st), "DAO_ASYNC": asyncmode, "DAO_INTERVAL": str(interval)}
    p = subprocess.Popen([str(exe)], env=env_for(threads, extra), cwd=wd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(at)
    if p.poll() is not None:
        sys.exit(f"{exe} ended before the signal ({p.returncode})")
    t0 = time.perf_counter()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate()
    took = time.perf_counter() - t0
    if p.returncode != 143:
        sys.exit(f"{exe}: exit status {p.returncode}, not 143\n{err[-1500:]}")
    evs = [json.loads(l) for l in st.read_text().splitlines() if '"event":"checkpoint"' in l]
    if not evs or evs[-1].get("trigger") != "signal":
        sys.exit(f"{exe}: the last checkpoint is not the signal's: {evs[-1:] }")
    last = evs[-1]
    store = last.get("store") or {}
    write = last.get("write_s", 0.0)
    return {
        "exit_s": took,
        "bytes": store.get("live_bytes", last.get("file_bytes", 0)),
        "ckpt_s": last.get("collect_s", 0.0) + write,
        "checkpoints": len(evs),
        "writer_waited_s": store.get("wait_s", 0.0),
    }


def fmt(xs, unit=""):
    return f"{statistics.median(xs):.3f}{unit} ({min(xs):.3f}-{max(xs):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--tmp", default=str(ROOT / "target"))
    a = ap.parse_args()
    only = [x for x in a.only.split(",") if x]
    base = Path(tempfile.mkdtemp(prefix="bench_signals.", dir=a.tmp))
    results = []
    print(f"| port | T (s, no DAO_DIR) | writing | SIGTERM to exit (s) | exit checkpoint: collect + write (s) | its bytes | checkpoints in the run |")
    print("|---|---|---|---|---|---|---|")
    for name, tool, cls, srcs in PORTS:
        if only and name not in only:
            continue
        wd = base / name
        wd.mkdir(parents=True)
        exe = wd / "prog"
        build(name, tool, cls, srcs, exe)
        wall = clean_wall(exe, a.threads, wd)
        for label, mode in MODES:
            runs = [stopped_run(exe, a.threads, wd, mode, a.interval, wall / 2) for _ in range(a.reps)]
            r = {"port": name, "class": cls, "threads": a.threads, "mode": label, "clean_wall_s": wall, "runs": runs}
            results.append(r)
            print(
                f"| {name}.{cls} | {wall:.2f} | {label} | {fmt([x['exit_s'] for x in runs])} | {fmt([x['ckpt_s'] for x in runs])} | "
                f"{statistics.median([x['bytes'] for x in runs]) / 1e6:.1f} MB | {statistics.median([x['checkpoints'] for x in runs]):.0f} |",
                flush=True,
            )
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
