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

With `--pass-time`, instead: the pass's own time, the `DaoPass` line of
clang's `-ftime-report` (median and minimum of the runs, interleaved), for
this plugin and `--other`, beside the minimum of the compile without any
plugin: the pass's share without the noise of the whole compile.
"""
import argparse
import re
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
    ap.add_argument("--pass-time", action="store_true", help="the pass's own time (-ftime-report), not whole compiles")
    a = ap.parse_args()
    builds = [("this pass", os.path.join(ROOT, "target/release/libdao.so")), ("no pass", None)]
    if a.other:
        builds.insert(1, ("other pass", a.other))
    flags = ["-I", os.path.join(ROOT, "runtime/include"), "-gline-tables-only", "-fno-discard-value-names", "-O3", "-fopenmp"]
    for d in a.inc:
        flags += ["-I", d]
    if a.pass_time:
        return pass_time(a, builds, flags)
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


# the wall-clock column of -ftime-report's line for the dao pass
DAO_LINE = re.compile(r"^\s*(?:\S+ \(\s*[\d.]+%\)\s+)*(\S+) \(\s*[\d.]+%\)\s+\{anonymous\}::DaoPass\s*$", re.M)


def pass_time(a, builds, flags):
    print("| file | no pass (min s) | " + " | ".join(f"{n}: own time (median, min ms) | share" for n, p in builds if p) + " |")
    print("|---|---:|" + "---:|---:|" * (len(builds) - 1))
    for f in a.files:
        own = {n: [] for n, p in builds if p}
        bare = []
        for _ in range(a.runs):
            for n, plugin in builds:
                cmd = ["clang-19"] + ([f"-fpass-plugin={plugin}", "-ftime-report"] if plugin else []) + flags + ["-c", os.path.abspath(f), "-o", "/dev/null"]
                t = time.perf_counter()
                r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=os.path.dirname(os.path.abspath(f)))
                if r.returncode != 0:
                    sys.exit(f"{' '.join(cmd)}: exit {r.returncode}")
                if plugin:
                    m = DAO_LINE.search(r.stderr)
                    if m:
                        own[n].append(1e3 * float(m.group(1)))
                else:
                    bare.append(time.perf_counter() - t)
        base = min(bare)
        cells = []
        for n in own:
            v = own[n] or [float("nan")]
            cells.append(f"{statistics.median(v):.0f}, {min(v):.0f} | {100 * statistics.median(v) / 1e3 / base:.0f}%")
        print(f"| `{os.path.basename(f)}` | {base:.2f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
