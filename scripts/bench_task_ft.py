#!/usr/bin/env python3
"""Fault-tolerant tasks (DAO_TASK_FT=dual, issue #18 part 2): overhead and
fault campaign, side by side in one run.

Overhead: for each program (`dao cc -O2 -fopenmp`; the clean build with
--dao-no-pass) and OMP_NUM_THREADS in --threads, interleaved rep by rep:
`clean`, `inst` (instrumented, DAO_TASK_FT unset), `serial` and `dual`
(DAO_TASK_FT=serial / dual); median whole-process wall time, and the
ratios to clean.
Every run's output must equal the clean build's.

Campaign: --runs runs per program and mode (serial, dual) with DAO_TASK_FAULTS=SEED:1 (one fault of
a drawn kind, SEED = run number) among all the replicated executions of a
run (DAO_TASK_FAULT_SPAN from a fault-free run's count); each run is
classified from its exit status, its output and its DAO_STATS event:
detected and corrected / benign (no committed value changed) / crashed /
wrong output / not landed.

Usage: python3 scripts/bench_task_ft.py [--threads 1,2,4] [--reps 3] [--runs 1000]
"""
import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
# program, arguments for the overhead, arguments for the campaign
PROGS = [
    ("cholesky", ["4", "8", "48"], ["2", "4", "32"]),
    ("tiled_depend", ["24"], ["8"]),
    ("tasks_mix", ["24"], ["8"]),
]


def run(exe, args, env):
    t = time.perf_counter()
    p = subprocess.run([str(exe)] + args, capture_output=True, text=True, env=env)
    return p, time.perf_counter() - t


def ft_event(path):
    for l in reversed(path.read_text().splitlines()):
        if '"task_ft"' in l:
            return json.loads(l)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--campaign-threads", type=int, default=2)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dao-bench-taskft-"))
    atexit.register(shutil.rmtree, work, True)  # GBs of checkpoints: gone also on sys.exit
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    built = {}
    for name, _, _ in PROGS:
        src = ROOT / "test-programs/tasks/c" / f"{name}.c"
        inst, clean = work / name, work / f"{name}-clean"
        subprocess.run([str(DAO), "cc", "-O2", "-fopenmp", str(src), "-o", str(inst), "-lm"], check=True, cwd=work)
        subprocess.run([str(DAO), "cc", "--dao-no-pass", "-O2", "-fopenmp", str(src), "-o", str(clean), "-lm"], check=True, cwd=work)
        built[name] = (inst, clean)

    print("| program | threads | clean s | instrumented, off s | serial s | dual s | serial / clean | dual / clean | tasks replicated | dual: pairs on two threads |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, args, _ in PROGS:
        inst, clean = built[name]
        for t in [int(x) for x in a.threads.split(",")]:
            env = dict(env0, OMP_NUM_THREADS=str(t))
            want = subprocess.run([str(clean)] + args, capture_output=True, text=True, env=env).stdout
            times = {"clean": [], "inst": [], "serial": [], "dual": []}
            ev = None
            for rep in range(a.reps):
                for mode in ("clean", "inst", "serial", "dual"):
                    st = work / f"st-{name}-{t}-{mode}-{rep}.json"
                    e = dict(env, DAO_STATS=str(st))
                    if mode in ("serial", "dual"):
                        e["DAO_TASK_FT"] = mode
                    p, wall = run(clean if mode == "clean" else inst, args, e)
                    if p.returncode != 0 or p.stdout != want:
                        raise SystemExit(f"{name} t={t} {mode}: wrong output or failure ({p.returncode})\n{p.stderr}")
                    times[mode].append(wall)
                    if mode == "dual":
                        ev = ft_event(st)
            m = {k: statistics.median(v) for k, v in times.items()}
            print(f"| {name} | {t} | {m['clean']:.3f} | {m['inst']:.3f} | {m['serial']:.3f} | {m['dual']:.3f} | {m['serial'] / m['clean']:.2f} | {m['dual'] / m['clean']:.2f} | {ev['tasks']} | {ev['other_thread']} |", flush=True)

    print()
    print(f"Campaign: {a.runs} runs per program, one fault each (DAO_TASK_FAULTS=RUN:1, kind drawn), OMP_NUM_THREADS={a.campaign_threads}")
    print()
    print("| program | mode | runs | detected and corrected | benign | crashed | wrong output | not landed | replica crashes recovered |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _, args in PROGS:
        for mode in ("serial", "dual"):
            inst, clean = built[name]
            env = dict(env0, OMP_NUM_THREADS=str(a.campaign_threads))
            want = subprocess.run([str(clean)] + args, capture_output=True, text=True, env=env).stdout
            st = work / f"span-{name}-{mode}.json"
            subprocess.run([str(inst)] + args, capture_output=True, text=True, env=dict(env, DAO_TASK_FT=mode, DAO_STATS=str(st)), check=True)
            span = ft_event(st)["runs"]
            c = {"fixed": 0, "benign": 0, "crashed": 0, "wrong": 0, "void": 0, "segv": 0}
            for r in range(a.runs):
                st = work / f"camp-{name}-{mode}-{r}.json"
                e = dict(env, DAO_TASK_FT=mode, DAO_TASK_FAULTS=f"{r}:1", DAO_TASK_FAULT_SPAN=str(span), DAO_STATS=str(st))
                p, _ = run(inst, args, e)
                if p.returncode != 0:
                    c["crashed"] += 1
                    continue
                if p.stdout != want:
                    c["wrong"] += 1
                    continue
                ev = ft_event(st)
                c["segv"] += ev["crashes"]
                if ev["injected"] == 0:
                    c["void"] += 1
                elif ev["detected"] > 0 and ev["corrected"] == ev["detected"]:
                    c["fixed"] += 1
                elif ev["benign"] > 0:
                    c["benign"] += 1
                else:
                    c["wrong"] += 1
                st.unlink()
            print(f"| {name} | {mode} | {a.runs} | {c['fixed']} | {c['benign']} | {c['crashed']} | {c['wrong']} | {c['void']} | {c['segv']} |", flush=True)


if __name__ == "__main__":
    main()
