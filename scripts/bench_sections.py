#!/usr/bin/env python3
"""Array-section liveness (issue #15), side by side in one run.

For every NPB port (C: bt, cg, ft, mg; Fortran: cg, mg) and class (W, A by
default), and for the NPB 3.0-style test program sections_dead (C and
Fortran):

1. Three instrumented builds of the same sources with the same `dao cc|fc
   -O3 -fopenmp`: before (`DAO_SECTIONS=0` at compile time: whole-object
   kills by single stores only, calls read every global their callees may
   read), whole (`DAO_SECTIONS=whole`: section kills of whole objects, no
   byte-level liveness: a partly rewritten global saved whole) and after
   (the default). Compile time of the before and after builds (wall,
   median of --reps).
2. Four profiling runs (`DAO_PROFILE`, OMP_NUM_THREADS=--threads; nothing
   is written): the before, whole and after builds, and the after build
   with `DAO_SAVE=all` (save everything: the C3 column). The profile gives, for
   every candidate instance, the bytes a checkpoint there would save
   (shared globals + heap + every thread's slots, stack and thread-local
   values). Per candidate site, the first instance is reported.
3. RSS: the peak resident set of the after build's run (getrusage of the
   child), the floor of what a process dump writes.

The outputs of the three runs must be equal (checked, timing lines left
out). Writes a Markdown table to stdout (for docs/results.md) and the raw
numbers as JSON to --json.

Usage: python3 scripts/bench_sections.py [--classes W,A] [--threads 2]
       [--reps 3] [--json out.json]
"""
import argparse
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
    ("bt", "c", ["bt/bt.c"]),
    ("cg", "c", ["cg/cg.c", "common/npb_common.c"]),
    ("ft", "c", ["ft/ft.c"]),
    ("mg", "c", ["mg/mg.c", "common/npb_common.c"]),
    ("cg_f", "fortran", ["common/dao_markers.F90", "common/npb_random.F90", "fortran/cg/cg_work.F90", "fortran/cg/cg.F90"]),
    ("mg_f", "fortran", ["common/dao_markers.F90", "common/npb_random.F90", "fortran/mg/mg.F90"]),
]
PROGRAMS = [
    ("sections_dead", "c", ROOT / "test-programs/omp/c/sections_dead.c", ["60"]),
    ("sections_dead_f", "fortran", ROOT / "test-programs/omp/fortran/sections_dead.f90", ["60"]),
]
TIMING = re.compile(r"^ (Time|Mop/s|Time initialisation)")


def build(lang, sources, flags, out, sections, workdir):
    env = dict(os.environ)
    env.pop("DAO_SECTIONS", None)
    if sections is not True:
        env["DAO_SECTIONS"] = "0" if sections is False else sections
    cmd = [str(DAO), "cc" if lang == "c" else "fc", "-O3", "-fopenmp", *flags, *map(str, sources), "-o", str(out)]
    if lang == "c":
        cmd.append("-lm")
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=workdir, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"build failed: {' '.join(cmd)}\n{r.stderr}")
    return dt


def profile(exe, args, threads, save_all, workdir):
    prof = Path(workdir) / f"prof-{exe.name}-{int(save_all)}.json"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_PROFILE=str(prof))
    env.pop("DAO_DIR", None)
    if save_all:
        env["DAO_SAVE"] = "all"
    so, se = Path(workdir) / "stdout", Path(workdir) / "stderr"
    with open(so, "w") as fo, open(se, "w") as fe:
        child = subprocess.Popen([str(exe), *args], env=env, cwd=workdir, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(child.pid, 0)
    rss = ru.ru_maxrss * 1024
    if status != 0:
        sys.exit(f"run failed: {exe}\n{se.read_text()[-2000:]}")
    r = type("R", (), {"stdout": so.read_text()})
    out = "\n".join(l for l in r.stdout.splitlines() if not TIMING.match(l))
    p = json.loads(prof.read_text())
    sites = {}
    for inst in p["instances"]:
        site = inst["site"]
        if site in sites:
            continue
        sh = inst["shared"]
        priv = sum(t.get("slots", 0) + t.get("stack", 0) + t.get("tls", 0) for t in inst["threads"])
        sites[site] = sh["globals"] + sh["heap"] + priv
    # ru_maxrss of children is the max over all children so far: only a
    # growing value is this run's
    return out, sites, rss


def site_key(site):
    # "main#3 (/abs/cg.c:206)" -> "main#3 cg.c:206"
    m = re.match(r"(\S+) \(([^)]*)\)", site)
    return f"{m.group(1)} {Path(m.group(2)).name}" if m else site


def mb(x):
    return f"{x / 1e6:.1f} MB" if x >= 1e5 else f"{x / 1e3:.1f} kB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", default="W,A")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", default=None, help="comma-separated port names")
    a = ap.parse_args()
    if not DAO.exists():
        sys.exit("build the tools first: cargo build --release -p dao-driver -p dao-pass -p dao-runtime")
    work = Path(tempfile.mkdtemp(prefix="dao-bench-sections-"))
    rows = []
    jobs = []
    for cls in a.classes.split(","):
        for name, lang, srcs in PORTS:
            if a.only and name not in a.only.split(","):
                continue
            jobs.append((f"{name}.{cls}", lang, [NPB / s for s in srcs], [f"-DCLASS_{cls}", f"-I{NPB / 'common'}"], []))
    for name, lang, src, args in PROGRAMS:
        if a.only and name not in a.only.split(","):
            continue
        jobs.append((name, lang, [src], [], args))
    for tag, lang, srcs, flags, args in jobs:
        wd = work / tag
        wd.mkdir()
        times = {True: [], False: []}
        exes = {}
        for rep in range(a.reps):
            for sections in (False, True):
                exe = wd / f"{tag}.{'after' if sections else 'before'}"
                times[sections].append(build(lang, srcs, flags, exe, sections, wd))
                exes[sections] = exe
        exes["whole"] = wd / f"{tag}.whole"
        build(lang, srcs, flags, exes["whole"], "whole", wd)
        out_b, before, _ = profile(exes[False], args, a.threads, False, wd)
        out_w, whole, _ = profile(exes["whole"], args, a.threads, False, wd)
        out_a, after, rss = profile(exes[True], args, a.threads, False, wd)
        out_all, allm, _ = profile(exes[True], args, a.threads, True, wd)
        if not (out_b == out_w == out_a == out_all):
            sys.exit(f"{tag}: outputs differ between the before, whole, after and save-all runs")
        tb, ta = statistics.median(times[False]), statistics.median(times[True])
        for site in after:
            rows.append(dict(bench=tag, site=site_key(site), before=before.get(site), whole=whole.get(site), after=after[site], all=allm.get(site), rss=rss, compile_before_s=tb, compile_after_s=ta))
        print(f"{tag}: compile {tb:.2f} s -> {ta:.2f} s ({100 * (ta / tb - 1):+.1f}%)", file=sys.stderr)
    print(f"| bench | candidate | before | whole | after | save-all | after / save-all | whole / save-all | before / save-all | RSS |")
    print(f"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b, w, x, al = r["before"], r["whole"], r["after"], r["all"]
        print(f"| {r['bench']} | {r['site']} | {mb(b)} | {mb(w)} | {mb(x)} | {mb(al)} | "
              f"{100 * x / al:.1f}% | {100 * w / al:.1f}% | {100 * b / al:.1f}% | {mb(r['rss']) if r['rss'] else '-'} |" if al and b is not None and w is not None else
              f"| {r['bench']} | {r['site']} | - | - | {mb(x)} | - | - | - | - | - |")
    print()
    print("| bench | compile before (s) | compile after (s) | added |")
    print("|---|---:|---:|---:|")
    seen = set()
    for r in rows:
        if r["bench"] in seen:
            continue
        seen.add(r["bench"])
        print(f"| {r['bench']} | {r['compile_before_s']:.2f} | {r['compile_after_s']:.2f} | {100 * (r['compile_after_s'] / r['compile_before_s'] - 1):+.1f}% |")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
