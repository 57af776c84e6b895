#!/usr/bin/env python3
"""Coordinated checkpoints of MPI + OpenMP programs (issue #17), side by
side in one run.

The program: the NPB CG port to MPI + OpenMP (npb-ports/cg-mpi), class A
by default, built with `dao mpicc -O2` (instrumented) and with
`--dao-no-pass` (clean). For each rank count (--ranks, default 1,2,4;
OMP_NUM_THREADS = max(1, --cores / ranks) per rank, OMP_WAIT_POLICY=
passive), configurations run interleaved rep by rep:

- `clean`: the clean build (no dao at all);
- `none`: the instrumented build without DAO_DIR;
- `looks`: DAO_DIR set, DAO_INTERVAL=3600 (no checkpoint: dao's MPI
  initialisation, the look collective about every 50 ms, the tracking of
  the program's traffic);
- `ckpt`: a checkpoint every fifth of the run's candidates (DAO_EVERY),
  with partner copies (the default: sent while the program goes on);
- `ckpt/partner-sync`: the same with DAO_PARTNER=sync (the program waits
  for the copy to be sent, received and written);
- `ckpt/nopartner`: the same with DAO_PARTNER=off;
- `ckpt/flush`: `ckpt` with the third level at every checkpoint
  (DAO_FLUSH_DIR in the work directory, DAO_FLUSH_EVERY=1: the worst
  case; on one machine the "shared" directory is the same disk);
- `restart`: a run killed after its third checkpoint (DAO_CRASH_AFTER=3 on
  the last rank), then the restart, timed whole and by its restore
  (`restore_s` of the DAO_STATS restart events, the largest rank's).

Per configuration, the median over --reps of: the whole mpirun's wall
time, CG's timed section (stderr "in T s"), and from DAO_STATS per
checkpoint (largest rank): collection, write (temp file + fsync), the
commit agreement (one MPI_Allgather), the partner copy (send to the
holder, receive and write the owner's), the look collectives since the
previous checkpoint, and the bytes per rank.

The naive baseline (one rank writing all data): every rank's newest
checkpoint file concatenated and written with fsync by one process, timed
here (the data's gathering over MPI, which that scheme would also need,
not included: a lower bound of the naive scheme's write).

Every run must verify ("Verification: SUCCESSFUL").
Usage: python3 scripts/bench_mpi.py [--class A] [--ranks 1,2,4] [--reps 3]
       [--cores 2] [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
SRCS = [ROOT / "npb-ports/cg-mpi/cg_mpi.c", ROOT / "npb-ports/common/npb_common.c"]


def build(work, clean):
    exe = work / ("cg-clean" if clean else "cg-dao")
    cmd = [str(DAO), "mpicc", "-O2", "-fopenmp"] + (["--dao-no-pass"] if clean else []) + ["-I", str(ROOT / "npb-ports/common")] + [str(s) for s in SRCS] + ["-o", str(exe), "-lm"]
    subprocess.run(cmd, check=True, cwd=work)
    return exe


def mpirun(np_, threads, exe, cls, env):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "--mca", "pml", "ob1", "-np", str(np_)]
    for k, v in env.items():
        cmd += ["-x", f"{k}={v}"]
    cmd += [str(exe), cls]
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    return p, time.perf_counter() - t


def timed(stderr):
    m = re.search(r"in ([0-9.]+) s", stderr)
    return float(m.group(1)) if m else float("nan")


def stats(path):
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def per_checkpoint(events):
    """Per checkpoint (seq), the largest rank's time of each phase; the
    mean bytes per rank."""
    by = {}
    for e in events:
        if e.get("event") == "checkpoint" and "mpi" in e:
            by.setdefault(e["seq"], []).append(e)
    rows = []
    for seq, es in sorted(by.items()):
        rows.append({
            "collect_s": max(x["collect_s"] for x in es),
            "write_s": max(x["write_s"] for x in es),
            "agree_s": max(x["mpi"]["agree_s"] for x in es),
            "partner_s": max(x["mpi"]["partner_s"] + x["mpi"].get("partner_wait_s", 0.0) for x in es),
            "look_s": max(x["mpi"]["look_s"] for x in es),
            "bytes": statistics.mean(x["file_bytes"] for x in es),
            "pause_s": max(x["collect_s"] + x["write_s"] + x["mpi"]["agree_s"] + x["mpi"]["partner_s"] + x["mpi"].get("partner_wait_s", 0.0) for x in es),
        })
    return rows


def naive_write(ckdir, nranks):
    """One process writes every rank's newest checkpoint, concatenated, with fsync."""
    blobs = []
    for r in range(nranks):
        d = ckdir / f"rank.{r:04}"
        files = sorted(d.glob("ckpt.*.dao"))
        if files:
            blobs.append(files[-1].read_bytes())
    out = ckdir / "naive.bin"
    t = time.perf_counter()
    with open(out, "wb") as f:
        for b in blobs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())
    dt = time.perf_counter() - t
    out.unlink()
    return dt, sum(len(b) for b in blobs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--class", dest="cls", default="A")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dao-bench-mpi-"))
    clean, inst = build(work, True), build(work, False)
    candidates = 15 + 15 * 25  # markers: the outer loop and each CG step
    every = str(candidates // 5)
    results = {}
    for np_ in [int(x) for x in a.ranks.split(",")]:
        threads = max(1, a.cores // np_)
        modes = {
            "clean": (clean, None),
            "none": (inst, None),
            "looks": (inst, {"DAO_INTERVAL": "3600"}),
            "ckpt": (inst, {"DAO_EVERY": every}),
            "ckpt/partner-sync": (inst, {"DAO_EVERY": every, "DAO_PARTNER": "sync"}),
            "ckpt/nopartner": (inst, {"DAO_EVERY": every, "DAO_PARTNER": "off"}),
            "ckpt/flush": (inst, {"DAO_EVERY": every, "DAO_FLUSH_EVERY": "1"}),
            "restart": (inst, {"DAO_EVERY": every}),
        }
        acc = {m: {"wall": [], "timed": [], "ckpts": [], "restore": [], "naive": [], "flush": []} for m in modes}
        for rep in range(a.reps):
            for m, (exe, env) in modes.items():
                ck = work / f"ck-{np_}-{m.replace('/', '-')}-{rep}"
                st = work / f"st-{np_}-{m.replace('/', '-')}-{rep}.json"
                e = {}
                if env is not None:
                    e = dict(env, DAO_DIR=str(ck), DAO_STATS=str(st))
                if "DAO_FLUSH_EVERY" in e:
                    e["DAO_FLUSH_DIR"] = str(ck) + "-flush"
                if m == "restart":
                    first, _ = mpirun(np_, threads, exe, a.cls, dict(e, DAO_CRASH_AFTER="3", DAO_CRASH_RANK=str(np_ - 1)))
                    if first.returncode == 0:
                        sys.exit(f"{np_} ranks: the run to be restarted was not killed")
                    st.unlink(missing_ok=True)
                p, wall = mpirun(np_, threads, exe, a.cls, e)
                if p.returncode != 0 or "Verification: SUCCESSFUL" not in p.stdout:
                    sys.exit(f"{np_} ranks, {m}: failed ({p.returncode})\n{p.stdout}\n{p.stderr}")
                acc[m]["wall"].append(wall)
                acc[m]["timed"].append(timed(p.stderr))
                ev = stats(st)
                acc[m]["ckpts"] += per_checkpoint(ev)
                rs = [x["restore_s"] for x in ev if x.get("event") == "restart"]
                if rs:
                    acc[m]["restore"].append(max(rs))
                # the flush thread's time per flush (largest rank)
                fl = {}
                for x in ev:
                    if x.get("event") == "flush":
                        fl[x["seq"]] = max(fl.get(x["seq"], 0.0), x["flush_s"])
                acc[m]["flush"] += list(fl.values())
                if m == "ckpt":
                    acc[m]["naive"].append(naive_write(ck, np_))
                subprocess.run(["rm", "-rf", str(ck), str(ck) + "-flush"])
        results[np_] = {"threads": threads, "modes": acc}
        base = statistics.median(acc["clean"]["wall"])
        print(f"\n### {np_} rank(s) x {threads} thread(s), CG class {a.cls}, {a.reps} reps (medians)\n")
        print("| configuration | wall s | vs clean | timed s | checkpoints | pause/ckpt ms | collect ms | write ms | agree ms | partner ms | looks ms | MB/rank | restore ms |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for m in modes:
            r = acc[m]
            w = statistics.median(r["wall"])
            c = r["ckpts"]
            med = lambda k: statistics.median(x[k] for x in c) * 1e3 if c else float("nan")
            n = len(c) / a.reps
            mb = statistics.median(x["bytes"] for x in c) / 1e6 if c else float("nan")
            rest = statistics.median(r["restore"]) * 1e3 if r["restore"] else float("nan")
            # a restarted CG's timer counts from the first run's start
            tm = "-" if m == "restart" else f"{statistics.median(r['timed']):.3f}"
            print(f"| {m} | {w:.3f} | {100 * (w / base - 1):+.1f}% | {tm} | {n:.0f} | {med('pause_s'):.1f} | {med('collect_s'):.1f} | {med('write_s'):.1f} | {med('agree_s'):.2f} | {med('partner_s'):.1f} | {med('look_s'):.2f} | {mb:.2f} | {rest:.1f} |")
        fl = acc["ckpt/flush"]["flush"]
        if fl:
            print(f"\nckpt/flush: {len(fl) / a.reps:.0f} flushes per run, {statistics.median(fl) * 1e3:.1f} ms each on the dao-flush thread (median, largest rank)")
        nv = acc["ckpt"]["naive"]
        if nv:
            t = statistics.median(x[0] for x in nv) * 1e3
            b = statistics.median(x[1] for x in nv) / 1e6
            print(f"\nnaive baseline (one process writes all {np_} ranks' newest checkpoints, {b:.2f} MB, with fsync): {t:.1f} ms per checkpoint")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
