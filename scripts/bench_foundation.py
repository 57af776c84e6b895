#!/usr/bin/env python3
"""Foundation benchmark (issue: Foundation), side by side in one run.

1. Failure-free overhead: clean build (no pass, markers compiled out, default
   PIE) vs instrumented build with no checkpoint taken, (a) DAO_DIR unset,
   (b) DAO_DIR set with an interval policy that never fires (the candidate
   check runs at every marker). Interleaved repetitions, median wall time.
2. Per candidate: live bytes saved (DAO mode) vs the save-everything
   baseline (DAO_SAVE=all: every global, every frame's locals, every heap
   block) vs the process's resident memory at that moment (what a
   system-level checkpointer would write at least).
3. Checkpoint write and restart read time vs plain write+fsync / read of
   the same number of bytes in the same directory, measured in the same run.

With --instructions, also counts executed instructions of the clean and the
instrumented build under callgrind (valgrind): reproducible whatever the
machine's load (OpenMP programs with OMP_NUM_THREADS=1 there, so that spin
waiting does not count).

Usage: python3 scripts/bench_foundation.py [--reps N] [--quick] [--instructions]
Needs `cargo build --release` first (libdao.so, libdao_rt.a). Writes
build/bench-results/foundation.json (git-ignored) and prints markdown tables for docs/results.md.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "target" / "release"
INC = REPO / "runtime" / "include"
OUT = REPO / "build" / "bench"
WRAP = "-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=memalign,--wrap=posix_memalign"
RT = [str(TARGET / "libdao_rt.a"), "-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s"]

C_PROGRAMS = ["call_result", "deep_chain", "early_exit", "fp_accum", "globals_statics", "grid3d", "hash_table",
              "linked_list", "nbody", "realloc_buffer", "recursion", "ssa_accumulators", "stack_arrays",
              "struct_chain", "two_loops"]
NPB = [("cg", "W"), ("cg", "A"), ("mg", "W"), ("mg", "A"), ("ft", "W"), ("ft", "A")]


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return r


def build_c(name, srcs, opt, extra=(), omp=False):
    """Returns (clean, instrumented) binary paths."""
    d = OUT / "bin"
    d.mkdir(parents=True, exist_ok=True)
    base = ["clang-19", opt, f"-I{INC}", *extra] + (["-fopenmp"] if omp else [])
    clean, instr = d / f"{name}.clean", d / f"{name}.dao"
    sh(base + ["-DDAO_DISABLE", *srcs, "-lm", "-o", str(clean)])
    sh(base + ["-gline-tables-only", "-fno-discard-value-names", f"-fpass-plugin={TARGET / 'libdao.so'}", *srcs,
               "-no-pie", WRAP, *RT, "-o", str(instr)])
    return clean, instr


def run_time(binary, env, args=()):
    e = dict(os.environ)
    e.update(env)
    t = time.perf_counter()
    r = subprocess.run([str(binary), *args], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{binary} exited {r.returncode}: {r.stderr[-500:]}")
    return dt


def instructions(binary, env):
    """Executed instructions under callgrind, on a copy without debug info
    (valgrind 3.19 cannot read clang-19's DWARF 5 in every binary); None if
    callgrind fails."""
    stripped = Path(str(binary) + ".nodebug")
    subprocess.run(["objcopy", "--strip-debug", str(binary), str(stripped)], check=True)
    binary = stripped
    e = dict(os.environ)
    e.update(env)
    if "OMP_NUM_THREADS" in e:
        e["OMP_NUM_THREADS"] = "1"
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(binary)], env=e,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    print(f"callgrind on {binary} failed: {r.stderr[-300:]}", file=sys.stderr)
    return None


def stats_run(binary, env, tmp):
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    st = tmp / "stats.jsonl"
    e = dict(os.environ)
    e.update(env)
    e.update({"DAO_DIR": str(tmp / "ck"), "DAO_STATS": str(st)})
    r = subprocess.run([str(binary)], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = [json.loads(l) for l in st.read_text().splitlines()] if st.exists() else []
    return r.returncode, lines


def total(b):
    return sum(b["bytes"].values())


def raw_write_read(nbytes, d, reps=3):
    d.mkdir(parents=True, exist_ok=True)
    data = os.urandom(min(nbytes, 1 << 20))
    w, r = [], []
    p = d / "raw.bin"
    for _ in range(reps):
        t = time.perf_counter()
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        left = nbytes
        while left > 0:
            left -= os.write(fd, data[: min(left, len(data))])
        os.fsync(fd)
        os.close(fd)
        dfd = os.open(d, os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
        w.append(time.perf_counter() - t)
        t = time.perf_counter()
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass
        r.append(time.perf_counter() - t)
    p.unlink()
    return statistics.median(w), statistics.median(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="C programs and CG/MG class W only")
    ap.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    progs = []  # (label, clean, instr, env)
    for p in C_PROGRAMS:
        src = REPO / "test-programs" / "c" / f"{p}.c"
        c, i = build_c(p, [str(src)], "-O2")
        progs.append((p, c, i, {}))
    for b, cls in NPB:
        if a.quick and cls != "W":
            continue
        bdir = REPO / "npb-ports" / b
        srcs = [str(bdir / f"{b}.c")]
        extra = [f"-DCLASS_{cls}", f"-I{REPO / 'npb-ports' / 'common'}"]
        if (REPO / "npb-ports" / "common" / "npb_common.c").exists() and b in ("cg", "mg"):
            srcs.append(str(REPO / "npb-ports" / "common" / "npb_common.c"))
        else:
            srcs += [str(x) for x in sorted(bdir.glob("*.c")) if x.name != f"{b}.c"]
        try:
            c, i = build_c(f"{b}.{cls}", srcs, "-O3", extra, omp=True)
        except RuntimeError as e:
            print(f"skipping {b}.{cls}: {str(e).splitlines()[0]}", file=sys.stderr)
            continue
        progs.append((f"{b}.{cls} (2 threads)", c, i, {"OMP_NUM_THREADS": "2"}))

    results = []
    for label, clean, instr, env in progs:
        print(f"[bench] {label}", file=sys.stderr)
        try:
            results.append(measure(a, label, clean, instr, env))
        except Exception as e:  # one program's failure must not lose the others
            print(f"[bench] {label}: FAILED: {e}", file=sys.stderr)
    write_report(a, results)


def measure(a, label, clean, instr, env):
    if True:
        t = {"clean": [], "instr": [], "instr_policy": []}
        never = OUT / "never" / label.split()[0]
        pol = dict(env, DAO_DIR=str(never), DAO_INTERVAL="1000000")
        for _ in range(a.reps):
            t["clean"].append(run_time(clean, env))
            t["instr"].append(run_time(instr, env))
            t["instr_policy"].append(run_time(instr, pol))
        med = {k: statistics.median(v) for k, v in t.items()}
        ins = None
        if a.instructions and not label.split()[0].endswith(".A"):
            ins = {"clean": instructions(clean, env), "instr": instructions(instr, env)}
            if None in ins.values():
                ins = None
        # sizes: a checkpoint every 50 ms, live mode and save-everything mode
        rc1, live = stats_run(instr, dict(env, DAO_INTERVAL="0.05"), OUT / "s-live")
        rc2, allm = stats_run(instr, dict(env, DAO_INTERVAL="0.05", DAO_SAVE="all"), OUT / "s-all")
        per = {}
        for ev in live:
            if ev.get("event") == "checkpoint":
                per.setdefault(ev["at"], {"live": [], "all": [], "rss": [], "write_s": [], "file": []})
                per[ev["at"]]["live"].append(total(ev))
                per[ev["at"]]["rss"].append(ev["rss_bytes"])
                per[ev["at"]]["write_s"].append(ev["write_s"])
                per[ev["at"]]["file"].append(ev["file_bytes"])
        for ev in allm:
            if ev.get("event") == "checkpoint" and ev["at"] in per:
                per[ev["at"]]["all"].append(total(ev))
        cands = {k: {kk: (statistics.median(vv) if vv else None) for kk, vv in v.items()} | {"n": len(v["live"])}
                 for k, v in per.items()}
        # write/read vs raw on the largest checkpoint of the live run
        io = None
        big = max((e for e in live if e.get("event") == "checkpoint"), key=lambda e: e["file_bytes"], default=None)
        if big:
            d = OUT / "io"
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            e = dict(os.environ, **env, DAO_DIR=str(d / "ck"), DAO_STATS=str(d / "st"), DAO_INTERVAL="0.05", DAO_CRASH_AFTER="2")
            subprocess.run([str(instr)], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            e.pop("DAO_CRASH_AFTER")
            subprocess.run([str(instr)], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            st = d / "st"
            evs = [json.loads(l) for l in st.read_text().splitlines()] if st.exists() else []
            ck = [x for x in evs if x["event"] == "checkpoint"]
            rs = [x for x in evs if x["event"] == "restart"]
            if ck and rs:
                nb = rs[0]["file_bytes"]
                rw, rr = raw_write_read(nb, d / "raw")
                io = {"file_bytes": nb, "ckpt_write_s": statistics.median([x["write_s"] for x in ck[:2]]),
                      "restart_read_restore_s": rs[0]["restore_s"], "raw_write_fsync_s": rw, "raw_read_s": rr}
        return {"program": label, "times_s": t, "median_s": med, "instructions": ins,
                "overhead_instr": med["instr"] / med["clean"] - 1,
                "overhead_policy": med["instr_policy"] / med["clean"] - 1,
                "candidates": cands, "io": io, "rc": [rc1, rc2]}


def write_report(a, results):
    (REPO / "build" / "bench-results").mkdir(parents=True, exist_ok=True)
    out = {"command": "python3 scripts/bench_foundation.py" + (" --quick" if a.quick else "") + (" --instructions" if a.instructions else "") + f" --reps {a.reps}",
           "machine": os.uname().nodename, "nproc": os.cpu_count(), "results": results}
    (REPO / "build" / "bench-results" / "foundation.json").write_text(json.dumps(out, indent=1))

    def kib(x):
        return "-" if x is None else f"{x / 1024:,.1f}"

    print("\n### Failure-free overhead (median of %d interleaved runs, wall time)\n" % a.reps)
    print("| program | clean s | instrumented s | overhead | + policy check | overhead |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        m = r["median_s"]
        print(f"| {r['program']} | {m['clean']:.3f} | {m['instr']:.3f} | {100 * r['overhead_instr']:+.1f}% | "
              f"{m['instr_policy']:.3f} | {100 * r['overhead_policy']:+.1f}% |")
    geo = statistics.geometric_mean([1 + r["overhead_instr"] for r in results]) - 1
    geo2 = statistics.geometric_mean([1 + r["overhead_policy"] for r in results]) - 1
    print(f"| **geometric mean** | | | **{100 * geo:+.2f}%** | | **{100 * geo2:+.2f}%** |")
    if a.instructions:
        print("\n### Failure-free overhead in executed instructions (callgrind; 1 thread)\n")
        print("| program | clean | instrumented | overhead |")
        print("|---|---:|---:|---:|")
        rows = [r for r in results if r["instructions"]]
        for r in rows:
            i = r["instructions"]
            print(f"| {r['program'].split()[0]} | {i['clean']:,} | {i['instr']:,} | {100 * (i['instr'] / i['clean'] - 1):+.2f}% |")
        if rows:
            g = statistics.geometric_mean([r["instructions"]["instr"] / r["instructions"]["clean"] for r in rows]) - 1
            print(f"| **geometric mean** | | | **{100 * g:+.2f}%** |")
    print("\n### Per candidate: bytes saved (KiB), DAO live set vs save-everything vs resident memory\n")
    print("| program | candidate | checkpoints | DAO live | save-all | live/save-all | RSS | live/RSS |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        for at, c in sorted(r["candidates"].items()):
            ratio = f"{100 * c['live'] / c['all']:.1f}%" if c["all"] else "-"
            print(f"| {r['program']} | `{at}` | {c['n']} | {kib(c['live'])} | {kib(c['all'])} | {ratio} | "
                  f"{kib(c['rss'])} | {100 * c['live'] / c['rss']:.2f}% |")
    print("\n### Checkpoint write / restart read vs plain I/O of the same bytes (same directory, same run)\n")
    print("| program | file KiB | checkpoint write s | raw write+fsync s | ratio | restart read+restore s | raw read s | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        io = r["io"]
        if not io:
            continue
        print(f"| {r['program']} | {kib(io['file_bytes'])} | {io['ckpt_write_s']:.4f} | {io['raw_write_fsync_s']:.4f} | "
              f"{io['ckpt_write_s'] / io['raw_write_fsync_s']:.2f} | {io['restart_read_restore_s']:.4f} | "
              f"{io['raw_read_s']:.4f} | {io['restart_read_restore_s'] / max(io['raw_read_s'], 1e-9):.2f} |")


if __name__ == "__main__":
    main()
