#!/usr/bin/env python3
"""Compile time the dao pass adds (issue #33: under 10% of `dao cc`).

    python3 scripts/bench_compile_time.py [--runs 5] [--other PATH/libdao.so] \
        [-I DIR ...] FILE.c ...

Compiles each file at -O3 with the flags `dao cc` gives clang
(`-gline-tables-only -fno-discard-value-names -fopenmp`), with this
checkout's plugin (`target/release/libdao.so`), without any plugin, and
with `--other` (another build of the plugin, to compare two versions),
the builds interleaved run by run so that the machine's drift hits all
alike. Prints per file the minimum and median seconds of each build and
the pass's share added over no plugin (on the minima: the least noisy
estimate of the work done).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--other", help="another libdao.so to compare with")
    ap.add_argument("-I", dest="inc", action="append", default=[])
    a = ap.parse_args()
    builds = [("this pass", os.path.join(ROOT, "target/release/libdao.so")), ("no pass", None)]
    if a.other:
        builds.insert(1, ("other pass", a.other))
    flags = ["-I", os.path.join(ROOT, "runtime/include"), "-gline-tables-only", "-fno-discard-value-names", "-O3", "-fopenmp"]
    for d in a.inc:
        flags += ["-I", d]
    print("| file | " + " | ".join(f"{n} (min, median s)" for n, _ in builds) + " | added by this pass |" + (" added by the other |" if a.other else ""))
    print("|---|" + "---|" * len(builds) + "---:|" + ("---:|" if a.other else ""))
    for f in a.files:
        times = {n: [] for n, _ in builds}
        for _ in range(a.runs):
            for n, plugin in builds:
                cmd = ["clang-19"] + ([f"-fpass-plugin={plugin}"] if plugin else []) + flags + ["-c", os.path.abspath(f), "-o", "/dev/null"]
                t = time.perf_counter()
                r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(os.path.abspath(f)))
                times[n].append(time.perf_counter() - t)
                if r.returncode != 0:
                    sys.exit(f"{' '.join(cmd)}: exit {r.returncode}")
        base = min(times["no pass"])
        cells = [f"{min(times[n]):.2f}, {statistics.median(times[n]):.2f}" for n, _ in builds]
        added = f"+{100 * (min(times['this pass']) / base - 1):.0f}%"
        other = f" +{100 * (min(times['other pass']) / base - 1):.0f}% |" if a.other else ""
        print(f"| `{os.path.basename(f)}` | " + " | ".join(cells) + f" | {added} |" + other)


if __name__ == "__main__":
    main()
