#!/usr/bin/env python3
"""Device liveness (issue #35): per offload program, the device bytes
mapped and saved at a checkpoint, and which mapped ranges were left out.

Each program is built with `dao cc -O2 -fopenmp
-fopenmp-targets=x86_64-pc-linux-gnu` (LLVM 19's host offload device) and
run with OMP_NUM_THREADS=2, a checkpoint every --every candidates and a
kill after the second (DAO_CRASH_AFTER=2); `dao inspect --json` of both
checkpoints gives the device ranges (`devices[].ranges[]`: name, size,
saved, from_host). A live device copy equal to the host's bytes the
checkpoint saves is stored once, as the host's (format 10): the column
`of them as the host's`, and `stored` (the device bytes the checkpoint holds of its own). Jia's six programs (test-programs/offload/jia/) have two markers
per step, so with an odd --every the two checkpoints are at different
markers.

Usage: python3 scripts/bench_device_saved.py [--work DIR] [--every 5] [--only swim,heap_device]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROGS = {
    "heap_device": ("offload/heap_device.c", "120"),
    "inputs": ("offload/inputs.c", "120"),
    "maps": ("offload/maps.c", "120"),
    "dead_device": ("offload/dead_device.c", "120"),
    "swim": ("offload/jia/swim.c", "200"),
    "mgrid": ("offload/jia/mgrid.c", "90"),
    "fft2d": ("offload/jia/fft2d.c", "90"),
    "backprop": ("offload/jia/backprop.c", "600"),
    "bfs": ("offload/jia/bfs.c", "72"),
    "gaussian": ("offload/jia/gaussian.c", "30"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/dao-device-saved")
    ap.add_argument("--every", default="5")
    ap.add_argument("--only", default="")
    ap.add_argument("--dao", default=str(REPO / "target/release/dao"))
    a = ap.parse_args()
    only = [x for x in a.only.split(",") if x]
    env0 = dict(os.environ, OMP_NUM_THREADS="2")
    print("| program | checkpoint | device bytes mapped | live (saved) | of them as the host's | stored | left out (dead) | as the host's |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for p, (src, steps) in PROGS.items():
        if only and p not in only:
            continue
        wd = Path(a.work) / p
        shutil.rmtree(wd, ignore_errors=True)
        wd.mkdir(parents=True)
        exe = wd / p
        r = subprocess.run([a.dao, "cc", "-O2", "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", str(REPO / "test-programs" / src), "-o", str(exe), "-lm"], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"build of {p} failed:\n{r.stderr[-2000:]}")
        env = dict(env0, DAO_DIR=str(wd / "ck"), DAO_EVERY=a.every, DAO_CRASH_AFTER="2")
        subprocess.run([str(exe), steps], env=env, capture_output=True, cwd=wd)
        for st in ("store.000001.dst", "store.000002.dst"):
            j = subprocess.run([a.dao, "inspect", "--json", str(wd / "ck" / st)], capture_output=True, text=True)
            if j.returncode:
                sys.exit(f"{p}: dao inspect {st}: {j.stderr[-500:]}")
            d = json.loads(j.stdout)
            ranges = [r for dev in d["devices"] for r in dev["ranges"]]
            mapped = sum(r["size"] for r in ranges)
            saved = sum(r["size"] for r in ranges if r["saved"])
            host = sum(r["size"] for r in ranges if r.get("from_host"))
            dead = ", ".join(f"`{r['name']}`" for r in ranges if not r["saved"])
            shared = ", ".join(f"`{r['name']}`" for r in ranges if r.get("from_host"))
            print(f"| {p} | {st} | {mapped} | {saved} | {host} | {saved - host} | {dead} | {shared} |", flush=True)


if __name__ == "__main__":
    main()
