#!/usr/bin/env python3
"""Distributed saving (issue #3): a checkpoint taken inside a parallel region
written by the master alone (DAO_WRITERS=master) or by the team
(DAO_WRITERS=team: the master, the workers stopped at a candidate and a
writer thread for each team member waiting inside libomp, each claiming
1 MiB units of the file), side by side in one run.

Program: bench/omp_shared_array.c (one shared heap array of MIB MiB, a
candidate after every sweep's barrier). For each size, thread count and
mode, REPS interleaved runs taking 3 checkpoints each; per checkpoint the
runtime's stats give encode_s (hash + write into the page cache),
write_s (encode + flush + fsync + rename + directory fsync) and writers
(threads that wrote at least one unit). Reference points measured in the
same run: a plain single-threaded write() of the same number of bytes into
the page cache, and write()+fsync.

Usage: python3 scripts/bench_writers.py [--reps N] [--sizes 64,256] [--threads 1,2,4]
Needs `cargo build --release`. Writes build/bench-results/writers.json (git-ignored), prints a
markdown table.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DAO = REPO / "target" / "release" / "dao"
OUT = REPO / "build" / "bench-writers"


def plain_write(nbytes, d, sync):
    d.mkdir(parents=True, exist_ok=True)
    buf = os.urandom(1 << 20) * 64  # 64 MiB
    p = d / "plain.bin"
    t = time.perf_counter()
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    left = nbytes
    mv = memoryview(buf)
    while left > 0:
        left -= os.write(fd, mv[: min(left, len(buf))])
    if sync:
        os.fsync(fd)
    os.close(fd)
    dt = time.perf_counter() - t
    p.unlink()
    return dt


def run(binary, mib, threads, mode, d):
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    st = d / "stats.jsonl"
    steps = 9
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_DIR=str(d / "ck"), DAO_EVERY="3",
               DAO_WRITERS=mode, DAO_STATS=str(st), DAO_KEEP="1", DAO_STORE="file")
    r = subprocess.run([str(binary), str(mib), str(steps)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{binary} {mib} failed: {r.stderr[-500:]}")
    ev = [json.loads(l) for l in st.read_text().splitlines()]
    ev = [e for e in ev if e.get("event") == "checkpoint"]
    shutil.rmtree(d)
    return r.stdout.strip(), ev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sizes", default="64,256")
    ap.add_argument("--threads", default="1,2,4")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    binary = OUT / "omp_shared_array"
    subprocess.run([str(DAO), "cc", "-fopenmp", "-O2", str(REPO / "bench" / "omp_shared_array.c"), "-o", str(binary)],
                   check=True)
    sizes = [int(x) for x in a.sizes.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    rows = []
    for mib in sizes:
        ref = {"page_cache_s": [], "fsync_s": []}
        data = {(t, m): [] for t in threads for m in ("master", "team")}
        outputs = set()
        for rep in range(a.reps):
            ref["page_cache_s"].append(plain_write(mib << 20, OUT / "plain", False))
            ref["fsync_s"].append(plain_write(mib << 20, OUT / "plain", True))
            for t in threads:
                for m in ("master", "team"):
                    print(f"[writers] {mib} MiB t={t} {m} rep {rep + 1}", file=sys.stderr)
                    out, ev = run(binary, mib, t, m, OUT / "run")
                    outputs.add(out)
                    data[(t, m)].extend(ev)
        if len(outputs) != 1:
            raise RuntimeError(f"outputs differ between runs: {outputs}")
        for t in threads:
            r = {"mib": mib, "threads": t, "plain_page_cache_s": statistics.median(ref["page_cache_s"]),
                 "plain_fsync_s": statistics.median(ref["fsync_s"])}
            for m in ("master", "team"):
                ev = data[(t, m)]
                r[m] = {
                    "checkpoints": len(ev),
                    "file_bytes": statistics.median(e["file_bytes"] for e in ev),
                    "encode_s": statistics.median(e["encode_s"] for e in ev),
                    "write_s": statistics.median(e["write_s"] for e in ev),
                    "writers": statistics.median(e["writers"] for e in ev),
                    "raw": [{k: e[k] for k in ("encode_s", "write_s", "writers", "threads")} for e in ev],
                }
            rows.append(r)
    (REPO / "build" / "bench-results").mkdir(parents=True, exist_ok=True)
    (REPO / "build" / "bench-results" / "writers.json").write_text(json.dumps(rows, indent=1))
    print("| array | threads | master: encode s | team: encode s | speed-up | team writers | master: write+fsync s | team: write+fsync s | plain write() s | plain write()+fsync s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ma, te = r["master"], r["team"]
        print(f"| {r['mib']} MiB | {r['threads']} | {ma['encode_s']:.3f} | {te['encode_s']:.3f} | "
              f"{ma['encode_s'] / te['encode_s']:.2f}x | {te['writers']:g} | {ma['write_s']:.3f} | {te['write_s']:.3f} | "
              f"{r['plain_page_cache_s']:.3f} | {r['plain_fsync_s']:.3f} |")


if __name__ == "__main__":
    main()
