#!/usr/bin/env python3
"""The checkpoint mode on a busy machine (issue #36), side by side in one run.

Third-party NPB 3.0 OpenMP C MG and FT (github edeiana/NPB3.0-omp-C;
nothing third-party is in this repository: point --npb-c at the unpacked
tree), built through their own makefiles at class A with one marker at the
top of the main loop (bench_thirdparty.py's `mark` and make.def), run at
every --threads count with one checkpoint at candidate k = N/2 + 1
(`DAO_EVERY=k`; N from a profiling run), interleaved rep by rep:

- `none`: the instrumented program without DAO_DIR (no checkpoint);
- `default`: nothing set (`DAO_ASYNC=auto`; its DAO_STATS `async.why`
  says what it chose and why);
- `in-program`: `DAO_ASYNC=off` (the program writes, then goes on);
- `background`: `DAO_ASYNC=wait` (always a forked writer);
- `background (buffered)`: `DAO_ASYNC=wait DAO_DIRECT_IO=off` (the forked
  writer through the page cache, as before issue #36);
- `background (no release)`: `DAO_ASYNC=wait DAO_WRITER_RELEASE=off` (the
  forked writer holds every page of the snapshot until it exits, as before
  it gave each back once written);
- `background (written only)`: `DAO_ASYNC=wait DAO_WRITER_RELEASE=written`
  (the writer gives back what it has written, but not first the memory
  the checkpoint does not hold, as before the dead pages were given back);
- `in-program (O_DIRECT)`: `DAO_ASYNC=off DAO_DIRECT_IO=on`;
- `staging copy`: `DAO_ASYNC=wait DAO_SNAPSHOT=copy` (the engine copies the live bytes into its staging arena, a thread of the program writes them);
- `background (heap scan in the program)`: `DAO_ASYNC=wait
  DAO_HEAP_SCAN=program` (the program collects the heap's part of the
  checkpoint before it forks, as before 2026-12-02; `background` has the
  forked writer do it on its snapshot);
- `raw write + fsync`: the in-program run's checkpoint file, its bytes
  read back into memory, written by this script in 4 MiB `os.write`s into
  the same directory, then `fsync`: the disk's floor for one in-program
  write of those bytes. (Until 2026-12-02 it wrote as many random bytes:
  on this VM's disk 465 MB of random bytes took 1.9-2.6 s, MG.A's own
  checkpoint file, whose grids hold many zeros, 1.5-1.7 s.)

Per configuration, the median over --reps of the benchmark's timed section
(" Time in seconds": its main loop, so the checkpoint's pause and the
program's slowdown while a writer runs; the issue's measure) and of the
whole process's wall time (also the wait at exit for a writer still
running), each with the checkpoint's cost (minus the same rep's `none`) and
that cost against the in-program write's; the in-program write time
(DAO_STATS `write_s` of the in-program runs) against the raw write of the
same bytes, and the pause (DAO_STATS `background.pause_s` of a forked
writer; `store.pause_s` of the staging copy: collection plus copy;
collection plus write in place). Every run must verify. Each rep
runs the configurations in another order (`none` first, the others
rotated; `--no-rotate`: the same order every rep): a run pays for what the
one before it left (its checkpoint's writeback and deletion), which in a
fixed order lands on the same configuration every rep.

Goals (issue #36): with every core busy (threads = cores) the default costs
at most 1.05 x the in-program write; with a core free, at most half; the
in-program write reaches 90% of the raw write's speed.

Usage: python3 scripts/bench_busy.py --npb-c DIR [--threads 2,1] [--reps 5]
       [--only mg,ft] [--class A] [--json out.json]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_background as bb  # noqa: E402
import bench_thirdparty as tp  # noqa: E402

CONFIGS = [
    ("none", None),
    ("default", {}),
    ("in-program", {"DAO_ASYNC": "off"}),
    ("background", {"DAO_ASYNC": "wait"}),
    ("background (buffered)", {"DAO_ASYNC": "wait", "DAO_DIRECT_IO": "off"}),
    ("background (no release)", {"DAO_ASYNC": "wait", "DAO_WRITER_RELEASE": "off"}),
    ("background (heap scan in the program)", {"DAO_ASYNC": "wait", "DAO_HEAP_SCAN": "program"}),
    ("background (written only)", {"DAO_ASYNC": "wait", "DAO_WRITER_RELEASE": "written"}),
    ("in-program (O_DIRECT)", {"DAO_ASYNC": "off", "DAO_DIRECT_IO": "on"}),
    ("staging copy", {"DAO_ASYNC": "wait", "DAO_SNAPSHOT": "copy"}),
]


def clean_env(threads):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e["OMP_NUM_THREADS"] = str(threads)
    return e


def run(exe, threads, extra, wd, keep_file=False):
    """Wall time, the benchmark's own time, the checkpoint events (and, with
    keep_file, the bytes of the largest file the run left in its DAO_DIR:
    the checkpoint file, for the raw write)."""
    stats = wd / "stats.json"
    ck = wd / "ck"
    shutil.rmtree(ck, ignore_errors=True)
    stats.unlink(missing_ok=True)
    env = {}
    if extra is not None:
        env = {**extra, "DAO_DIR": str(ck), "DAO_STATS": str(stats)}
    # the page cache of the previous run's files is written back first
    os.sync()
    wall, timer, _ = bb.run(exe, threads, env, wd)
    evs = bb.stats(stats)
    kept = None
    if keep_file:
        files = sorted((f for f in ck.rglob("*") if f.is_file()), key=lambda f: f.stat().st_size)
        kept = files[-1].read_bytes() if files else None
    shutil.rmtree(ck, ignore_errors=True)
    return (wall, timer, evs, kept) if keep_file else (wall, timer, evs)


def raw_write(data, wd):
    """Seconds to write `data` (the in-program run's checkpoint file, byte for
    byte: a disk or a virtual disk may write zeros faster than other bytes,
    and NPB MG's grids hold many) in 4 MiB writes and fsync them (one file in
    wd)."""
    p = wd / "raw.bin"
    os.sync()
    view = memoryview(data)
    t0 = time.perf_counter()
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    off = 0
    while off < len(view):
        off += os.write(fd, view[off: off + (4 << 20)])
    os.fsync(fd)
    os.close(fd)
    dt = time.perf_counter() - t0
    p.unlink()
    return dt


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npb-c", required=True, help="an unpacked NPB 3.0 OpenMP C tree")
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="mg,ft")
    ap.add_argument("--class", dest="cls", default="A")
    ap.add_argument("--work", default="/tmp/dao-bench-busy")
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-rotate", dest="rotate", action="store_false", help="run the configurations in the same order every rep (the order before 2026-12-02)")
    ap.add_argument("--configs", default=None, help="comma-separated names of the configurations to run (none, default and in-program always run)")
    a = ap.parse_args()
    global CONFIGS
    if a.configs:
        want = set(a.configs.split(",")) | {"none", "default", "in-program"}
        CONFIGS = [c for c in CONFIGS if c[0] in want]
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree"
    if not tree.exists():
        shutil.copytree(a.npb_c, tree, symlinks=True)
    names = a.only.split(",")
    exes = {}
    for name, suite, target, f, loop_re, unit_re in tp.BENCHES:
        if name in names and suite == "c":
            tp.mark(tree / f, loop_re, unit_re, "c")
            exe, _, _ = tp.build(tree, target, a.cls, "c", False)
            keep = work / exe.name
            shutil.copy2(exe, keep)
            exes[name] = keep
    cores = len(os.sched_getaffinity(0))
    out = {"cores": cores, "class": a.cls, "rows": []}
    print(f"cores: {cores}; class {a.cls}; median of {a.reps} interleaved reps; one checkpoint at candidate N/2+1\n")
    print("cost: the time more than `none` in the same rep, of the benchmark's timed section (its main loop: the")
    print("checkpoint's pause and the program's slowdown while a writer runs) and of the whole process (wall: also")
    print("the exit's wait for a writer still running)\n")
    print("| code | threads | config | timer s | cost s | cost / in-program | wall s | wall cost s | wall cost / in-program | write s | pause s | chose |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, exe in exes.items():
        for threads in [int(t) for t in a.threads.split(",")]:
            wd = work / f"{name}-t{threads}"
            wd.mkdir(exist_ok=True)
            prof = wd / "profile.json"
            e = clean_env(threads)
            e["DAO_PROFILE"] = str(prof)
            subprocess.run([str(exe)], env=e, cwd=wd, capture_output=True, check=True)
            n = len(json.loads(prof.read_text())["instances"])
            every = {"DAO_EVERY": str(n // 2 + 1)}
            res = {c: {"wall": [], "cost": [], "timer": [], "tcost": [], "write": [], "bytes": [], "why": [], "pause": []} for c, _ in CONFIGS}
            res["raw write + fsync"] = {"wall": [], "cost": [], "timer": [], "tcost": [], "write": [], "bytes": [], "why": [], "pause": []}
            for rep in range(a.reps):
                base = tbase = None
                # each rep in another order (a rotation of the list): a run
                # pays for what the run before it left (its checkpoint
                # file's writeback and deletion, a warm or cold page cache),
                # which in a fixed order biases the same configuration every
                # rep; `none` always first, as the rep's base
                rest = CONFIGS[1:]
                k = rep % len(rest)
                order = [CONFIGS[0], *rest[k:], *rest[:k]] if a.rotate else CONFIGS
                kept = None
                for c, extra in order:
                    env = None if extra is None else {**every, **extra}
                    if c == "in-program":
                        wall, timer, evs, kept = run(exe, threads, env, wd, keep_file=True)
                    else:
                        wall, timer, evs = run(exe, threads, env, wd)
                    if extra is not None and len(evs) != 1:
                        sys.exit(f"{name} t={threads} {c}: {len(evs)} checkpoints, expected 1")
                    r = res[c]
                    r["wall"].append(wall)
                    r["timer"].append(timer)
                    if c == "none":
                        base, tbase = wall, timer
                    r["cost"].append(wall - base)
                    r["tcost"].append(timer - tbase)
                    if evs:
                        ev = evs[0]
                        r["write"].append(ev.get("write_s", float("nan")))
                        # what the program stood still for: the fork's pause, the
                        # staging copy's (collection, copy), or the whole write in place
                        bg = ev.get("background")
                        st = ev.get("store") or {}
                        if bg:
                            r["pause"].append(bg["pause_s"])
                        elif st.get("snapshot") == "copy":
                            r["pause"].append(st.get("pause_s", 0.0))
                        else:
                            r["pause"].append(ev.get("collect_s", 0.0) + ev.get("write_s", 0.0))
                        r["bytes"].append(ev.get("file_bytes", 0))
                        r["why"].append(ev.get("async", {}).get("why", "") if c == "default" else "")
                        if c == "default":
                            r["why"][-1] = ("background: " if ev.get("async", {}).get("background") else "in place: ") + r["why"][-1]
                nb = res["in-program"]["bytes"][-1]
                if kept is None or len(kept) != nb:
                    sys.exit(f"{name} t={threads}: the in-program checkpoint file was not found or is not {nb} bytes")
                dt = raw_write(kept, wd)
                kept = None
                res["raw write + fsync"]["write"].append(dt)
                res["raw write + fsync"]["bytes"].append(nb)
            ref = med(res["in-program"]["cost"])
            tref = med(res["in-program"]["tcost"])
            for c in [*(x for x, _ in CONFIGS), "raw write + fsync"]:
                r = res[c]
                row = {
                    "code": name, "threads": threads, "config": c,
                    "wall_s": med(r["wall"]), "cost_s": med(r["cost"]),
                    "timer_s": med(r["timer"]), "timer_cost_s": med(r["tcost"]),
                    "write_s": med(r["write"]), "pause_s": med(r["pause"]), "bytes": int(med(r["bytes"])) if r["bytes"] else 0,
                    "chose": sorted(set(r["why"])) if c == "default" else [],
                    "raw": r,
                }
                out["rows"].append(row)
                sel = c not in ("none", "raw write + fsync")
                ratio = row["cost_s"] / ref if ref > 0 and sel else float("nan")
                tratio = row["timer_cost_s"] / tref if tref > 0 and sel else float("nan")
                row["timer_ratio"], row["wall_ratio"] = tratio, ratio
                # the choices, counted, and the first rep's reason
                nbg = sum(1 for w in r["why"] if w.startswith("background"))
                chose = f"{nbg} of {len(r['why'])} in the background; rep 1: {r['why'][0]}" if c == "default" and r["why"] else ""
                f = lambda x: "" if x != x else f"{x:.3f}"  # noqa: E731
                if c == "raw write + fsync":
                    print(f"| {name}.{a.cls} | {threads} | {c} ({row['bytes']} B) | | | | | | | {f(row['write_s'])} | | |")
                else:
                    print(f"| {name}.{a.cls} | {threads} | {c} | {f(row['timer_s'])} | {f(row['timer_cost_s'])} | {f(tratio)} | {f(row['wall_s'])} | {f(row['cost_s'])} | {f(ratio)} | {f(row['write_s'])} | {f(row['pause_s'])} | {chose} |")
            w_in, w_raw = med(res["in-program"]["write"]), med(res["raw write + fsync"]["write"])
            print(f"| {name}.{a.cls} | {threads} | in-program write speed / raw write + fsync: **{w_raw / w_in:.2f}** | | | | | | | | | |")
            out["rows"].append({"code": name, "threads": threads, "write_vs_raw": w_raw / w_in})
            sys.stdout.flush()
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
