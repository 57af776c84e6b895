#!/usr/bin/env python3
"""campaign.py -- random kill/restart trials, to find wrong restarts.

Each trial picks a program of the test set, an optimisation level (-O0,
-O2), a thread count (1-4; OpenMP programs), a team protocol (nonblocking,
blocking), a background mode (DAO_ASYNC auto, wait, off, or `copy`:
DAO_ASYNC=wait DAO_SNAPSHOT=copy, the engine's staging copy), a storage
format (DAO_STORE engine, file) and a checkpoint frequency (DAO_EVERY),
then runs the instrumented program with DAO_DEAD=poison, kills it with
SIGKILL at a random time (or with DAO_CRASH_AFTER / DAO_CRASH_IN at a random
checkpoint), restarts it with the same DAO_DIR (killing the restarts too,
at random, up to three times), and compares the output appended across the
runs with the clean build's (`dao cc --dao-no-pass`) at the same thread
count. A trial is

  ok       the output equals the clean run's;
  wrong    every run ended (exit 0) but the output differs;
  crashed  a run died by a signal we did not send, exited non-zero, or hung.

Every failing trial keeps its directory (checkpoints, stdout, stderr,
DAO_STATS) under WORK/fail/; passing ones are removed. With --load N, N
processes spin on the CPU the whole time (a busy machine, as under a test
suite). Results are appended to WORK/trials.jsonl (one JSON object per
trial, so several campaigns, on several machines, can be merged) and
summarised as a table: trials, wrong, crashed and time per program and
mode.

Usage:
  python3 scripts/campaign.py build  [--work DIR] [--only REGEX]  # builds the programs
  python3 scripts/campaign.py run    [--work DIR] --trials N [--jobs J] [--load L] [--seed S]
                                     [--minutes M] [--only REGEX] [--protocol nonblocking|blocking]
  python3 scripts/campaign.py table  [--work DIR] [--markdown]

`build` needs dao (target/release/dao) and the compilers; `run` needs only
the built programs, so WORK can be copied to another machine of the same
system and run there. Not part of CI: it runs for hours. The offload
programs (`o_*`) need Debian's clang-tools-19 (the host offload device).
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, kind, source relative to the repo, args, DAO_EVERY range)
# kind: "seq" (sequential, thread count 1), "omp" (OpenMP, 1-4 threads)
PROGRAMS = [
    ("nb_stress", "omp", "test-programs/omp/c/nb_stress.c", ["60"], (1, 400)),
    ("nb_figure8", "omp", "test-programs/omp/c/nb_figure8.c", ["150"], (50, 3000)),
    ("nb_imbalance", "omp", "test-programs/omp/c/nb_imbalance.c", ["60"], (500, 20000)),
    ("nb_early_exit", "omp", "test-programs/omp/c/nb_early_exit.c", ["30"], (200, 7000)),
    ("jacobi2d", "omp", "test-programs/omp/c/jacobi2d.c", ["280"], (20, 160)),
    ("heap_blocks", "omp", "test-programs/omp/c/heap_blocks.c", ["140"], (100, 1300)),
    # heap objects (issue #33): scratch blocks left out, the others saved
    ("heap_scratch", "omp", "test-programs/omp/c/heap_scratch.c", ["60", "8192"], (1, 6)),
    ("heap_flat", "omp", "test-programs/omp/c/heap_flat.c", ["60", "96", "80"], (1, 6)),
    # loop extents through parameters and captures (issue #33; at -O0 a
    # parameter kept in a stack slot): dead arrays under run-time conditions
    ("blocked_rows", "omp", "test-programs/omp/c/blocked_rows.c", ["40"], (1, 8)),
    ("padded_extents", "omp", "test-programs/omp/c/padded_extents.c", ["40"], (1, 8)),
    ("reduction_sum", "omp", "test-programs/omp/c/reduction_sum.c", ["40"], (100, 1900)),
    ("markers_in_and_between", "omp", "test-programs/omp/c/markers_in_and_between.c", ["150"], (100, 900)),
    ("single_copyprivate", "omp", "test-programs/omp/c/single_copyprivate.c", ["100"], (100, 1100)),
    ("sections_bt3", "omp", "test-programs/omp/c/sections_bt3.c", ["40"], (1, 5)),
    ("f_timestep_barrier", "omp", "test-programs/omp/fortran/timestep_barrier.f90", ["650"], (40, 450)),
    ("f_tp_common_solver", "omp", "test-programs/omp/fortran/tp_common_solver.f90", ["250"], (200, 2600)),
    ("t_nowait_marker", "omp", "test-programs/tasks/c/nowait_marker.c", ["40"], (1, 6)),
    ("t_single_taskwait", "omp", "test-programs/tasks/c/single_taskwait.c", ["40"], (1, 6)),
    ("t_tasks_mix", "omp", "test-programs/tasks/c/tasks_mix.c", ["40"], (1, 6)),
    # variable-size stack allocations moved to the heap (to_heap.rs);
    # vla_stack prints before its first checkpoint (the start record)
    ("vla_private", "omp", "test-programs/omp/c/vla_private.c", ["40", "400"], (20, 200)),
    ("vla_stack", "seq", "test-programs/c/vla_stack.c", ["20000", "100"], (40, 400)),
    ("f_automatic_arrays", "seq", "test-programs/fortran/automatic_arrays.f90", ["1000000", "60"], (1, 8)),
    ("hash_table", "seq", "test-programs/c/hash_table.c", ["40000"], (5, 30)),
    ("linked_list", "seq", "test-programs/c/linked_list.c", ["6000"], (3, 14)),
    ("globals_statics", "seq", "test-programs/c/globals_statics.c", ["100000"], (2000, 9000)),
    ("f_module_vars", "seq", "test-programs/fortran/module_vars.f90", ["600000"], (1000, 4000)),
    # OpenMP offload on the host offload device (issue #35; the kind adds
    # -fopenmp-targets=x86_64-pc-linux-gnu): device liveness's shapes
    ("o_dead_device", "offload", "test-programs/offload/dead_device.c", ["120"], (3, 30)),
    ("o_heap_device", "offload", "test-programs/offload/heap_device.c", ["120"], (3, 30)),
    ("o_inputs", "offload", "test-programs/offload/inputs.c", ["120"], (3, 30)),
    ("o_callees", "offload", "test-programs/offload/callees.c", ["120"], (3, 30)),
    ("o_param_read", "offload", "test-programs/offload/param_read.c", ["60"], (3, 15)),
    ("o_parallel_for", "offload", "test-programs/offload/parallel_for.c", ["120"], (3, 30)),
    ("o_unstructured", "offload", "test-programs/offload/unstructured.c", ["150"], (3, 30)),
]

PROTOCOLS = ["nonblocking", "blocking"]
PROTOCOLS_USED = PROTOCOLS
ASYNC = ["auto", "wait", "off", "copy"]
STORES = ["engine", "file"]
OPTS = ["-O0", "-O2"]


def dao():
    return os.path.join(REPO, "target", "release", "dao")


def exe_path(work, name, opt, variant):
    return os.path.join(work, "bin", f"{name}{opt}.{variant}")


def build(work, only=None):
    os.makedirs(os.path.join(work, "bin"), exist_ok=True)
    for name, kind, src, _, _ in PROGRAMS:
        if only and not re.search(only, name):
            continue
        fortran = src.endswith(".f90")
        for opt in OPTS:
            for variant in ("clean", "inst"):
                out = exe_path(work, name, opt, variant)
                bdir = os.path.join(work, "build", f"{name}{opt}.{variant}")
                os.makedirs(bdir, exist_ok=True)
                cmd = [dao(), "fc" if fortran else "cc", opt]
                if variant == "clean":
                    cmd.append("--dao-no-pass")
                if kind in ("omp", "offload"):
                    cmd.append("-fopenmp")
                if kind == "offload":
                    cmd.append("-fopenmp-targets=x86_64-pc-linux-gnu")
                cmd += [os.path.join(REPO, src), "-o", out]
                if not fortran:
                    cmd.append("-lm")
                r = subprocess.run(cmd, cwd=bdir, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"campaign: build failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
        print(f"campaign: built {name}", flush=True)


def has_checkpoint(d):
    try:
        return any((n.startswith("ckpt.") and n.endswith(".dao")) or (n.startswith("store.") and n.endswith(".dst")) for n in os.listdir(d))
    except OSError:
        return False


def run_once(cmd, env, stdout_path, stderr_path, kill_after=None, limit=120.0):
    """Runs cmd, stdout appended to stdout_path. With kill_after, SIGKILLs it
    that many seconds after DAO_DIR first holds a committed checkpoint (as
    the test harness's random kill: a kill before any checkpoint would make
    the restart start over after output already written). Returns (status,
    elapsed, killed_by_us): status is the exit code, -signal, or "hang"."""
    t0 = time.monotonic()
    with open(stdout_path, "ab") as out, open(stderr_path, "ab") as err:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, start_new_session=True)
        killed = False
        armed = None
        while p.poll() is None:
            now = time.monotonic()
            if now - t0 > limit:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return ("hang", now - t0, False)
            if kill_after is not None:
                if armed is None and has_checkpoint(env["DAO_DIR"]):
                    armed = now
                if armed is not None and now - armed >= kill_after:
                    os.killpg(p.pid, signal.SIGKILL)
                    killed = True
                    p.wait()
                    break
            time.sleep(0.001)
    return (p.returncode, time.monotonic() - t0, killed)


REF_LOCK = threading.Lock()


def reference(work, name, opt, threads, args):
    """The clean output at this thread count (cached; made once, under a
    lock, by the first trial that needs it)."""
    ref = os.path.join(work, "ref", f"{name}{opt}.t{threads}.stdout")
    with REF_LOCK:
        return make_reference(work, name, opt, threads, args, ref)


def make_reference(work, name, opt, threads, args, ref):
    if not os.path.exists(ref + ".time"):
        os.makedirs(os.path.dirname(ref), exist_ok=True)
        tmp = ref + f".{os.getpid()}.{random.random()}"
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        st, el, _ = run_once([exe_path(work, name, opt, "clean")] + args, env, tmp, os.devnull)
        if st != 0:
            sys.exit(f"campaign: clean run of {name}{opt} t={threads} failed: {st}")
        os.replace(tmp, ref)
        with open(ref + ".time.tmp", "w") as f:
            f.write(str(el))
        os.replace(ref + ".time.tmp", ref + ".time")
    with open(ref + ".time") as f:
        return ref, float(f.read())


def trial(work, k, rng):
    # nb_stress (the one wrong restart seen, issue #31) a third of the time
    weights = [len(PROGRAMS) // 2 if p[0] == "nb_stress" else 1 for p in PROGRAMS]
    name, kind, _, args, (lo, hi) = rng.choices(PROGRAMS, weights)[0]
    opt = rng.choice(OPTS)
    threads = rng.randint(1, 4) if kind in ("omp", "offload") else 1
    mode = {
        "protocol": rng.choice(PROTOCOLS_USED) if kind in ("omp", "offload") else "-",
        "async": rng.choice(ASYNC),
        "store": rng.choice(STORES),
        "every": rng.randint(lo, hi),
    }
    if mode["async"] == "copy":
        mode["store"] = "engine"  # the staging copy is the engine's
    ref, ref_time = reference(work, name, opt, threads, args)
    tdir = os.path.join(work, "trials", f"t{k}")
    shutil.rmtree(tdir, ignore_errors=True)
    os.makedirs(tdir)
    out = os.path.join(tdir, "stdout")
    err = os.path.join(tdir, "stderr")
    env = dict(os.environ)
    env.update({
        "OMP_NUM_THREADS": str(threads),
        "DAO_DIR": os.path.join(tdir, "ckpt"),
        "DAO_DEAD": "poison",
        "DAO_EVERY": str(mode["every"]),
        "DAO_ASYNC": "wait" if mode["async"] == "copy" else mode["async"],
        "DAO_STORE": mode["store"],
        "DAO_STATS": os.path.join(tdir, "stats"),
    })
    if mode["async"] == "copy":
        env["DAO_SNAPSHOT"] = "copy"
    if kind in ("omp", "offload"):
        env["DAO_PROTOCOL"] = mode["protocol"]
    exe = [exe_path(work, name, opt, "inst")] + args
    t0 = time.monotonic()
    runs = []
    verdict = "ok"
    how = rng.choice(["time", "time", "after", "in"])
    for attempt in range(8):
        e = dict(env)
        kill_after = None
        # the first run, and up to two restarts, are killed
        if attempt < 3 and (attempt == 0 or rng.random() < 0.4):
            if how == "after":
                e["DAO_CRASH_AFTER"] = str(rng.randint(1, 6))
            elif how == "in":
                # >= 2: a checkpoint to fall back to
                e["DAO_CRASH_IN"] = str(rng.randint(2, 6))
            else:
                kill_after = rng.uniform(0.0, 1.0) * max(ref_time, 0.05) * 2
        st, el, killed = run_once(exe, e, out, err, kill_after=kill_after)
        runs.append({"status": st, "killed": killed, "s": round(el, 3), "crash": e.get("DAO_CRASH_AFTER") or e.get("DAO_CRASH_IN")})
        if st == 0:
            break
        if killed and os.path.exists(os.path.join(env["DAO_DIR"], "finished")):
            # the kill came after the run had finished its work (the
            # runtime marks DAO_DIR finished at exit): nothing to restart
            # (dao run does not restart it either); the output must be
            # complete as it is
            runs[-1]["finished_first"] = True
            break
        if killed or (st == -signal.SIGKILL and ("DAO_CRASH_AFTER" in e or "DAO_CRASH_IN" in e)):
            continue
        verdict = "crashed"
        break
    else:
        verdict = "crashed"
    if verdict == "ok":
        with open(ref, "rb") as a, open(out, "rb") as b:
            if a.read() != b.read():
                verdict = "wrong"
    ran = set()
    try:
        for l in open(os.path.join(tdir, "stats")):
            m = re.search(r'"protocol":"(\w+)"', l)
            if m:
                ran.add(m.group(1))
    except OSError:
        pass
    rec = {"trial": k, "protocol_ran": sorted(ran), "program": name, "opt": opt, "threads": threads, **mode, "kill": how,
           "verdict": verdict, "runs": runs, "s": round(time.monotonic() - t0, 3), "host": os.uname().nodename}
    if verdict == "ok":
        shutil.rmtree(tdir, ignore_errors=True)
    else:
        keep = os.path.join(work, "fail", f"{name}{opt}-t{threads}-{k}")
        shutil.rmtree(keep, ignore_errors=True)
        os.makedirs(os.path.dirname(keep), exist_ok=True)
        shutil.move(tdir, keep)
        shutil.copy(ref, os.path.join(keep, "reference.stdout"))
        with open(os.path.join(keep, "trial.json"), "w") as f:
            json.dump(rec, f, indent=1)
        rec["kept"] = keep
    return rec


def spin():
    while True:
        pass


def run(work, trials, jobs, load, seed, minutes, only, protocol=None):
    global PROGRAMS, PROTOCOLS_USED
    if protocol:
        PROTOCOLS_USED = [protocol]
    if only:
        PROGRAMS = [p for p in PROGRAMS if re.search(only, p[0])]
    for name, _, _, _, _ in PROGRAMS:
        for opt in OPTS:
            if not os.path.exists(exe_path(work, name, opt, "inst")):
                sys.exit(f"campaign: {exe_path(work, name, opt, 'inst')} missing: run `campaign.py build` first")
    spinners = []
    for _ in range(load):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            spin()
        spinners.append(pid)
    seed = seed if seed is not None else random.randrange(1 << 30)
    print(f"campaign: seed {seed}, {trials} trials, {jobs} jobs, load {load}", flush=True)
    deadline = time.monotonic() + minutes * 60 if minutes else None
    log = open(os.path.join(work, "trials.jsonl"), "a")
    counts = {"ok": 0, "wrong": 0, "crashed": 0}

    def one(k):
        if deadline and time.monotonic() > deadline:
            return None
        try:
            return trial(work, k, random.Random(seed * 1000003 + k))
        except Exception as e:  # the harness's own failure: reported, not counted
            print(f"campaign: trial {k}: harness error: {e!r}", flush=True)
            return None

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for rec in pool.map(one, range(trials)):
                if rec is None:
                    continue
                counts[rec["verdict"]] += 1
                log.write(json.dumps(rec) + "\n")
                log.flush()
                if rec["verdict"] != "ok":
                    print(f"campaign: trial {rec['trial']} {rec['verdict']}: {rec['program']}{rec['opt']} t={rec['threads']} "
                          f"{rec['protocol']} async={rec['async']} store={rec['store']} every={rec['every']} kept in {rec['kept']}", flush=True)
                n = sum(counts.values())
                if n % 200 == 0:
                    print(f"campaign: {n} trials: {counts}", flush=True)
    finally:
        for pid in spinners:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    print(f"campaign: done: {counts}", flush=True)
    return counts


def table(work, markdown):
    rows = {}
    total = {"n": 0, "wrong": 0, "crashed": 0, "s": 0.0, "fin": 0}
    def add(key, r):
        row = rows.setdefault(key, {"n": 0, "wrong": 0, "crashed": 0, "s": 0.0, "O0": 0, "O2": 0, "t": set(), "fin": 0})
        row["n"] += 1
        if any(x.get("finished_first") for x in r["runs"]):
            row["fin"] += 1
        row[r["opt"][1:]] += 1
        row["t"].add(r["threads"])
        row["s"] += r["s"]
        if r["verdict"] in ("wrong", "crashed"):
            row[r["verdict"]] += 1

    for path in glob.glob(os.path.join(work, "trials*.jsonl")):
        for line in open(path):
            r = json.loads(line)
            add(("program", r["program"]), r)
            add(("mode", f"{r['protocol']} / async={r['async']} / store={r['store']}"), r)
            total["n"] += 1
            total["s"] += r["s"]
            total["fin"] += any(x.get("finished_first") for x in r["runs"])
            if r["verdict"] in ("wrong", "crashed"):
                total[r["verdict"]] += 1
    head = ["program / mode", "trials", "-O0", "-O2", "threads", "killed after finishing", "wrong", "crashed", "trial time (s)"]
    lines = []
    for (a, b), row in sorted(rows.items(), key=lambda kv: (kv[0][0] == "mode", kv[0])):
        label = b
        t = ",".join(str(x) for x in sorted(row["t"]))
        lines.append([label, str(row["n"]), str(row["O0"]), str(row["O2"]), t, str(row["fin"]), str(row["wrong"]), str(row["crashed"]), f"{row['s']:.0f}"])
    lines.append(["total", str(total["n"]), "", "", "", str(total["fin"]), str(total["wrong"]), str(total["crashed"]), f"{total['s']:.0f}"])
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        w = [max(len(x[i]) for x in lines + [head]) for i in range(len(head))]
        for l in [head] + lines:
            print("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(l)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["build", "run", "table"])
    ap.add_argument("--work", default="/tmp/dao-campaign")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--load", type=int, default=1)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--minutes", type=float)
    ap.add_argument("--only")
    ap.add_argument("--protocol", choices=PROTOCOLS, help="only this team protocol")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.what == "build":
        build(a.work, a.only)
    elif a.what == "run":
        c = run(a.work, a.trials, a.jobs, a.load, a.seed, a.minutes, a.only, a.protocol)
        sys.exit(1 if c["wrong"] or c["crashed"] else 0)
    else:
        table(a.work, a.markdown)


if __name__ == "__main__":
    main()
