#!/usr/bin/env python3
"""Checkpoints of the task programs (issue #18): the live set against
DAO_SAVE=all, side by side in one run.

For each program of test-programs/tasks/c (`dao cc -O2 -fopenmp`),
OMP_NUM_THREADS=--threads, DAO_EVERY=--every, interleaved rep by rep:
`live` (the default) and `all` (DAO_SAVE=all); from DAO_STATS the median
per checkpoint of the bytes saved (`bytes`: globals, heap, frames), the
file size and the pause (collection + write; DAO_STORE=file, DAO_ASYNC=off
so that the write is timed in place), and the whole run's wall time.
Every run's output must equal the clean build's.

Usage: python3 scripts/bench_tasks.py [--threads 2] [--reps 3] [--every 4]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
PROGS = [("tasks_mix", "24"), ("tiled_depend", "24"), ("cholesky", "16"), ("single_taskwait", "24")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--every", default="4")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dao-bench-tasks-"))
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    env0["OMP_NUM_THREADS"] = str(a.threads)
    print(f"| program | mode | checkpoints | saved bytes/ckpt | file bytes/ckpt | pause ms/ckpt | wall s |")
    print("|---|---|---|---|---|---|---|")
    for name, steps in PROGS:
        src = ROOT / "test-programs/tasks/c" / f"{name}.c"
        inst, clean = work / name, work / f"{name}-clean"
        subprocess.run([str(DAO), "cc", "-O2", "-fopenmp", str(src), "-o", str(inst), "-lm"], check=True, cwd=work)
        subprocess.run([str(DAO), "cc", "--dao-no-pass", "-O2", "-fopenmp", str(src), "-o", str(clean), "-lm"], check=True, cwd=work)
        want = subprocess.run([str(clean), steps], capture_output=True, text=True, env=env0).stdout
        acc = {m: {"saved": [], "file": [], "pause": [], "wall": [], "n": []} for m in ("live", "all")}
        for rep in range(a.reps):
            for mode in ("live", "all"):
                ck, st = work / f"ck-{name}-{mode}-{rep}", work / f"st-{name}-{mode}-{rep}.json"
                env = dict(env0, DAO_DIR=str(ck), DAO_STATS=str(st), DAO_EVERY=a.every, DAO_SAVE=mode, DAO_STORE="file", DAO_ASYNC="off")
                t = time.perf_counter()
                p = subprocess.run([str(inst), steps], capture_output=True, text=True, env=env)
                wall = time.perf_counter() - t
                if p.returncode != 0 or p.stdout != want:
                    raise SystemExit(f"{name} {mode}: wrong output or failure ({p.returncode})\n{p.stderr}")
                ev = [json.loads(l) for l in st.read_text().splitlines() if '"checkpoint"' in l]
                r = acc[mode]
                r["n"].append(len(ev))
                r["wall"].append(wall)
                for e in ev:
                    b = e["bytes"]
                    r["saved"].append(sum(v for v in b.values() if isinstance(v, (int, float))))
                    r["file"].append(e["file_bytes"])
                    r["pause"].append(e["collect_s"] + e["write_s"])
                subprocess.run(["rm", "-rf", str(ck)])
        for mode in ("live", "all"):
            r = acc[mode]
            print(f"| {name} | {mode} | {statistics.median(r['n']):.0f} | {statistics.median(r['saved']):.0f} | {statistics.median(r['file']):.0f} | {statistics.median(r['pause']) * 1e3:.2f} | {statistics.median(r['wall']):.3f} |")
    subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
