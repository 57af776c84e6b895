#!/usr/bin/env python3
"""C++ programs with `dao c++` (issue #34): failure-free overhead, checkpoint
size and time per checkpoint, on dao's own C++ test programs and on
third-party C++ OpenMP codes built through their own makefiles.

Nothing third-party is in this repository: point the script at trees
fetched from public repositories, e.g.

  LULESH 2.0 (github LLNL/LULESH):                          --lulesh DIR
  NPB-CPP, OpenMP version (github GMAP/NPB-CPP, NPB-OMP):   --npb-cpp DIR/NPB-OMP

Each tree is copied to a work folder; one marker goes at the top of the
main loop (`dao_potential_checkpoint();` and `#include "dao.h"`), as a
user would put it. LULESH is built with `make CXX="dao c++ -DUSE_MPI=0"`
(its Makefile's -O3 -fopenmp), NPB-CPP with its config/make.def's
`CC = g++ -std=c++14` replaced by `dao c++ -std=c++14` (and
`-mcmodel=medium` dropped: dao links -no-pie with the small model).
The clean build is the same command with `--dao-no-pass`.

For every program, at --threads threads:
1. wall time of the clean and the instrumented build, no checkpoint
   (the fastest of --reps runs, alternating: on a shared machine the
   median mostly measures the neighbours): the failure-free overhead;
2. with --instructions, executed instructions of both under callgrind at
   one thread (on the smaller `instr_args`);
3. a run with checkpoints (DAO_EVERY; DAO_STATS): the bytes of a
   checkpoint (live), the same with DAO_SAVE=all, the resident set at
   the checkpoint, and the time the program stands still per checkpoint
   (`pause_s`: collect and fork of the background writer) and the time
   to its commit (`elapsed_s`);
4. with --restart: killed after the first checkpoint and restarted, the
   output (timings left out) must equal the uninterrupted run's.

Prints a Markdown table; --json writes the raw numbers.

Usage: python3 scripts/bench_cxx.py [--lulesh DIR] [--npb-cpp DIR]
       [--threads 2] [--reps 3] [--instructions] [--restart]
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
TIMING = re.compile(r"time|mop|elapsed|grind|fom|compile|compiler|dao:|cflags|cc |clink|c_lib|c_inc", re.I)


def sh(cmd, cwd=None, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, shell=isinstance(cmd, str))
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def insert_marker(path, loop_re):
    lines = Path(path).read_text().splitlines(keepends=True)
    out, done = ['#include "dao.h"\n'], False
    for l in lines:
        out.append(l)
        if not done and re.search(loop_re, l):
            out.append("    dao_potential_checkpoint();\n")
            done = True
    if not done:
        sys.exit(f"{path}: main loop not found (the marker goes at its top)")
    Path(path).write_text("".join(out))


def own_programs(work):
    """dao's C++ test programs: (name, clean, inst, args, instr_args, every)."""
    progs = [("hydro", True, ["2000"], ["200"], 100), ("npb_kernel", True, ["600"], ["60"], 50),
             ("exceptions", False, ["40000"], ["4000"], 4001), ("templates_uptr", False, ["400000"], ["40000"], 40001)]
    out = []
    for name, omp, args, iargs, every in progs:
        src = ROOT / "test-programs" / "cxx" / f"{name}.cc"
        flags = ["-O2"] + (["-fopenmp"] if omp else [])
        clean, inst = work / f"{name}.clean", work / f"{name}.inst"
        sh([str(DAO), "c++", "--dao-no-pass", *flags, str(src), "-o", str(clean)])
        sh([str(DAO), "c++", *flags, str(src), "-o", str(inst)])
        out.append((name, clean, inst, args, iargs, every))
    return out


def lulesh(tree, work):
    out = []
    for variant, extra in (("clean", " --dao-no-pass"), ("inst", "")):
        d = work / f"lulesh-{variant}"
        shutil.copytree(tree, d)
        insert_marker(d / "lulesh.cc", r"^\s*while\s*\(\(locDom->time\(\) < locDom->stoptime\(\)\)")
        sh(["make", "-j2", f"CXX={DAO} c++{extra} -DUSE_MPI=0"], cwd=d)
        out.append(d / "lulesh2.0")
    return [("lulesh", out[0], out[1], ["-s", "20", "-i", "100"], ["-s", "8", "-i", "20"], 25)]


# (name, file, main loop, DAO_EVERY at class W: BT 200 steps, CG 15, FT 6, MG 4)
NPB_CPP = [("bt", "BT/bt.cpp", r"for\(step=1; step<=niter; step\+\+\)\{", 20),
           ("cg", "CG/cg.cpp", r"for\(it = 1; it <= NITER; it\+\+\)\{", 4),
           ("ft", "FT/ft.cpp", r"for\(iter=1; iter<=niter; iter\+\+\)\{", 2),
           ("mg", "MG/mg.cpp", r"for\(it = 1; it <= nit; it\+\+\)\{", 2)]


def npb_cpp(tree, work, cls):
    out = []
    builds = {}
    for variant, extra in (("clean", " --dao-no-pass"), ("inst", "")):
        d = work / f"npbcpp-{variant}"
        shutil.copytree(tree, d)
        mk = d / "config" / "make.def"
        text = mk.read_text().replace("CC = g++ -std=c++14", f"CC = {DAO} c++{extra} -std=c++14").replace(" -mcmodel=medium", "")
        mk.write_text(text)
        (d / "bin").mkdir(exist_ok=True)
        for name, f, loop, _ in NPB_CPP:
            insert_marker(d / f, loop)
            sh(["make", name, f"CLASS={cls}"], cwd=d)
            sh(["make", name, "CLASS=S"], cwd=d)
            builds[(variant, name)] = (d / "bin" / f"{name}.{cls}", d / "bin" / f"{name}.S")
    for name, _, _, every in NPB_CPP:
        c, ci = builds[("clean", name)]
        i, ii = builds[("inst", name)]
        # instructions on class S (separate binaries: NPB sizes are compiled in)
        out.append((f"npb-cpp {name}.{cls}", c, i, [], [], every, (ci, ii)))
    return out


def run(binary, args, env, cwd):
    e = dict(os.environ)
    e.update(env)
    t = time.perf_counter()
    r = subprocess.run([str(binary), *args], env=e, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t, r


def instructions(binary, args, cwd):
    stripped = Path(cwd) / (Path(binary).name + ".nodebug")
    subprocess.run(["objcopy", "--strip-debug", str(binary), str(stripped)], check=True)
    e = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(stripped), *args], env=e, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    print(f"callgrind on {binary} failed: {r.stderr[-300:]}", file=sys.stderr)
    return None


def checkpoint_run(binary, args, env, tmp, extra):
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    st = tmp / "stats.jsonl"
    e = dict(env, DAO_DIR=str(tmp / "ck"), DAO_STATS=str(st), **extra)
    _, r = run(binary, args, e, tmp)
    if r.returncode != 0:
        sys.exit(f"{binary} with checkpoints exited {r.returncode}: {r.stderr[-800:]}")
    ev = [json.loads(l) for l in st.read_text().splitlines() if l.strip()] if st.exists() else []
    return [x for x in ev if x.get("event") == "checkpoint"]


def filtered(text):
    return [l for l in text.splitlines() if not TIMING.search(l)]


def restart_ok(binary, args, env, tmp, every, reference):
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    e = dict(env, DAO_DIR=str(tmp / "ck"), DAO_EVERY=str(every), DAO_CRASH_AFTER="1")
    _, a = run(binary, args, e, tmp)
    if a.returncode != -9:
        return f"not killed ({a.returncode})"
    _, b = run(binary, args, dict(env, DAO_DIR=str(tmp / "ck"), DAO_DEAD="poison"), tmp)
    if b.returncode != 0 or "dao: resuming" not in b.stderr:
        return f"restart failed ({b.returncode})"
    return "same" if filtered(a.stdout + b.stdout) == filtered(reference) else "DIFFERENT"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lulesh")
    ap.add_argument("--npb-cpp")
    ap.add_argument("--class", dest="cls", default="W")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--restart", action="store_true")
    ap.add_argument("--no-own", action="store_true", help="leave out dao's own C++ programs")
    ap.add_argument("--json")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dao-bench-cxx-"))
    progs = [] if a.no_own else [p + (None,) for p in own_programs(work)]
    if a.lulesh:
        progs += [p + (None,) for p in lulesh(Path(a.lulesh), work)]
    if a.npb_cpp:
        progs += npb_cpp(Path(a.npb_cpp), work, a.cls)
    env = {"OMP_NUM_THREADS": str(a.threads)}
    rows = []
    for name, clean, inst, args, iargs, every, small in progs:
        cwd = work
        tc, ti = [], []
        ref = None
        for _ in range(a.reps):
            t, r = run(clean, args, env, cwd)
            if r.returncode != 0:
                sys.exit(f"{name} clean exited {r.returncode}: {r.stderr[-500:]}")
            tc.append(t)
            ref = r.stdout
            t, r = run(inst, args, env, cwd)
            if r.returncode != 0:
                sys.exit(f"{name} instrumented exited {r.returncode}: {r.stderr[-500:]}")
            ti.append(t)
        row = {"program": name, "threads": a.threads, "clean_s": min(tc), "inst_s": min(ti)}
        if a.instructions:
            ic, ii = (small if small else (clean, inst))
            row["clean_instr"] = instructions(ic, iargs, cwd)
            row["inst_instr"] = instructions(ii, iargs, cwd)
        live = checkpoint_run(inst, args, env, work / "ck-live", {"DAO_EVERY": str(every)})
        full = checkpoint_run(inst, args, env, work / "ck-all", {"DAO_EVERY": str(every), "DAO_SAVE": "all"})
        if live and full:
            row["checkpoints"] = len(live)
            row["live_bytes"] = max(sum(x["bytes"].values()) for x in live)
            row["all_bytes"] = max(sum(x["bytes"].values()) for x in full)
            row["rss_bytes"] = max(x.get("rss_bytes", 0) for x in live)
            row["pause_s"] = statistics.median(x.get("background", {}).get("pause_s", x.get("collect_s", 0.0)) for x in live)
            row["commit_s"] = statistics.median(x.get("background", {}).get("elapsed_s", x.get("write_s", 0.0)) for x in live)
        if a.restart:
            row["restart"] = restart_ok(inst, args, env, work / "ck-restart", every, ref)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    mib = lambda b: f"{b / 2**20:.2f}"
    print(f"| program | threads | clean s | dao s | overhead | instructions clean / dao | checkpoint MiB live / save-all / RSS | pause ms | commit ms |{' restart |' if a.restart else ''}")
    print(f"|---|---|---|---|---|---|---|---|---|{'---|' if a.restart else ''}")
    for r in rows:
        ins = f"{r['clean_instr']:.3e} / {r['inst_instr']:.3e} ({100 * (r['inst_instr'] / r['clean_instr'] - 1):+.2f}%)" if r.get("clean_instr") and r.get("inst_instr") else "-"
        size = f"{mib(r['live_bytes'])} / {mib(r['all_bytes'])} / {mib(r['rss_bytes'])}" if "live_bytes" in r else "-"
        pause = f"{1000 * r['pause_s']:.1f}" if "pause_s" in r else "-"
        commit = f"{1000 * r['commit_s']:.1f}" if "commit_s" in r else "-"
        rs = f" {r['restart']} |" if a.restart else ""
        print(f"| {r['program']} | {r['threads']} | {r['clean_s']:.3f} | {r['inst_s']:.3f} | {100 * (r['inst_s'] / r['clean_s'] - 1):+.1f}% | {ins} | {size} | {pause} | {commit} |{rs}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
