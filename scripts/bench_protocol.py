#!/usr/bin/env python3
"""Non-blocking checkpoint protocol (issue #4): blocking vs non-blocking
rounds side by side in one run, and the cost of the shared-write guards.

Programs (2 threads unless noted):
- bench/omp_imbalance.c: a region around a step loop; per step a marker,
  private work (1 unit for the fast threads, IMB=10 units for the slow
  ones), one shared write; a barrier every 10 steps. "slow workers" (the
  master, the initiator, is fast) and "slow master", at 2 and 4 threads
  (4 threads oversubscribe a 2-core machine).
- NPB ports C BT, CG, FT, MG, class W (npb-ports/, built as tests/tests/npb.rs
  builds them: `-DCLASS_W -I npb-ports/common -lm`, -O3).

Builds per program: *guards* (`dao cc -fopenmp -O3`, the default),
*no guards* (the same with DAO_GUARDS=0 at compile time) and *clean*
(`dao cc --dao-no-pass`, markers compiled out).

Measurements (every repetition runs every variant of every program, in a
shuffled order, so slow drifts of the machine hit all variants alike):
(a) stop time per thread for ONE checkpoint: the guards build with DAO_DIR
    and DAO_EVERY=k chosen so that exactly one checkpoint is taken, in the
    middle of the run (the master's candidates are counted first with
    DAO_EVERY=1; k > N/2; for omp_imbalance with slow workers k is the
    first candidate past N/2 half-way between two barriers, where the fast
    master is 5 steps ahead and the workers are in the middle of their work;
    with a slow master the first one right after a barrier, where the
    workers are running: half-way they would already wait in the next
    barrier, where neither protocol stops them), DAO_PROTOCOL=blocking and
    =nonblocking; the runtime's `omp_stops` line gives the seconds each
    thread was stopped (the checkpoint's stats line: the master's gather
    and write times). The NPB ports have no candidate inside a parallel
    region: their checkpoint is a serial one (the protocol does not apply;
    reported as the master's collect and write times).
(b) wall time of those runs vs the guards build without DAO_DIR.
(c) guard overhead, no checkpoint (DAO_DIR unset): guards vs no guards vs
    clean, wall time; per repetition the ratio to the clean run of the same
    repetition; median and interquartile range. --c-reps adds repetitions of
    (c) alone (2-thread programs). Plus executed instructions under
    callgrind (OMP_NUM_THREADS=1, NPB class S, omp_imbalance with a short
    argument set), counted in the executable itself (program + dao
    runtime): exact, equal between identical runs.
Checks: every run's output equals the clean run's (digest; NPB: all lines
but the timing ones, and verification SUCCESSFUL); each checkpoint run took
exactly one checkpoint with the protocol asked for; once per omp_imbalance
program and protocol a run killed right after its checkpoint
(DAO_CRASH_AFTER=1) and restarted prints the same digest.

Usage: python3 scripts/bench_protocol.py [--reps N] [--c-reps N] [--quick] [--no-instr]
Needs `cargo build --release` and valgrind (for the instruction counts).
Writes build/bench-results/protocol.json (git-ignored; --json to change), prints markdown tables.
Temporary files: build/bench-protocol/ (checkpoint directories are on the
same disk as the repository and removed after each run).
"""
import argparse, json, os, random, re, shutil, statistics, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DAO = REPO / "target" / "release" / "dao"
NPB = REPO / "npb-ports"
OUT = REPO / "build" / "bench-protocol"
SHM = Path("/dev/shm") if Path("/dev/shm").is_dir() else OUT
VARIANTS = ("guards", "noguards", "clean")
PROTOCOLS = ("blocking", "nonblocking")
TIMING = (" Time initialisation", " Time in seconds", " Mop/s")
NPB_SOURCES = {"bt": ["bt/bt.c"], "cg": ["cg/cg.c", "common/npb_common.c"], "ft": ["ft/ft.c"],
               "mg": ["mg/mg.c", "common/npb_common.c"]}
IMB_BARRIER = 10


def log(msg):
    print(f"[protocol] {msg}", file=sys.stderr, flush=True)


def build(prog, variant, cls=None):
    """Compile one program in one variant; returns the executable."""
    d = OUT / "bin"
    d.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("DAO_GUARDS", None)
    cmd = [str(DAO), "cc", "-fopenmp", "-O3"]
    if variant == "clean":
        cmd.append("--dao-no-pass")
    if variant == "noguards":
        env["DAO_GUARDS"] = "0"
    if prog == "imbalance":
        exe = d / f"imbalance.{variant}"
        cmd += [str(REPO / "bench" / "omp_imbalance.c")]
    else:
        exe = d / f"{prog}.{cls}.{variant}"
        cmd += [f"-DCLASS_{cls}", f"-I{NPB / 'common'}"] + [str(NPB / s) for s in NPB_SOURCES[prog]]
    cmd += ["-o", str(exe), "-lm"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=d)
    if r.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return exe


def normalise(prog, out):
    """What must be equal between runs: the digest line, or NPB's output
    without the timing lines."""
    if prog == "imbalance":
        return out.strip()
    if " Verification    =               SUCCESSFUL" not in out:
        raise RuntimeError(f"{prog}: verification failed:\n{out[-1500:]}")
    return "\n".join(l for l in out.splitlines() if not l.startswith(TIMING))


def run(cfg, exe, env_extra, ckdir=None, stats=True, expect_rc=0):
    """One run; returns (wall seconds, normalised output, stats events)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAO_", "OMP_", "KMP_"))}
    env["OMP_NUM_THREADS"] = str(cfg["threads"])
    env.update(env_extra)
    st = None
    if ckdir is not None:
        if ckdir.exists():
            shutil.rmtree(ckdir)
        env["DAO_DIR"] = str(ckdir)
        if stats:
            st = ckdir.parent / (ckdir.name + ".stats.jsonl")
            if st.exists():
                st.unlink()
            env["DAO_STATS"] = str(st)
    t = time.perf_counter()
    r = subprocess.run([str(exe)] + cfg["args"], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != expect_rc:
        raise RuntimeError(f"{cfg['name']}: {exe.name} {env_extra} exited {r.returncode} (expected {expect_rc}):\n"
                           f"{r.stdout[-800:]}\n{r.stderr[-1500:]}")
    ev = []
    if st is not None and st.exists():
        ev = [json.loads(l) for l in st.read_text().splitlines() if l.strip()]
    return wall, (normalise(cfg["prog"], r.stdout) if expect_rc == 0 else None), ev, r.stderr


def count_candidates(cfg, exe):
    """The master's candidates (DAO_EVERY=1: one checkpoint each), and which
    of them are inside a parallel region (their stats line has "protocol")."""
    d = SHM / f"dao-bench-protocol-count-{os.getpid()}"
    _, _, ev, _ = run(cfg, exe, {"DAO_EVERY": "1", "DAO_KEEP": "1", "DAO_STORE": "file"}, ckdir=d)
    shutil.rmtree(d, ignore_errors=True)
    (d.parent / (d.name + ".stats.jsonl")).unlink(missing_ok=True)
    cps = [e for e in ev if e.get("event") == "checkpoint"]
    return len(cps), [i + 1 for i, e in enumerate(cps) if "protocol" in e]


def choose_every(cfg, n, in_region):
    """DAO_EVERY=k with exactly one checkpoint (k > n/2), inside a region if
    possible; for omp_imbalance half-way between two barriers."""
    cands = [k for k in in_region if 2 * k > n]
    if cfg["prog"] == "imbalance":
        # slow workers: half-way between two barriers (the fast master is
        # ahead, the workers are in the middle of their work); slow master:
        # right after a barrier (half-way, the fast workers would already
        # wait in the next barrier, where neither protocol stops them)
        phase = IMB_BARRIER // 2 if "workers" in cfg["args"] else 0
        pos = [k for k in cands if (k - 1) % IMB_BARRIER == phase]
        cands = pos or cands
    return (cands[0], True) if cands else (n // 2 + 1, False)


def stops_of(ev, threads):
    s = [e for e in ev if e.get("event") == "omp_stops"]
    if not s:
        return None
    v = list(s[-1]["stop_s"]) + [0.0] * threads
    return {"protocol": s[-1]["protocol"], "rounds": s[-1]["rounds"], "stop_s": v[:threads]}


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def quartiles(xs):
    if len(xs) < 4:
        return (min(xs), max(xs)) if xs else (float("nan"), float("nan"))
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def callgrind_objects(path):
    """Executed instructions (Ir) per object file from a callgrind output
    file (self cost of every function; the inclusive cost lines that follow
    `calls=` are skipped)."""
    names, cur, skip, tot = {}, None, False, {}

    def obj(v):
        m = re.match(r"\((\d+)\)\s*(.*)", v)
        if not m:
            return v
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    for line in open(path):
        if skip:
            skip = False
        elif line.startswith("ob="):
            cur = obj(line[3:].strip())
        elif line.startswith("cob="):
            obj(line[4:].strip())
        elif line.startswith("calls="):
            skip = True
        elif line[:1] in "0123456789+-*":
            parts = line.split()
            if len(parts) >= 2:
                tot[cur] = tot.get(cur, 0) + int(parts[-1])
    return tot


def callgrind(exe, cfg_args, threads=1):
    """{"total": all instructions, "exe": those in the executable itself (the
    program and the statically linked dao runtime; libomp's start-up reads
    /proc and varies by ~0.1% between identical runs, the executable's count
    does not)}."""
    stripped = Path(str(exe) + ".nodebug")
    subprocess.run(["objcopy", "--strip-debug", str(exe), str(stripped)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAO_", "OMP_", "KMP_"))}
    env["OMP_NUM_THREADS"] = str(threads)
    prof = Path(str(exe) + ".callgrind")
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={prof}", str(stripped)] + cfg_args,
                       env=env, capture_output=True, text=True)
    total = next((int(l.split(":")[-1].strip()) for l in r.stderr.splitlines() if "Collected :" in l), None)
    if total is None or not prof.exists():
        raise RuntimeError(f"callgrind on {exe} failed: {r.stderr[-500:]}")
    objs = callgrind_objects(prof)
    own = [v for k, v in objs.items() if k and Path(k).name == stripped.name]
    if sum(objs.values()) != total or len(own) != 1:
        raise RuntimeError(f"callgrind output of {exe}: objects {objs} do not add up to {total}")
    prof.unlink()
    return {"total": total, "exe": own[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7, help="repetitions of (a), (b), (c) (default 7)")
    ap.add_argument("--c-reps", type=int, default=15, help="extra repetitions of (c) alone (default 15)")
    ap.add_argument("--quick", action="store_true", help="2 reps, no extra (c) reps, no callgrind, no restart check")
    ap.add_argument("--no-instr", action="store_true", help="skip the callgrind instruction counts")
    ap.add_argument("--npb-class", default="W")
    ap.add_argument("--unit", type=int, default=800000, help="omp_imbalance: iterations per work unit (800000: about 1 ms here)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=str(REPO / "build" / "bench-results" / "protocol.json"))
    ap.add_argument("--report", metavar="JSON", help="only print the tables of a stored run (e.g. the committed docs/bench/protocol.json)")
    a = ap.parse_args()
    if a.report:
        report(json.loads(Path(a.report).read_text()))
        return
    if a.quick:
        a.reps, a.c_reps, a.no_instr = 2, 0, True
    rng = random.Random(a.seed)
    t_start = time.time()
    load0 = os.getloadavg()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)

    imb_args = lambda slow: ["--slow", slow, "--imb", "10", "--steps", "100", "--barrier", str(IMB_BARRIER),
                             "--unit", str(a.unit)]
    cfgs = []
    for slow in ("workers", "master"):
        for t in (2, 4):
            cfgs.append({"name": f"omp_imbalance slow {slow}, {t} thr", "prog": "imbalance", "args": imb_args(slow),
                         "threads": t, "c": t == 2})
    for p in ("bt", "cg", "ft", "mg"):
        cfgs.append({"name": f"NPB {p.upper()}.{a.npb_class}, 2 thr", "prog": p, "cls": a.npb_class, "args": [],
                     "threads": 2, "c": True})

    log("building")
    exes = {}
    for c in cfgs:
        key = (c["prog"], c.get("cls"))
        if key not in exes:
            exes[key] = {v: build(c["prog"], v, c.get("cls")) for v in VARIANTS}
        c["exe"] = exes[key]

    log("counting candidates (DAO_EVERY=1)")
    for c in cfgs:
        n, in_region = count_candidates(c, c["exe"]["guards"])
        k, inside = choose_every(c, n, in_region)
        c.update(candidates=n, in_region_candidates=len(in_region), every=k, checkpoint_in_region=inside)
        log(f"  {c['name']}: {n} candidates, {len(in_region)} inside a region; DAO_EVERY={k}")

    # reference outputs (clean build)
    for c in cfgs:
        _, c["ref"], _, _ = run(c, c["exe"]["clean"], {})

    kinds = ["nocp", "cp-blocking", "cp-nonblocking", "noguards", "clean"]
    raw = {c["name"]: {k: [] for k in kinds} for c in cfgs}
    stops = {c["name"]: {p: [] for p in PROTOCOLS} for c in cfgs}
    cpev = {c["name"]: {p: [] for p in PROTOCOLS} for c in cfgs}
    # per repetition, the (c) triple measured back to back: {"guards","noguards","clean"}
    ctrip = {c["name"]: [] for c in cfgs}
    loads = []  # 1-minute load average after each repetition

    def one(c, kind, rep):
        ck = OUT / "ck"
        if kind == "nocp":
            w, o, _, _ = run(c, c["exe"]["guards"], {})
        elif kind in ("noguards", "clean"):
            w, o, _, _ = run(c, c["exe"][kind], {})
        else:
            p = kind.split("-")[1]
            w, o, ev, err = run(c, c["exe"]["guards"], {"DAO_EVERY": str(c["every"]), "DAO_PROTOCOL": p}, ckdir=ck)
            shutil.rmtree(ck, ignore_errors=True)
            cps = [e for e in ev if e.get("event") == "checkpoint"]
            if len(cps) != 1:
                raise RuntimeError(f"{c['name']} {kind}: {len(cps)} checkpoints, expected 1")
            if c["checkpoint_in_region"]:
                if cps[0].get("protocol") != p:
                    raise RuntimeError(f"{c['name']}: asked DAO_PROTOCOL={p}, checkpoint says {cps[0].get('protocol')}\n{err}")
                s = stops_of(ev, c["threads"])
                if s is None or s["protocol"] != p or s["rounds"] != 1:
                    raise RuntimeError(f"{c['name']}: omp_stops {s} for DAO_PROTOCOL={p}")
                stops[c["name"]][p].append(s["stop_s"])
            cpev[c["name"]][p].append({k: cps[0].get(k) for k in ("gather_s", "collect_s", "encode_s", "write_s",
                                                                     "file_bytes", "protocol", "at")})
        if o != c["ref"]:
            raise RuntimeError(f"{c['name']} {kind} rep {rep}: output differs from the clean run:\n{o}\n---\n{c['ref']}")
        raw[c["name"]][kind].append(w)
        return w

    for rep in range(a.reps):
        log(f"rep {rep + 1}/{a.reps} ({time.time() - t_start:.0f} s)")
        jobs = [(c, k) for c in cfgs for k in kinds if c["c"] or k not in ("noguards", "clean")]
        rng.shuffle(jobs)
        trip = {c["name"]: {} for c in cfgs}
        for c, k in jobs:
            w = one(c, k, rep)
            v = {"nocp": "guards", "noguards": "noguards", "clean": "clean"}.get(k)
            if v:
                trip[c["name"]][v] = w
        for c in cfgs:
            ctrip[c["name"]].append(trip[c["name"]])
        loads.append(os.getloadavg()[0])

    ccfgs = [c for c in cfgs if c["c"]]
    for rep in range(a.c_reps):
        log(f"(c) rep {rep + 1}/{a.c_reps} ({time.time() - t_start:.0f} s)")
        jobs = [(c, k) for c in ccfgs for k in ("nocp", "noguards", "clean")]
        rng.shuffle(jobs)
        trip = {c["name"]: {} for c in ccfgs}
        for c, k in jobs:
            trip[c["name"]][{"nocp": "guards"}.get(k, k)] = one(c, k, a.reps + rep)
        for c in ccfgs:
            ctrip[c["name"]].append(trip[c["name"]])
        loads.append(os.getloadavg()[0])

    restart = {}
    if not a.quick:
        log(f"restart check ({time.time() - t_start:.0f} s)")
        for c in cfgs:
            if c["prog"] != "imbalance":
                continue
            for p in PROTOCOLS:
                ck = OUT / "ck-restart"
                env = {"DAO_EVERY": str(c["every"]), "DAO_PROTOCOL": p}
                run(c, c["exe"]["guards"], dict(env, DAO_CRASH_AFTER="1"), ckdir=ck, expect_rc=-9)
                # second run: resumes from the checkpoint (same directory)
                e2 = {k: v for k, v in os.environ.items() if not k.startswith(("DAO_", "OMP_", "KMP_"))}
                e2.update(env, OMP_NUM_THREADS=str(c["threads"]), DAO_DIR=str(ck))
                r = subprocess.run([str(c["exe"]["guards"])] + c["args"], env=e2, capture_output=True, text=True)
                ok = r.returncode == 0 and "dao: resuming" in r.stderr and normalise("imbalance", r.stdout) == c["ref"]
                restart[f"{c['name']} {p}"] = ok
                if not ok:
                    raise RuntimeError(f"restart check {c['name']} {p}: rc {r.returncode}\n{r.stdout}\n{r.stderr[-1500:]}")
                shutil.rmtree(ck, ignore_errors=True)

    instr = {}
    if not a.no_instr:
        log(f"callgrind ({time.time() - t_start:.0f} s)")
        short = ["--slow", "workers", "--imb", "10", "--steps", "20", "--barrier", str(IMB_BARRIER), "--unit", "20000"]
        # worst case: a step is a marker, one iteration of work and the
        # guarded shared write (a guard per ~10 instructions of work)
        worst = ["--slow", "workers", "--imb", "1", "--steps", "1000000", "--barrier", "1000000", "--unit", "1"]
        jobs = [("omp_imbalance (steps 20, unit 20000)", exes[("imbalance", None)], short),
                ("omp_imbalance worst case (10^6 steps, unit 1)", exes[("imbalance", None)], worst)]
        for p in ("bt", "cg", "ft", "mg"):
            ex = {v: build(p, v, "S") for v in VARIANTS}
            jobs.append((f"NPB {p.upper()}.S", ex, []))
        for name, ex, args in jobs:
            instr[name] = {v: callgrind(ex[v], args) for v in VARIANTS}
            log(f"  {name}: {instr[name]}")

    # ---- summary ----
    rows = []
    for c in cfgs:
        n = c["name"]
        r = {k: c[k] for k in ("name", "prog", "threads", "args", "candidates", "in_region_candidates", "every",
                              "checkpoint_in_region", "c")}
        r["wall_s"] = raw[n]
        r["checkpoint"] = cpev[n]
        r["stop_s"] = stops[n]
        r["c_triples"] = ctrip[n]
        rows.append(r)
    elapsed = time.time() - t_start
    doc = {"machine": {"cores": os.cpu_count(), "uname": " ".join(os.uname()), "loadavg_start": load0,
                       "loadavg_end": os.getloadavg(),
                       "loadavg_after_each_rep": loads},
           "command": " ".join([sys.executable.split("/")[-1]] + sys.argv), "reps": a.reps, "c_reps": a.c_reps,
           "elapsed_s": elapsed, "restart_checks": restart, "instructions": instr, "rows": rows}
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(doc, indent=1))
    log(f"done in {elapsed:.0f} s; raw numbers in {a.json}")

    report(doc)


def report(doc):
    """Prints the markdown tables of docs/results.md from a run's JSON
    document (what main writes; `--report FILE` re-renders a stored one)."""
    rows = doc["rows"]
    reps = doc["reps"]
    raw = {r["name"]: r["wall_s"] for r in rows}
    stops = {r["name"]: r["stop_s"] for r in rows}
    cpev = {r["name"]: r["checkpoint"] for r in rows}
    ctrip = {r["name"]: r["c_triples"] for r in rows}
    instr = doc.get("instructions") or {}
    restart = doc.get("restart_checks") or {}
    elapsed = doc["elapsed_s"]
    m = doc["machine"]
    load0, loads, load_end = m["loadavg_start"], m["loadavg_after_each_rep"], m["loadavg_end"]
    ms = lambda x: f"{1e3 * x:.1f}"
    print(f"\n### (a) Stop time for one checkpoint inside a region (ms; median [min] of {reps} runs)\n")
    print("| program | DAO_EVERY / candidates | protocol | master | workers (each) | workers, sum | all threads, sum | max | gather | write |")
    print("|---|---:|---|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        n = r["name"]
        if not r["checkpoint_in_region"]:
            continue
        for p in PROTOCOLS:
            ss = stops[n][p]
            per = [med([s[i] for s in ss]) for i in range(r["threads"])]
            mas = [s[0] for s in ss]
            wsum = [sum(s[1:]) for s in ss]
            sums = [sum(s) for s in ss]
            mx = [max(s) for s in ss]
            g = [e["gather_s"] for e in cpev[n][p]]
            w = [e["write_s"] for e in cpev[n][p]]
            print(f"| {n} | {r['every']} / {r['candidates']} | {p} | {ms(med(mas))} [{ms(min(mas))}] | "
                  f"{' / '.join(ms(x) for x in per[1:])} | {ms(med(wsum))} [{ms(min(wsum))}] | "
                  f"{ms(med(sums))} [{ms(min(sums))}] | {ms(med(mx))} [{ms(min(mx))}] | {ms(med(g))} | {ms(med(w))} |")
        sb = med([sum(s) for s in stops[n]["blocking"]])
        sn = med([sum(s) for s in stops[n]["nonblocking"]])
        wb = med([sum(s[1:]) for s in stops[n]["blocking"]])
        wn = med([sum(s[1:]) for s in stops[n]["nonblocking"]])
        r["summary_a"] = {"sum_ratio_nb_over_b": sn / sb if sb else None,
                          "workers_ratio_nb_over_b": wn / wb if wb else None}
    print("\nRatio non-blocking / blocking of the median summed stop time (all threads; workers only):")
    for r in rows:
        if "summary_a" in r:
            s = r["summary_a"]
            f = lambda x: "n/a" if x is None else f"{x:.2f}"
            print(f"- {r['name']}: {f(s['sum_ratio_nb_over_b'])}; workers {f(s['workers_ratio_nb_over_b'])}")
    noreg = [r for r in rows if not r["checkpoint_in_region"]]
    if noreg:
        print("\nNo candidate inside a parallel region (serial checkpoint, the protocol does not apply; "
              "master's collect + write, ms, median):")
        for r in noreg:
            for p in PROTOCOLS:
                ev = cpev[r["name"]][p]
                print(f"- {r['name']} DAO_PROTOCOL={p}: collect {ms(med([e['collect_s'] for e in ev]))}, "
                      f"write {ms(med([e['write_s'] for e in ev]))}, {med([e['file_bytes'] for e in ev]) / 1e6:.1f} MB")

    print(f"\n### (b) Wall time with one checkpoint vs none (s; median [min] of {reps}; overhead = median of per-rep differences)\n")
    print("| program | no DAO_DIR | one ckpt, blocking | overhead | one ckpt, non-blocking | overhead |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        w = raw[r["name"]]
        base = w["nocp"][: reps]
        cells = [f"{med(base):.3f} [{min(base):.3f}]"]
        for p in PROTOCOLS:
            x = w[f"cp-{p}"]
            d = [xi - bi for xi, bi in zip(x, base)]
            cells += [f"{med(x):.3f} [{min(x):.3f}]", f"{ms(med(d))} ms ({100 * med(d) / med(base):+.1f}%)"]
        print(f"| {r['name']} | " + " | ".join(cells) + " |")

    print("\n### (c) Guard overhead, no checkpoint (wall time, 2 threads, DAO_DIR unset)\n")
    print("| program | runs | clean s (median) | no guards / clean | guards / clean | guards / no guards |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if not r["c"]:
            continue
        tr = [t for t in ctrip[r["name"]] if len(t) == 3]

        def cell(num, den):
            x = [t[num] / t[den] for t in tr]
            lo, hi = quartiles(x)
            return f"{med(x):.4f} (IQR {lo:.4f}–{hi:.4f})"

        print(f"| {r['name']} | {len(tr)} | {med([t['clean'] for t in tr]):.3f} | {cell('noguards', 'clean')} | "
              f"{cell('guards', 'clean')} | {cell('guards', 'noguards')} |")
    if instr:
        print("\n### (c) Executed instructions (callgrind, OMP_NUM_THREADS=1, DAO_DIR unset)\n")
        print("In the executable itself (program + dao runtime; exact, equal between identical runs); "
              "all instructions in parentheses (libc/libomp included: libomp's start-up varies by ~0.1%).\n")
        print("| program | clean | no guards | guards | guards / no guards | guards / clean |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, v in instr.items():
            c, n, g = v["clean"], v["noguards"], v["guards"]
            print(f"| {name} | {c['exe']:,} ({c['total']:,}) | {n['exe']:,} ({n['total']:,}) | {g['exe']:,} ({g['total']:,}) | "
                  f"{g['exe'] / n['exe']:.5f} ({g['total'] / n['total']:.5f}) | {g['exe'] / c['exe']:.5f} ({g['total'] / c['total']:.5f}) |")
    if restart:
        print("\nRestart checks (killed right after the checkpoint, restarted, same digest): " +
              ", ".join(f"{k}: {'ok' if v else 'FAILED'}" for k, v in restart.items()))
    print(f"\n(total {elapsed:.0f} s; 1-minute load average at start {load0[0]:.2f}, after the repetitions "
          f"{min(loads):.2f}-{max(loads):.2f}, at end {load_end[0]:.2f})")


if __name__ == "__main__":
    main()
