#!/usr/bin/env python3
"""Storage engine in the runtime (issue #6): what each store mode writes per
checkpoint against the live data, and the pause the program sees, synchronous
(DAO_ASYNC=off) vs async flush (DAO_ASYNC=wait), beside the single-file
format (DAO_STORE=file), side by side in one run. Configurations: single
files; the engine in each mode (full, incremental, differential, adaptive)
with DAO_ASYNC=off and wait, with its defaults (lz4 + shuffle, 4 KiB
blocks); adaptive with DAO_COMPRESS=none.

Programs: the NPB ports CG, MG, FT, BT, class W (`dao cc -O3 -fopenmp
-DCLASS_W`), OMP_NUM_THREADS=1 (the second core is left to the engine's
threads), a checkpoint every EVERY candidates (about a dozen per run).
For each port and configuration, REPS runs with a fresh DAO_DIR; from the
runtime's DAO_STATS lines, per checkpoint:
  live     the bytes of every saved object (single files: the sum of
           `bytes`; engine: `store.live_bytes`, the heap metadata included)
  stored   region bytes the engine's file holds (changed blocks of a delta)
  file     bytes written: the checkpoint file (after compression)
  pause    how long the program stood still for the checkpoint: single
           files collect_s + write_s; engine `store.pause_s` (collection,
           skeleton, then the write or the staging copy, and any wait for
           the previous flush)
  waiting  engine, async: the part of the pause spent waiting for the
           previous checkpoint's flush (DAO_ASYNC=wait: a checkpoint due
           while the previous one flushes waits for it)
  flush    engine, async: the background hash + compress + write + commit
and per run the wall time, against REPS runs without DAO_DIR.
Means over every checkpoint of every run; pause also as the median.

Usage: python3 scripts/bench_store.py [--reps N] [--ports cg,mg,ft,bt] [--threads 1]
       [--every mg=10,ft=4] [--modes full,adaptive] [--tag NAME]
(--every: other checkpoint intervals; --modes: the engine modes to run,
single files always run.)
Needs `cargo build --release`. Writes build/bench-results/store_npb_W[_NAME].json (git-ignored),
prints a markdown table.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DAO = REPO / "target" / "release" / "dao"
OUT = REPO / "build" / "bench-store"
NPB = REPO / "npb-ports"

PORTS = {
    "cg": (["cg/cg.c", "common/npb_common.c"], 36),
    "mg": (["mg/mg.c", "common/npb_common.c"], 5),
    "ft": (["ft/ft.c"], 2),
    "bt": (["bt/bt.c"], 20),
}
CONFIGS = [("file", None, "off")] + [
    ("engine", m, a) for m in ("full", "incremental", "differential", "adaptive") for a in ("off", "wait")
] + [("engine", "adaptive+none", a) for a in ("off", "wait")]  # DAO_COMPRESS=none


def build(port):
    srcs, _ = PORTS[port]
    exe = OUT / f"{port}.W"
    if not exe.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        cmd = [str(DAO), "cc", "-O3", "-fopenmp", "-DCLASS_W", f"-I{NPB / 'common'}"] + [str(NPB / s) for s in srcs] + ["-lm", "-o", str(exe)]
        subprocess.run(cmd, check=True, cwd=OUT)
    return exe


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    env.update(extra)
    return env


def run(exe, threads, cfg, every, d):
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    st = d / "stats.jsonl"
    extra = {"OMP_NUM_THREADS": str(threads)}
    if cfg is not None:
        store, mode, flush = cfg
        extra.update(DAO_DIR=str(d / "ck"), DAO_EVERY=str(every), DAO_STATS=str(st), DAO_STORE=store)
        if store == "engine":
            extra.update(DAO_INCREMENTAL=mode.split("+")[0], DAO_ASYNC=flush)
            if mode.endswith("+none"):
                extra.update(DAO_COMPRESS="none")
    t = time.perf_counter()
    r = subprocess.run([str(exe)], env=clean_env(extra), capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0 or "SUCCESSFUL" not in r.stdout:
        raise RuntimeError(f"{exe} {cfg} failed ({r.returncode}): {r.stderr[-800:]}")
    ev = []
    if st.exists():
        ev = [json.loads(l) for l in st.read_text().splitlines()]
        ev = [e for e in ev if e.get("event") == "checkpoint"]
    shutil.rmtree(d)
    return wall, ev


def per_checkpoint(e):
    if e.get("storage") == "engine":
        s = e["store"]
        return dict(live=s["live_bytes"], stored=s["stored_bytes"], file=e["file_bytes"], pause=s["pause_s"],
                    wait=s["wait_s"], flush=e["write_s"] if s["flush"] != "sync" else 0.0, kind=s["kind"])
    b = e["bytes"]
    live = b["slots"] + b["stack"] + b["globals"] + b["heap"]
    return dict(live=live, stored=live, file=e["file_bytes"], pause=e["collect_s"] + e["write_s"], wait=0.0, flush=0.0, kind="file")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ports", default="cg,mg,ft,bt")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--every", default="")
    ap.add_argument("--modes", default="")
    ap.add_argument("--tag", default="")
    a = ap.parse_args()
    for kv in filter(None, a.every.split(",")):
        k, v = kv.split("=")
        PORTS[k] = (PORTS[k][0], int(v))
    global CONFIGS
    if a.modes:
        keep = a.modes.split(",")
        CONFIGS = [c for c in CONFIGS if c[0] == "file" or c[1] in keep]
    rows = []
    for port in a.ports.split(","):
        exe = build(port)
        every = PORTS[port][1]
        base = [run(exe, a.threads, None, every, OUT / "run")[0] for _ in range(a.reps)]
        data = {c: {"walls": [], "cps": []} for c in CONFIGS}
        for rep in range(a.reps):  # interleaved
            for c in CONFIGS:
                wall, ev = run(exe, a.threads, c, every, OUT / "run")
                data[c]["walls"].append(wall)
                data[c]["cps"].extend(per_checkpoint(e) for e in ev)
                print(f"{port} rep {rep + 1}/{a.reps} {c}: {len(ev)} checkpoints, {wall:.2f} s", file=sys.stderr)
        for c in CONFIGS:
            cps = data[c]["cps"]
            mean = lambda k: statistics.mean(x[k] for x in cps)
            kinds = {}
            for x in cps:
                kinds[x["kind"]] = kinds.get(x["kind"], 0) + 1
            rows.append(dict(
                port=f"{port.upper()}.W", store=c[0], mode=c[1] or "-", flush=c[2],
                checkpoints_per_run=len(cps) / a.reps, kinds=kinds,
                live_mib=mean("live") / 2**20, stored_mib=mean("stored") / 2**20, file_mib=mean("file") / 2**20,
                pause_ms_mean=mean("pause") * 1e3, pause_ms_median=statistics.median(x["pause"] for x in cps) * 1e3,
                wait_ms_mean=mean("wait") * 1e3, flush_ms_mean=mean("flush") * 1e3,
                wall_s=statistics.median(data[c]["walls"]), base_wall_s=statistics.median(base),
            ))
    (REPO / "build" / "bench-results").mkdir(parents=True, exist_ok=True)
    meta = dict(threads=a.threads, reps=a.reps, every={p: PORTS[p][1] for p in a.ports.split(",")},
                machine=os.uname().nodename, cores=os.cpu_count(), load=os.getloadavg())
    name = "store_npb_W" + (f"_{a.tag}" if a.tag else "") + ".json"
    (REPO / "build" / "bench-results" / name).write_text(json.dumps(dict(meta=meta, rows=rows), indent=1) + "\n")
    print("| program | storage | mode | flush | ckpts/run | live MiB | stored (% live) | file MiB (% live) | pause ms mean / median | of which waiting for the previous flush | background flush ms | run s (no ckpt s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['port']} | {r['store']} | {r['mode']} | {r['flush']} | {r['checkpoints_per_run']:.0f} | {r['live_mib']:.1f} | "
              f"{100 * r['stored_mib'] / r['live_mib']:.1f}% | {r['file_mib']:.2f} ({100 * r['file_mib'] / r['live_mib']:.1f}%) | "
              f"{r['pause_ms_mean']:.1f} / {r['pause_ms_median']:.1f} | {r['wait_ms_mean']:.1f} | {r['flush_ms_mean']:.1f} | {r['wall_s']:.2f} ({r['base_wall_s']:.2f}) |")


if __name__ == "__main__":
    main()
