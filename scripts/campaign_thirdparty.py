#!/usr/bin/env python3
"""campaign_thirdparty.py -- random kill/restart trials on third-party codes.

campaign.py does this for dao's own test programs; this script does it for
codes nobody here wrote, built through their own makefiles with one marker
at the top of their main loop (the markers and make.def of
bench_thirdparty.py and bench_cxx.py). Nothing third-party is in this
repository: point the options at unpacked trees (fetched from github):

  --npb-c DIR     NPB 3.0 OpenMP C (edeiana/NPB3.0-omp-C): bt sp ft mg cg lu
  --npb-f DIR     NPB 3.3 or 3.4 OpenMP Fortran (NPB3.3-OMP, NPB3.4-OMP of
                  mbdevpl/nas-parallel-benchmarks; 3.4 keeps its arrays as
                  allocatables of modules): bt_f sp_f ft_f mg_f cg_f lu_f
  --npb-cpp DIR   GMAP/NPB-CPP's NPB-OMP: bt_cpp cg_cpp ft_cpp mg_cpp
  --lulesh DIR    LLNL/LULESH 2.0 (serial MPI build, OpenMP): lulesh

Per code: the build (`dao cc|fc|c++`, --opt, class --cls), three
uninterrupted runs at each thread count 1-4 (a count whose runs print
different verification lines is nondeterministic without dao, reported and
left out: NPB's reductions at more threads than cores differ in their last
digits), then --trials trials: a random thread count, DAO_ASYNC auto, off
or wait, a checkpoint every second candidate (DAO_EVERY, --every), the
bytes declared dead poisoned at restart (DAO_DEAD=poison), SIGKILL at a
random time of the run (so also while a checkpoint is written), restarts
into the same DAO_DIR with the output appended to one log (killed again
with probability 0.3, at most five kills), and the log's verification lines
(timings left out) compared with the uninterrupted run's. A trial is ok,
wrong (every run ended, the output differs, and ten more uninterrupted
runs at that thread count never print it), crashed (a run we did not kill
failed) or "an output of the program itself" (differs from the first
uninterrupted run's, but a later uninterrupted run printed it too: the
thread count is left out from then on). Failing trials keep their log, stderr and checkpoints under
WORK/<code>/fail<N>. Prints one line per trial and a Markdown table.

Usage: python3 scripts/campaign_thirdparty.py --npb-f NPB3.4-OMP [--only ft_f,mg_f]
       [--opt=-O2] [--cls W] [--trials 10] [--seed 1] [--work DIR]
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cxx as bc  # noqa: E402
import bench_thirdparty as tp  # noqa: E402

DAO = tp.DAO
# lines that change from run to run (bench_thirdparty's, and LULESH's timers)
TIMING = re.compile(tp.TIMING.pattern + r"|Elapsed|FOM|Grind", re.I)


def verification(text):
    return [l for l in text.splitlines() if l.strip() and not TIMING.search(l)]


def build_npb_f34(tree, target, cls):
    """NPB 3.4 Fortran: make.def names FC (3.3: F77), and its makefiles need bash."""
    (tree / "config" / "make.def").write_text(
        f"FC = {DAO} fc\nFLINK = $(FC)\nF_LIB =\nF_INC =\nFFLAGS = {tp.OPT} -fopenmp\nFLINKFLAGS = $(FFLAGS)\n"
        f"CC = {DAO} cc\nCLINK = $(CC)\nC_LIB = -lm\nC_INC =\nCFLAGS = {tp.OPT} -fopenmp\nCLINKFLAGS = $(CFLAGS)\n"
        "UCC = cc\nBINDIR = ../bin\nRAND = randi8\nWTIME = wtime.c\n")
    shutil.rmtree(tree / "bin", ignore_errors=True)
    (tree / "bin").mkdir()
    subprocess.run(["make", "-C", str(tree / target), "clean"], capture_output=True)
    for o in (tree / "common").glob("*.o"):
        o.unlink()
    r = subprocess.run(["make", target.lower(), f"CLASS={cls}", "SHELL=/bin/bash"], cwd=tree, capture_output=True, text=True)
    exe = tree / "bin" / f"{target.lower()}.{cls}.x"
    if r.returncode != 0 or not exe.exists():
        sys.exit(f"build of {target} failed in {tree}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return exe


def codes(a, work):
    """(name, argv) of every selected code, built."""
    only = set(a.only.split(",")) if a.only else None
    out = []
    for suite, src in (("c", a.npb_c), ("f", a.npb_f)):
        if not src:
            continue
        tree = work / f"npb-{suite}"
        if not tree.exists():
            shutil.copytree(src, tree)
        v34 = suite == "f" and (tree / "FT" / "ft_data.f").exists()
        for name, s, target, f, loop, unit in tp.BENCHES:
            if s != suite or (only and name not in only):
                continue
            tp.mark(tree / f, loop, unit, suite)
            exe = build_npb_f34(tree, target, a.cls) if v34 else tp.build(tree, target, a.cls, suite, False)[0]
            keep = work / f"{name}.{a.cls}"
            shutil.copy(exe, keep)
            out.append((name, [str(keep)]))
    if a.npb_cpp:
        tree = work / "npb-cpp"
        if not tree.exists():
            shutil.copytree(a.npb_cpp, tree)
            mk = tree / "config" / "make.def"
            mk.write_text(mk.read_text().replace("CC = g++ -std=c++14", f"CC = {DAO} c++ -std=c++14").replace(" -O3", f" {tp.OPT}").replace(" -mcmodel=medium", ""))
            (tree / "bin").mkdir(exist_ok=True)
        for name, f, loop, _ in bc.NPB_CPP:
            if only and f"{name}_cpp" not in only:
                continue
            if "dao_potential_checkpoint" not in (tree / f).read_text():
                bc.insert_marker(tree / f, loop)
            bc.sh(["make", name, f"CLASS={a.cls}"], cwd=tree)
            out.append((f"{name}_cpp", [str(tree / "bin" / f"{name}.{a.cls}")]))
    if a.lulesh and (not only or "lulesh" in only):
        tree = work / "lulesh"
        if not tree.exists():
            shutil.copytree(a.lulesh, tree)
            bc.insert_marker(tree / "lulesh.cc", r"^\s*while\s*\(\(locDom->time\(\) < locDom->stoptime\(\)\)")
            mk = tree / "Makefile"
            mk.write_text(mk.read_text().replace("-O3", tp.OPT))
        bc.sh(["make", "-j2", f"CXX={DAO} c++ -DUSE_MPI=0"], cwd=tree)
        out.append(("lulesh", [str(tree / "lulesh2.0"), "-s", "20", "-i", "200"]))
    return out


def run(argv, env, cwd, log, kill_at=None):
    """One run appending to `log`: (exit code, killed by us, stderr)."""
    with open(log, "a") as fo, open(cwd / "stderr", "w") as fe:
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=fo, stderr=fe)
        killed = False
        try:
            p.wait(timeout=kill_at if kill_at is not None else 1800)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
            killed = kill_at is not None
    return p.returncode, killed, (cwd / "stderr").read_text(errors="replace")


def references(name, argv, cwd):
    """{threads: (verification lines, seconds)} of the deterministic counts."""
    ref = {}
    for t in (1, 2, 3, 4):
        env = dict(os.environ, OMP_NUM_THREADS=str(t))
        for k in ("DAO_DIR", "DAO_PROFILE", "DAO_SAVE", "DAO_EVERY"):
            env.pop(k, None)
        seen, dt = set(), 0.0
        for _ in range(3):
            log = cwd / "clean.log"
            log.unlink(missing_ok=True)
            t0 = time.time()
            rc, _, err = run(argv, env, cwd, log)
            dt = max(dt, time.time() - t0)
            if rc != 0:
                sys.exit(f"{name}: uninterrupted run at {t} threads failed ({rc}): {err[-500:]}")
            seen.add(tuple(verification(log.read_text(errors="replace"))))
        if len(seen) == 1:
            ref[t] = (list(seen.pop()), dt)
        else:
            print(f"{name}: {len(seen)} different outputs in 3 runs at {t} threads without a checkpoint: left out", flush=True)
    return ref


def also_printed(argv, cwd, t, got, runs=10):
    """Whether the uninterrupted program prints `got` too at `t` threads, in
    up to `runs` more runs: then a differing restart is the program's own
    nondeterminism (two orders of a reduction), not dao's."""
    env = dict(os.environ, OMP_NUM_THREADS=str(t))
    for k in ("DAO_DIR", "DAO_PROFILE", "DAO_SAVE", "DAO_EVERY"):
        env.pop(k, None)
    for _ in range(runs):
        log = cwd / "clean.log"
        log.unlink(missing_ok=True)
        run(argv, env, cwd, log)
        if verification(log.read_text(errors="replace")) == got:
            return True
    return False


def trial(name, argv, cwd, ref, rnd, every, i):
    t = rnd.choice(sorted(ref))
    want, dt = ref[t]
    ck = cwd / "ck"
    shutil.rmtree(ck, ignore_errors=True)
    mode = rnd.choice(["auto", "off", "wait"])
    env = dict(os.environ, OMP_NUM_THREADS=str(t), DAO_DIR=str(ck), DAO_DEAD="poison", DAO_EVERY=str(every), DAO_ASYNC=mode)
    for k in ("DAO_PROFILE", "DAO_SAVE"):
        env.pop(k, None)
    log = cwd / "run.log"
    log.unlink(missing_ok=True)
    kills, at, errs, status = 0, rnd.uniform(0.1, 0.95) * dt, [], None
    while status is None:
        rc, killed, err = run(argv, env, cwd, log, kill_at=at if kills < 5 else None)
        errs.append(err[-600:])
        if killed and (ck / "finished").exists():
            # killed after the run had finished its work (the runtime marks
            # DAO_DIR finished at exit; docs/design.md section 18): nothing
            # to restart, `dao run` would not either
            killed, rc = False, 0
        if killed:
            kills += 1
            at = rnd.uniform(0.1, 0.9) * dt if rnd.random() < 0.3 else None
        elif rc != 0:
            status = f"crashed ({rc})"
        else:
            got = verification(log.read_text(errors="replace"))
            status = "ok" if got == want else "wrong"
            if status == "wrong" and also_printed(argv, cwd, t, got):
                status = "nondeterministic"
                del ref[t]
            elif status == "wrong":
                errs.append(f"first differences: {[(x, y) for x, y in zip(want, got) if x != y][:3]}, lines {len(want)} / {len(got)}")
    print(f"{name} trial {i}: {t} threads, DAO_ASYNC={mode}, {kills} kills: {status}", flush=True)
    if status not in ("ok", "nondeterministic"):
        keep = cwd / f"fail{i}"
        keep.mkdir(exist_ok=True)
        shutil.copy(log, keep / "run.log")
        (keep / "stderr.txt").write_text("\n---\n".join(errs))
        if ck.exists():
            shutil.copytree(ck, keep / "ck", dirs_exist_ok=True)
    return status.split()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npb-c")
    ap.add_argument("--npb-f")
    ap.add_argument("--npb-cpp")
    ap.add_argument("--lulesh")
    ap.add_argument("--only")
    ap.add_argument("--cls", default="W")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--every", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default="/tmp/dao-campaign-thirdparty")
    a = ap.parse_args()
    tp.OPT = a.opt
    trees = {"--npb-c": a.npb_c, "--npb-f": a.npb_f, "--npb-cpp": a.npb_cpp, "--lulesh": a.lulesh}
    if not any(trees.values()):
        sys.exit("no code to try: give at least one of --npb-c, --npb-f, --npb-cpp, --lulesh (a fetched tree)")
    for opt, d in trees.items():
        if d and not Path(d).is_dir():
            sys.exit(f"{opt} {d}: not a directory (an unpacked tree of the code is expected)")
    known = {b[0] for b in tp.BENCHES} | {f"{n}_cpp" for n, *_ in bc.NPB_CPP} | {"lulesh"}
    unknown = set(a.only.split(",")) - known if a.only else set()
    if unknown:
        sys.exit(f"--only {','.join(sorted(unknown))}: not a code this script knows ({', '.join(sorted(known))})")
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, argv in codes(a, work):
        cwd = work / name
        cwd.mkdir(exist_ok=True)
        ref = references(name, argv, cwd)
        rnd = random.Random(f"{a.seed}-{name}")
        tried = sorted(ref)
        counts = {"ok": 0, "wrong": 0, "crashed": 0, "nondeterministic": 0}
        for i in range(a.trials):
            if not ref:
                break
            counts[trial(name, argv, cwd, ref, rnd, a.every, i)] += 1
        left = [t for t in (1, 2, 3, 4) if t not in ref]
        rows.append((name, tried, left, counts))
    print(f"\n{a.opt}, class {a.cls}, DAO_EVERY={a.every}, seed {a.seed}\n")
    print("| code | threads tried | left out (nondeterministic without dao) | ok | wrong | crashed | an output of the program itself |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, ts, left, c in rows:
        print(f"| {name} | {','.join(map(str, ts))} | {','.join(map(str, left)) or '-'} | {c['ok']} | {c['wrong']} | {c['crashed']} | {c['nondeterministic']} |")
    sys.exit(1 if any(c["wrong"] or c["crashed"] for *_, c in rows) else 0)


if __name__ == "__main__":
    main()
