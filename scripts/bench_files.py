#!/usr/bin/env python3
"""bench_files.py -- the cost of open files at checkpoints (issue #31).

Builds bench/open_files.c with `dao cc -O2` and runs it with 0, 10 and
1000 files open for writing (100 steps, a checkpoint every 10th, written
in the program: DAO_ASYNC=off, so the pause is the whole checkpoint),
side by side in one run: without DAO_DIR (no checkpoints), and with
checkpoints. Prints, per file count, the whole-process wall time of both
(best of 3), the checkpoint's collection time (which includes flushing
stdio and recording every open and written file: position, size, and up
to 1 MiB content) and write time from DAO_STATS (median over the run's
checkpoints). Usage: python3 scripts/bench_files.py [--markdown]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAO = os.path.join(REPO, "target", "release", "dao")


def run(exe, args, env):
    t0 = time.monotonic()
    r = subprocess.run([exe] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_files: {exe} {args} failed: {r.stderr}")
    return time.monotonic() - t0


def main():
    md = "--markdown" in sys.argv
    work = tempfile.mkdtemp(prefix="dao-bench-files-")
    try:
        exe = os.path.join(work, "open_files")
        subprocess.run([DAO, "cc", "-O2", os.path.join(REPO, "bench/open_files.c"), "-o", exe], check=True)
        rows = []
        for n in (0, 10, 1000):
            data = os.path.join(work, f"data{n}")
            os.makedirs(data, exist_ok=True)
            args = [data, str(n), "100", "2000000"]
            base = dict(os.environ)
            for k in list(base):
                if k.startswith("DAO_"):
                    del base[k]
            plain = min(run(exe, args, base) for _ in range(3))
            walls, collect, write = [], [], []
            for rep in range(3):
                ck = os.path.join(work, f"ck{n}.{rep}")
                st = os.path.join(work, f"st{n}.{rep}")
                env = dict(base, DAO_DIR=ck, DAO_EVERY="10", DAO_ASYNC="off", DAO_STATS=st)
                walls.append(run(exe, args, env))
                for l in open(st):
                    e = json.loads(l)
                    if e.get("event") == "checkpoint":
                        collect.append(e["collect_s"])
                        write.append(e.get("write_s", 0.0))
                shutil.rmtree(ck, ignore_errors=True)
            rows.append((n, plain, min(walls), statistics.median(collect), statistics.median(write)))
        head = ["open files", "wall, no checkpoints (s)", "wall, 10 checkpoints (s)", "collection per checkpoint (ms)", "write per checkpoint (ms)"]
        if md:
            print("| " + " | ".join(head) + " |")
            print("|" + "---:|" * len(head))
        else:
            print("  ".join(head))
        for n, plain, wall, c, w in rows:
            cells = [str(n), f"{plain:.3f}", f"{wall:.3f}", f"{c * 1e3:.2f}", f"{w * 1e3:.2f}"]
            print(("| " + " | ".join(cells) + " |") if md else "  ".join(cells))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
