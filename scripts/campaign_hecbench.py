#!/usr/bin/env python3
"""campaign_hecbench.py -- kill/restart trials and device checkpoint sizes on
HeCBench's OpenMP offload programs (issue #35).

zjin-lcf/HeCBench (fetch it: the search tool's `fetch github:zjin-lcf/HeCBench`,
then `git --git-dir=... archive HEAD src/NAME-omp src/NAME-cuda | tar x`)
keeps one folder per program and model; the OpenMP offload versions
(`src/*-omp`) include headers (`reference.h`, a CPU reference) from their
CUDA sibling. Nothing of it is in this repository: --hecbench names the
unpacked tree, which is not changed (each program and its sibling are
copied under --work first).

Per program: one marker (`dao_potential_checkpoint();`) put after the line
that first matches the program's pattern below (the top of its host loop
around the kernels: after that line when it ends with `{` or `;`, after
the next line when that is `{`, else the loop's one-statement body is
braced and the marker put first in it), built with `dao c++|cc --opt
-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu` (LLVM 19's host offload
device) and with `--dao-no-pass` (the reference), three reference runs (a
program whose runs print different lines is nondeterministic without dao:
reported, not tried), two at each of 1, 2 and 3 threads (a count whose
two runs differ or fail is left out: burger-omp and floydwarshall-omp
abort now and then in libomp, "Assertion failure at kmp_tasking.cpp(4368):
task_team != __null", without dao), then --trials trials at a random remaining
thread count and DAO_EVERY (1, 2, 3, 5), the dead bytes poisoned at
restart (DAO_DEAD=poison): the first dies after its second checkpoint
(DAO_CRASH_AFTER=2), the others by SIGKILL at a random time of the run
(so also while a checkpoint is written); restarts into the same DAO_DIR
with stdout appended to one log (a restart puts the file back at the
checkpoint's offset), killed again with probability 0.3, at most five
restarts; the log's lines (timings dropped) and the exit status must be
the reference's. A program that prints nothing but timings cannot be
compared: reported. Then one run with a
checkpoint every third candidate, killed after the second: `dao inspect
--json` gives the device bytes mapped, live (saved), of them stored as
the host's bytes (format 10) and stored, and the file's total.

Usage: python3 scripts/campaign_hecbench.py --hecbench DIR [--only a,b]
       [--trials 3] [--seed 1] [--opt=-O2] [--work DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DAO = str(REPO / "target" / "release" / "dao")
# lines that change from run to run
TIMING = re.compile(r"time|second|bandwidth|GB/s|elapsed|\bms\b|throughput|\bus\b|usec|GFLOP|per ns|speed", re.I)
# program: (source with the loop, pattern of the loop's line, arguments)
PROGRAMS = {
    "heat-omp": ("heat.cpp", r"for \(int t = 0; t < nsteps; \+\+t\) \{", "256 200"),
    "heat2d-omp": ("main.cpp", r"dev_lapl_iter\(d_out, d_in, xdelta, xnorm, Lx, Ly\);", "256 256 200"),
    "burger-omp": ("main.cpp", r"for\(int itr = 0; itr < num_itrs; itr\+\+\)\{", "128 128 200"),
    "stencil3d-omp": ("main.cpp", r"for \(int i = 0; i < repeat; i\+\+\)", "64 100"),
    "ising-omp": ("main.cpp", r"for \(int i = 0; i < niters; i\+\+\) \{", "-x 512 -y 512 -w 10 -n 100"),
    "nw-omp": ("nw.cpp", r"for \(int i = 0; i < warmup \+ repeat; i\+\+\) \{", "512 10 5"),
    "page-rank-omp": ("main.cpp", r"for \(t=1; t<=iter && max_diff>=thresh; \+\+t\) \{", "-n 1000 -i 50"),
    "langevin-omp": ("main.cpp", r"for \(int i = 0; i < repeat; i\+\+\) \{", "1048576 50"),
    "haccmk-omp": ("haccmk.cpp", r"for \(int i = 0; i < repeat; i\+\+\) \{", "20"),
    "adam-omp": ("main.cpp", r"for \(int i = 0; i < repeat; i\+\+\) \{", "100000 10 50"),
    "kalman-omp": ("main.cpp", r"for \(int n_diff = 0; n_diff < rd; n_diff\+\+\) \{", "1000 100 3 20"),
    "particle-diffusion-omp": ("motionsim.cpp", r"for \(int i = 0; i < nRepeat; i\+\+\) \{", "100 20"),
    "stencil1d-omp": ("stencil_1d.cpp", r"for \(int i = 0; i < repeat; i\+\+\) \{", "1048576 100"),
    "pathfinder-omp": ("main.cpp", r"for \(int t = 0; t < rows - 1; t \+= pyramid_height\)", "20000 2000 20"),
    "floydwarshall-omp": ("main.cpp", r"for\(unsigned int k = 0; k < numPasses; k\+\+\)", "256 5 16"),
    "fft-omp": ("main.cpp", r"for \(int k=0; k<passes; k\+\+\) \{", "1 20"),
}


def patch(path, pattern):
    s = path.read_text()
    if "dao_potential_checkpoint" in s:
        return
    lines = s.split("\n")
    rx = re.compile(pattern)
    i = next((k for k, l in enumerate(lines) if rx.search(l)), None)
    if i is None:
        sys.exit(f"{path}: no line matches {pattern!r}")
    if not lines[i].rstrip().endswith(("{", ";")) and lines[i + 1].strip() != "{":
        # a loop whose body is one statement without braces: braced, the
        # marker first in it
        end = next(k for k in range(i + 1, len(lines)) if lines[k].rstrip().endswith(";"))
        lines.insert(end + 1, "    }")
        lines[i] += " {"
    elif not lines[i].rstrip().endswith(("{", ";")):
        i += 1
    lines.insert(i + 1, "    dao_potential_checkpoint();")
    path.write_text('#include "dao.h"\n' + "\n".join(lines))


def build(cwd, name, opt):
    srcs = sorted(f.name for f in cwd.iterdir() if f.suffix in (".c", ".cpp"))
    cxx = any(f.endswith(".cpp") for f in srcs)
    sib = f"../{name[:-4]}-cuda"
    flags = [opt, "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "-I.", f"-I{sib}", f"-I{sib}/common"] + (["-std=c++17"] if cxx else [])
    drv = "c++" if cxx else "cc"
    r = subprocess.run([DAO, drv, *flags, *srcs, "-lm", "-o", "prog", "-Rdao"], cwd=cwd, capture_output=True, text=True)
    (cwd / "remarks.txt").write_text(r.stderr)
    if r.returncode:
        return "build failed: " + " | ".join([l for l in r.stderr.splitlines() if "error" in l][:3])
    r = subprocess.run([DAO, drv, "--dao-no-pass", *flags, *srcs, "-lm", "-o", "prog.clean"], cwd=cwd, capture_output=True, text=True)
    return f"reference build failed: {r.stderr[-300:]}" if r.returncode else None


def lines(text):
    return [l for l in text.splitlines() if l.strip() and not TIMING.search(l)]


def run(cwd, argv, env, log=None, kill_at=None, timeout=600):
    """One run, its stdout appended to `log` (a file: a restart puts the
    file back at its offset of the checkpoint) or captured: (exit code,
    killed by us, stdout or None, stderr)."""
    fo = open(log, "a") if log else subprocess.PIPE
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=fo, stderr=subprocess.PIPE, text=True)
    killed = False
    try:
        out, err = p.communicate(timeout=kill_at if kill_at else timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        out, err = p.communicate()
        killed = kill_at is not None
    if log:
        fo.close()
    return p.returncode, killed, out, err


def trial(cwd, argv, refs, rnd, k):
    """One trial at a random thread count of `refs` ({threads: (lines,
    exit code, seconds)}): 'ok', 'WRONG' or 'failed (...)'."""
    t = rnd.choice(sorted(refs))
    ref, ref_rc, t_ref = refs[t]
    ck, log = cwd / f"ck{k}", cwd / f"run{k}.log"
    shutil.rmtree(ck, ignore_errors=True)
    log.unlink(missing_ok=True)
    env = dict(os.environ, DAO_DIR=str(ck), DAO_EVERY=str(rnd.choice([1, 2, 3, 5])), OMP_NUM_THREADS=str(t), DAO_DEAD="poison")
    when = lambda: rnd.uniform(0.1, max(0.3, 1.3 * t_ref))  # noqa: E731
    # the first trial dies after its second checkpoint, the others by SIGKILL
    if k == 0:
        rc, killed, _, err = run(cwd, argv, dict(env, DAO_CRASH_AFTER="2"), log)
        killed = rc == -signal.SIGKILL
    else:
        rc, killed, _, err = run(cwd, argv, env, log, kill_at=when())
    restarts = 0
    while killed and restarts < 5:
        if (ck / "finished").exists():
            # killed after the run had finished its work: nothing to restart
            killed, rc = False, ref_rc
            break
        restarts += 1
        rc, killed, _, err = run(cwd, argv, env, log, kill_at=when() if rnd.random() < 0.3 and restarts < 5 else None)
    if rc != ref_rc:
        (cwd / f"fail{k}.txt").write_text(err)
        return f"failed (rc {rc}: {err.strip().splitlines()[-1][:100] if err.strip() else ''})"
    got = lines(log.read_text(errors="replace"))
    ok = got == ref
    if not ok:
        (cwd / f"wrong{k}.txt").write_text(f"{t} threads\n" + "\n".join(ref) + "\n---- log of the trial ----\n" + "\n".join(got) + "\n---- stderr ----\n" + err)
    else:
        shutil.rmtree(ck, ignore_errors=True)
    return "ok" if ok else "WRONG"


def sizes(cwd, argv, env0):
    ck = cwd / "ck-sizes"
    shutil.rmtree(ck, ignore_errors=True)
    run(cwd, argv, dict(env0, DAO_DIR=str(ck), DAO_EVERY="3", DAO_CRASH_AFTER="2"))
    j = subprocess.run([DAO, "inspect", "--json", str(ck / "store.000002.dst")], capture_output=True, text=True)
    shutil.rmtree(ck, ignore_errors=True)
    if j.returncode:
        return None
    v = json.loads(j.stdout)
    rs = [r for d in v["devices"] for r in d["ranges"]]
    return (sum(r["size"] for r in rs), sum(r["size"] for r in rs if r["saved"]), sum(r["size"] for r in rs if r.get("from_host")), v["totals"]["device"], v["totals"]["total"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hecbench", required=True, help="an unpacked HeCBench tree (its src/ folder inside)")
    ap.add_argument("--only", default="")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--work", default="/tmp/dao-hecbench")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    only = [x for x in a.only.split(",") if x] or list(PROGRAMS)
    src = Path(a.hecbench) / "src"
    rows = []
    for name in only:
        file, pattern, args = PROGRAMS[name]
        wd = Path(a.work) / "src"
        wd.mkdir(parents=True, exist_ok=True)
        for d in (name, f"{name[:-4]}-cuda"):
            shutil.rmtree(wd / d, ignore_errors=True)
            if (src / d).is_dir():
                shutil.copytree(src / d, wd / d)
        if not (wd / name).is_dir():
            sys.exit(f"{src / name}: not found")
        cwd = wd / name
        patch(cwd / file, pattern)
        err = build(cwd, name, a.opt)
        if err:
            rows.append((name, args, err, "", None))
            print(f"{name}: {err}", flush=True)
            continue
        argv = ["./prog", *args.split()]
        env = dict(os.environ, OMP_NUM_THREADS="2")
        # references at 1-3 threads, two runs each: a count whose runs differ
        # (a race, a reduction's order) is left out
        refs, odd = {}, []
        for t in (1, 2, 3):
            t0 = time.time()
            r = [run(cwd, ["./prog.clean", *args.split()], dict(env, OMP_NUM_THREADS=str(t)))]
            dt = time.time() - t0
            r.append(run(cwd, ["./prog.clean", *args.split()], dict(env, OMP_NUM_THREADS=str(t))))
            if len({(rc, tuple(lines(o))) for rc, _, o, _ in r}) == 1 and r[0][0] == 0:
                refs[t] = (lines(r[0][2]), r[0][0], dt)
            else:
                odd.append(f"{t} threads: rc {r[0][0]}, {r[1][0]}")
        sz = sizes(cwd, argv, env)
        if not refs:
            verdict = "not tried: the reference build's runs differ (" + "; ".join(odd) + ")"
        elif not any(v[0] for v in refs.values()):
            verdict = "not compared: it prints nothing but timings"
        else:
            res = [trial(cwd, argv, refs, rnd, k) for k in range(a.trials)]
            verdict = f"{res.count('ok')} of {len(res)} ok" + (f"; left out: {'; '.join(odd)}" if odd else "") + ("" if res.count("ok") == len(res) else f" ({', '.join(r for r in res if r != 'ok')})")
        fol = re.findall(r"(\d+) allocation calls followed one by one, (\d+) not", (cwd / "remarks.txt").read_text())
        rows.append((name, args, verdict, f"{fol[0][0]} / {fol[0][1]}" if fol else "", sz))
        print(f"{name}: {verdict}; sizes {sz}", flush=True)
    print("\n| program | arguments | restarts | device bytes mapped | live | of them as the host's | device bytes stored | checkpoint total | allocation calls followed / not |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for name, args, verdict, fol, sz in rows:
        cols = [str(x) for x in sz] if sz else [""] * 5
        print(f"| {name} | {args} | {verdict} | {' | '.join(cols)} | {fol} |")


if __name__ == "__main__":
    main()
