#!/usr/bin/env python3
"""OpenMP benchmark (issue #3), side by side in one run, for every program of
test-programs/omp/c/*.c and test-programs/omp/fortran/*.f90:

1. Live bytes per role: checkpoints with OMP_NUM_THREADS=4 (DAO_EVERY chosen
   for about --ckpts checkpoints per run, and prime, so that its multiples
   do not all fall on the same marker of the outer loop), in DAO mode (live
   data) and in the save-everything mode (DAO_SAVE=all); per checkpoint the
   runtime's stats line gives the master's private bytes (its frames and
   thread-local values), the workers' (theirs), the shared bytes (globals
   and heap) and the resident memory at that moment. DAO_EVERY is
   deterministic, so the live and the save-all runs checkpoint at the same
   candidates: they are paired by sequence number.
2. Failure-free overhead with no checkpoint taken: clean build (markers
   compiled out) vs the instrumented build, (a) DAO_DIR unset, (b) DAO_DIR set
   with DAO_INTERVAL=1000000 (the policy is armed and never fires);
   interleaved repetitions at OMP_NUM_THREADS=2, median wall time. And the
   reproducible number: executed instructions under callgrind
   (OMP_NUM_THREADS=1) of the clean and the instrumented build (a). For C a
   third build, "marker kept" (clean, but each marker an empty volatile asm
   statement: the program's guard around the marker stays and the marker's
   position is an opaque point, with no dao code), splits the difference
   into the cost of where the markers are and the cost of dao's code. For
   each program above --explain-above: per-function differences
   (callgrind_annotate) and, unless --no-lines/--quick, the source lines
   with the largest differences (debug-info builds of the same source).
3. Checkpoint time with 1, 2 and 4 threads: median collect_s, write_s
   (serialise + write + fsync + rename + directory fsync) and file size per
   thread count, against a plain write + fsync + rename + directory fsync of
   the same number of bytes in the same directory right after the run.
   Every checkpointing run's output is compared with the clean run's.

Builds: instrumented `dao cc -fopenmp -O2 x.c -lm` / `dao fc -fopenmp -O2
x.f90`; clean C `clang-19 -fopenmp -O2 -DDAO_DISABLE -I runtime/include x.c
-lm`; clean Fortran `dao fc --dao-no-pass -fopenmp -O2 x.f90` (how the
repository builds its Fortran reference: `use dao` calls the markers, which
that build links as empty functions from driver/src/dao_stub.c).

Arguments: the "~0.1 s arg" column of test-programs/omp/README.md (times
--time-scale for the wall-time runs); its "master markers 1T / 4T" column
sets DAO_EVERY.

Usage: python3 scripts/bench_omp.py [--quick] [--reps N] [--ckpts K] [--only a,b]
Needs `cargo build --release` first and valgrind. Writes build/bench-results/omp.json (git-ignored)
(--json to change) and prints the markdown tables of docs/results.md.
Temporary files: build/bench-omp/ (checkpoint directories are removed after
each run).
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DAO = REPO / "target" / "release" / "dao"
INC = REPO / "runtime" / "include"
OMP = REPO / "test-programs" / "omp"
OUT = REPO / "build" / "bench-omp"
# "marker kept" C build: the clean build, but each marker is an empty
# volatile asm statement instead of nothing, so the compiler keeps the
# program's own guard around it (`if ((i & 4095) == 0) marker;`) and treats
# the marker's position as an opaque point (no vectorisation across it), with
# no dao code at all. clean -> marker kept: the cost of where the markers are;
# marker kept -> instrumented: the cost of dao's code.
GUARD_H = OUT / "marker_kept.h"
GUARD_SRC = """#include "dao.h"
#undef dao_potential_checkpoint
#define dao_potential_checkpoint() __asm__ __volatile__("")
"""


def total(e):
    return sum(e["bytes"].values())


def raw_write_fsync(nbytes, d, reps=5):
    """Median time of a plain write of nbytes into a new file of d + fsync +
    rename + directory fsync, what a checkpoint commit does around its
    bytes (the previous file is removed first, as the runtime prunes)."""
    d.mkdir(parents=True, exist_ok=True)
    data = os.urandom(min(nbytes, 1 << 20)) or b"x"
    w = []
    for k in range(reps):
        tmp, final = d / f".raw{k}.tmp", d / f"raw{k}.bin"
        t = time.perf_counter()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        left = nbytes
        while left > 0:
            left -= os.write(fd, data[: min(left, len(data))])
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, final)
        dfd = os.open(d, os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
        w.append(time.perf_counter() - t)
        if k > 0:
            (d / f"raw{k - 1}.bin").unlink()
    shutil.rmtree(d)
    return statistics.median(w)


def log(msg):
    print(f"[bench-omp {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sh(cmd, cwd=None):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return r


def readme_table():
    """{(lang, name): (arg, markers_1T, markers_4T)} from test-programs/omp/README.md."""
    rows, lang = {}, None
    for line in (OMP / "README.md").read_text().splitlines():
        if line.startswith("## "):
            lang = {"## c/": "c", "## fortran/": "fortran"}.get(line.strip())
            continue
        m = re.match(r"\|\s*`([a-z0-9_]+)`\s*\|", line)
        if lang and m:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            mk = re.match(r"(\d+)\s*/\s*(\d+)", cells[-1])
            if mk and cells[-2].isdigit():
                rows[(lang, m.group(1))] = (int(cells[-2]), int(mk.group(1)), int(mk.group(2)))
    return rows


def prime_at_least(n):
    """DAO_EVERY is made prime so that its multiples do not fall on the same
    marker of every outer iteration (a period that divides the number of
    markers per iteration would checkpoint at one site only)."""
    n = max(2, int(n))
    while any(n % k == 0 for k in range(2, int(n ** 0.5) + 1)):
        n += 1
    return n


def markers_at(m1, m4, t):
    """Markers thread 0 reaches with t threads, interpolated in 1/t between the
    README's 1-thread and 4-thread counts (exact at 1 and 4; serial programs
    have m1 == m4)."""
    return m4 + (m1 - m4) * (1 / t - 1 / 4) / (1 - 1 / 4)


def build(lang, name):
    src = OMP / lang / f"{name}.{'c' if lang == 'c' else 'f90'}"
    d = OUT / "bin" / f"{lang}-{name}"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    clean, instr, guard = d / f"{name}.clean", d / f"{name}.dao", d / f"{name}.guard"
    if lang == "c":
        sh([DAO, "cc", "-fopenmp", "-O2", src, "-o", instr, "-lm"], cwd=d)
        sh(["clang-19", "-fopenmp", "-O2", "-DDAO_DISABLE", f"-I{INC}", src, "-lm", "-o", clean], cwd=d)
        sh(["clang-19", "-fopenmp", "-O2", "-DDAO_DISABLE", f"-I{INC}", "-include", GUARD_H, src, "-lm", "-o", guard], cwd=d)
    else:  # cwd: flang writes the modules' .mod files there
        sh([DAO, "fc", "-fopenmp", "-O2", src, "-o", instr], cwd=d)
        sh([DAO, "fc", "--dao-no-pass", "-fopenmp", "-O2", src, "-o", clean], cwd=d)
        guard = None  # the clean Fortran build already calls the (empty) marker functions
    return clean, instr, guard


def run(binary, arg, env, capture=False, check=True):
    e = dict(os.environ)
    for k in [k for k in e if k.startswith("DAO_")]:
        del e[k]
    e.update(env)
    t = time.perf_counter()
    r = subprocess.run([str(binary), str(arg)], env=e, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if check and r.returncode != 0:
        raise RuntimeError(f"{binary} {arg} exited {r.returncode}: {r.stderr[-500:]}")
    return dt, r


# ---------- 2. overhead ----------

def wall_times(p, reps, scale):
    arg = p["arg"] * scale
    never = OUT / "never" / p["name"]
    variants = {"clean": (p["clean"], {}), "instr": (p["instr"], {}),
                "instr_policy": (p["instr"], {"DAO_DIR": str(never), "DAO_INTERVAL": "1000000"})}
    t = {k: [] for k in variants}
    keys = list(variants)
    for i in range(reps):
        for k in keys[i % 3:] + keys[: i % 3]:  # rotate the order: no variant always runs first
            b, env = variants[k]
            t[k].append(run(b, arg, {"OMP_NUM_THREADS": "2", **env})[0])
    shutil.rmtree(never, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in t.items()}
    return {"arg": arg, "threads": 2, "times_s": t, "median_s": med,
            "overhead": med["instr"] / med["clean"] - 1, "overhead_policy": med["instr_policy"] / med["clean"] - 1}


def callgrind(binary, arg, out_file):
    """Executed instructions of `binary arg` with one thread, on a copy without
    debug info (valgrind 3.19 cannot read clang-19's DWARF 5 in every binary);
    the callgrind profile is kept in out_file for callgrind_annotate."""
    stripped = Path(str(binary) + ".nodebug")
    sh(["objcopy", "--strip-debug", binary, stripped])
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAO_")}
    e["OMP_NUM_THREADS"] = "1"
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", str(stripped), str(arg)],
                       env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    raise RuntimeError(f"callgrind on {binary} failed: {r.stderr[-300:]}")


ANN = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?):(\S+)(?: \[(.*)\])?\s*$")


def per_function(out_file):
    """{function: (exclusive Ir, object basename)} from callgrind_annotate."""
    r = sh(["callgrind_annotate", "--threshold=100", "--inclusive=no", out_file])
    f = {}
    for line in r.stdout.splitlines():
        m = ANN.match(line)
        if m:
            ir, fn, obj = int(m.group(1).replace(",", "")), m.group(3), os.path.basename(m.group(4) or "")
            old = f.get(fn, (0, obj))
            f[fn] = (old[0] + ir, obj)
    return f


def explain(clean_prof, instr_prof, exe_name):
    """Where the instrumented build executes more instructions than the clean one:
    the program's own functions (inline hot path: frame push/pop, marker
    countdown, spills, code generation around the restart edges), functions
    only in the instrumented executable (the dao runtime: dao_omp_*, the
    heap, start-up), and the shared libraries (libomp, libc, ...)."""
    c, i = per_function(clean_prof), per_function(instr_prof)
    if "__dao_user_main" in i:  # the pass renames main and emits an adapter main calling dao_main
        i["main [dao adapter]"] = i.pop("main", (0, exe_name))
        i["main"] = i.pop("__dao_user_main")
    clean_exe_fns = {k for k, (_, o) in c.items() if o.startswith(exe_name)}
    cats = {"program code": 0, "dao runtime": 0, "shared libraries": 0}
    deltas = []
    for fn in set(c) | set(i):
        ci, co = c.get(fn, (0, ""))
        ii, io = i.get(fn, (0, ""))
        obj = io or co
        if obj.startswith(exe_name):
            cat = "program code" if fn in clean_exe_fns else "dao runtime"
        else:
            cat = "shared libraries"
        cats[cat] += ii - ci
        if ii != ci:
            deltas.append((ii - ci, fn, cat))
    deltas.sort(key=lambda x: -abs(x[0]))
    return {"by_category": cats, "top": [{"delta": d, "function": fn, "category": cat} for d, fn, cat in deltas[:8]]}


def line_costs(out_file, src):
    """{line number: (self Ir, source text)} of the source file `src` from
    callgrind_annotate's annotated source (calls from a line not included)."""
    r = sh(["callgrind_annotate", "--auto=yes", "--show-percs=no", "--context=1000000", out_file])
    lines, cur, n = {}, False, 0
    for l in r.stdout.splitlines():
        if l.startswith("-- Auto-annotated source:"):
            cur = "header" if Path(l.split(":", 1)[1].strip()).name == src.name else False
            n = 0
            continue
        if not cur:
            continue
        if cur == "header":  # a dashed line, "Ir", a blank line, then the source
            if l.strip() == "":
                cur = "body"
            continue
        m = re.match(r"^-- line (\d+) -+", l)
        if m:
            n = int(m.group(1)) - 1
            continue
        if "<counts for unidentified" in l:  # instructions without line information
            lines[0] = (int(l.split("<")[0].strip().replace(",", "") or 0), "(no line information)")
            cur = False
            continue
        if l.startswith("-----"):
            cur = False
            continue
        if re.match(r"^\s*[\d,]+\s+=>", l):
            continue
        m = re.match(r"^\s*([\d,]+|\.)  (.*)$", l)
        if m:
            n += 1
            lines[n] = (0 if m.group(1) == "." else int(m.group(1).replace(",", "")), m.group(2))
    return lines


def explain_lines(p):
    """Debug-info builds of the same source (line tables only, DWARF 4 so
    that valgrind reads them; code generation is unchanged) under callgrind
    with one thread: per-function and per-source-line differences. C: clean,
    marker kept, instrumented; Fortran: clean, instrumented."""
    d = OUT / "explain" / p["name"]
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    src = OMP / p["lang"] / f"{p['name']}.{'c' if p['lang'] == 'c' else 'f90'}"
    if p["lang"] == "c":
        g = ["-gdwarf-4", "-gline-tables-only"]
        base = ["clang-19", "-fopenmp", "-O2", *g, "-DDAO_DISABLE", f"-I{INC}"]
        builds = {"clean": base + [src, "-lm"], "kept": base + ["-include", GUARD_H, src, "-lm"],
                  "dao": [DAO, "cc", "-fopenmp", "-O2", *g, src, "-lm"]}
    else:
        builds = {"clean": [DAO, "fc", "--dao-no-pass", "-fopenmp", "-O2", src], "dao": [DAO, "fc", "-fopenmp", "-O2", src]}
    prof, lines, totals = {}, {}, {}
    for k, cmd in builds.items():
        exe = d / f"{p['name']}.{k}"
        sh(cmd + ["-o", exe], cwd=d)
        prof[k] = d / f"{k}.callgrind"
        e = {kk: v for kk, v in os.environ.items() if not kk.startswith("DAO_")}
        e["OMP_NUM_THREADS"] = "1"
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={prof[k]}", str(exe), str(p["arg"])],
                           env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        totals[k] = next((int(l.split(":")[-1].strip()) for l in r.stderr.splitlines() if "Collected :" in l), None)
        lines[k] = line_costs(prof[k], src)
    out = {"debug_build_totals": totals}

    def top(a_, b_, n=3):
        ks = set(lines[a_]) | set(lines[b_])
        diffs = [(lines[b_].get(k, (0, ""))[0] - lines[a_].get(k, (0, ""))[0], k,
                  (lines[b_].get(k) or lines[a_].get(k))[1].strip()) for k in ks]
        diffs = [x for x in diffs if x[0] != 0]
        diffs.sort(key=lambda x: -abs(x[0]))
        return [{"delta": dd, "line": k, "text": t} for dd, k, t in diffs[:n]]
    if "kept" in lines:
        out["lines_marker_position"] = top("clean", "kept")
        out["lines_dao_code"] = top("kept", "dao")
    else:
        out["lines_dao_code"] = top("clean", "dao")
    shutil.rmtree(d)
    return out


# ---------- 1 and 3. checkpoints ----------

def ckpt_run(p, threads, every, save_all, tag):
    d = OUT / "ck" / f"{p['name']}-{tag}"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    st = d / "stats.jsonl"
    env = {"OMP_NUM_THREADS": str(threads), "DAO_DIR": str(d / "ck"), "DAO_STATS": str(st), "DAO_EVERY": str(every)}
    if save_all:
        env["DAO_SAVE"] = "all"
    wall, r = run(p["instr"], p["arg"], env, capture=True, check=False)
    evs = [json.loads(l) for l in st.read_text().splitlines()] if st.exists() else []
    ck = [{k: v for k, v in e.items() if k != "file"} for e in evs if e.get("event") == "checkpoint"]
    out = {"threads": threads, "every": every, "save_all": save_all, "wall_s": wall, "rc": r.returncode, "checkpoints": ck,
           "output_ok": r.returncode == 0 and r.stdout == p["reference_out"], "warnings": [l for l in r.stderr.splitlines() if "dao:" in l][:5]}
    if ck and not save_all:
        nb = int(statistics.median([e["file_bytes"] for e in ck]))
        rw = raw_write_fsync(nb, d / "raw")
        out["raw_write_fsync_s"] = rw
        out["raw_bytes"] = nb
    shutil.rmtree(d, ignore_errors=True)
    return out


def roles(e):
    r = e["roles"]
    return {"master": r["master_frames"] + r["master_tls"], "workers": r["workers_frames"] + r["workers_tls"],
            "nworkers": r["workers"], "shared": r["shared"], "live": total(e), "rss": e["rss_bytes"]}


def summarise_roles(live_run, all_run):
    by_seq = {e["seq"]: e for e in all_run["checkpoints"]}
    rows = []
    for e in live_run["checkpoints"]:
        x = roles(e)
        a = by_seq.get(e["seq"])
        x["all"] = total(a) if a else None
        ra = roles(a) if a else {}
        x["all_master"], x["all_workers"], x["all_shared"] = ra.get("master"), ra.get("workers"), ra.get("shared")
        x["at"] = e["at"]
        x["threads"] = e["threads"]
        rows.append(x)
    if not rows:
        return None
    def med(k, rs=rows):
        v = [r[k] for r in rs if r[k] is not None]
        return statistics.median(v) if v else None
    inreg = [r for r in rows if r["nworkers"] > 0]
    s = {k: med(k) for k in ("master", "shared", "live", "rss", "all", "all_master", "all_workers", "all_shared")}
    # the workers' bytes over the checkpoints that have workers (inside a region)
    s["workers"] = med("workers", inreg) if inreg else None
    s["nworkers"] = med("nworkers", inreg) if inreg else 0
    s["per_worker"] = statistics.median([r["workers"] / r["nworkers"] for r in inreg]) if inreg else None
    s["n"] = len(rows)
    s["in_region"] = len(inreg)
    s["sites"] = len({r["at"] for r in rows})
    paired = [r for r in rows if r["all"]]
    s["live_over_all"] = statistics.median([r["live"] / r["all"] for r in paired]) if paired else None
    s["live_over_rss"] = statistics.median([r["live"] / r["rss"] for r in rows])
    s["rows"] = rows
    return s


def summarise_times(run_):
    ck = run_["checkpoints"]
    if not ck:
        return None
    m = lambda k: statistics.median([e[k] for e in ck])
    return {"n": len(ck), "in_region": sum(1 for e in ck if e["roles"]["workers"] > 0), "collect_s": m("collect_s"),
            "write_s": m("write_s"), "file_bytes": m("file_bytes"), "raw_write_fsync_s": run_.get("raw_write_fsync_s")}


def measure(p, a):
    res = {"program": p["label"], "arg": p["arg"]}
    # reference output at the checkpoint runs' argument
    _, r = run(p["clean"], p["arg"], {"OMP_NUM_THREADS": "4"}, capture=True)
    p["reference_out"] = r.stdout
    if "wall" in a.parts:
        res["wall"] = wall_times(p, a.reps, a.time_scale)
    if "instructions" in a.parts:
        cg = OUT / "cg"
        cg.mkdir(parents=True, exist_ok=True)
        fc, fi, fg = cg / f"{p['name']}.clean.out", cg / f"{p['name']}.dao.out", cg / f"{p['name']}.guard.out"
        ic = callgrind(p["clean"], p["arg"], fc)
        ii = callgrind(p["instr"], p["arg"], fi)
        ig = callgrind(p["guard"], p["arg"], fg) if p["guard"] else None
        res["instructions"] = {"arg": p["arg"], "clean": ic, "instr": ii, "overhead": ii / ic - 1, "marker_kept": ig}
        if ii / ic - 1 > a.explain_above:
            res["instructions"]["explain"] = explain(fc, fi, p["name"]) | ({} if a.no_lines else explain_lines(p))
        for f in (fc, fi, fg):
            if f.exists():
                f.unlink()
    if "checkpoints" not in a.parts:
        return res
    # checkpoints: 1, 2, 4 threads (live), 4 threads save-all; --ckpt-runs rounds
    res["runs"] = []
    for rnd in range(a.ckpt_runs):
        for t in (1, 2, 4):
            every = prime_at_least(markers_at(p["m1"], p["m4"], t) / (a.ckpts + 1))
            res["runs"].append(ckpt_run(p, t, every, False, f"t{t}-{rnd}"))
        every4 = prime_at_least(p["m4"] / (a.ckpts + 1))
        res["runs"].append(ckpt_run(p, 4, every4, True, f"t4all-{rnd}"))
    live4 = [x for x in res["runs"] if x["threads"] == 4 and not x["save_all"]]
    all4 = [x for x in res["runs"] if x["threads"] == 4 and x["save_all"]]
    merged_live = {"checkpoints": [dict(e, seq=(k, e["seq"])) for k, x in enumerate(live4) for e in x["checkpoints"]]}
    merged_all = {"checkpoints": [dict(e, seq=(k, e["seq"])) for k, x in enumerate(all4) for e in x["checkpoints"]]}
    res["roles"] = summarise_roles(merged_live, merged_all)
    res["times"] = {}
    for t in (1, 2, 4):
        rs = [x for x in res["runs"] if x["threads"] == t and not x["save_all"]]
        ck = [e for x in rs for e in x["checkpoints"]]
        raw = [x["raw_write_fsync_s"] for x in rs if "raw_write_fsync_s" in x]
        res["times"][t] = summarise_times({"checkpoints": ck, "raw_write_fsync_s": statistics.median(raw) if raw else None})
    res["output_ok"] = all(x["output_ok"] for x in res["runs"])
    # raw data, compact: one row of numbers per checkpoint (columns in the
    # file's "checkpoint_columns"), sites by index into res["sites"]
    res["sites"] = sorted({e["at"] for x in res["runs"] for e in x["checkpoints"]})
    for x in res["runs"]:
        x["checkpoints"] = [[e["seq"], res["sites"].index(e["at"]), e["threads"], *(roles(e)[k] for k in CK_COLS[3:8]),
                             e["file_bytes"], e["collect_s"], e["write_s"]] for e in x["checkpoints"]]
    if res["roles"]:
        res["roles"].pop("rows")
    return res


CK_COLS = ["seq", "site", "threads", "master", "workers", "shared", "live", "rss", "file_bytes", "collect_s", "write_s"]


def dump_json(obj):
    """Indented JSON with lists of numbers kept on one line."""
    text = json.dumps(obj, indent=1)
    num = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
    return re.sub(r"\[\s*(" + num + r"(?:,\s*" + num + r")*)\s*\]", lambda m: "[" + ", ".join(m.group(1).replace(",", " ").split()) + "]", text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and checkpoints (about 5 minutes)")
    ap.add_argument("--reps", type=int, help="wall-time repetitions per variant (default 11; quick 3)")
    ap.add_argument("--time-scale", type=int, help="argument multiplier for the wall-time runs (default 3; quick 1)")
    ap.add_argument("--ckpts", type=int, help="checkpoints aimed at per run (default 8; quick 5)")
    ap.add_argument("--ckpt-runs", type=int, help="runs per thread count and mode (default 2; quick 1)")
    ap.add_argument("--explain-above", type=float, default=0.01, help="instruction overhead above which the extra instructions are broken down (default 0.01)")
    ap.add_argument("--no-lines", action="store_true", help="no per-source-line breakdown of the extra instructions (implied by --quick)")
    ap.add_argument("--parts", default="wall,instructions,checkpoints", help="what to measure (default: wall,instructions,checkpoints)")
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--json", default=str(REPO / "build" / "bench-results" / "omp.json"))
    a = ap.parse_args()
    for k, full, quick in (("reps", 11, 3), ("time_scale", 3, 1), ("ckpts", 8, 5), ("ckpt_runs", 2, 1)):
        if getattr(a, k) is None:
            setattr(a, k, quick if a.quick else full)
    if a.quick:
        a.no_lines = True
    if not DAO.exists():
        sys.exit(f"{DAO} missing: run `cargo build --release` first")
    table = readme_table()
    progs = []
    for lang, ext in (("c", "c"), ("fortran", "f90")):
        for src in sorted((OMP / lang).glob(f"*.{ext}")):
            name = src.stem
            if a.only and name not in a.only.split(","):
                continue
            if (lang, name) not in table:
                log(f"{lang}/{name}: no row in test-programs/omp/README.md, skipped")
                continue
            arg, m1, m4 = table[(lang, name)]
            progs.append({"lang": lang, "name": name, "label": name if lang == "c" else f"{name} (F)",
                          "arg": arg, "m1": m1, "m4": m4})
    OUT.mkdir(parents=True, exist_ok=True)
    GUARD_H.write_text(GUARD_SRC)
    t0, load0 = time.time(), os.getloadavg()
    results, failed = [], []
    for p in progs:
        log(f"{p['label']}: build")
        try:
            p["clean"], p["instr"], p["guard"] = build(p["lang"], p["name"])
            log(f"{p['label']}: measure")
            results.append(measure(p, a))
        except Exception as e:  # one program's failure must not lose the others
            log(f"{p['label']}: FAILED: {e}")
            failed.append({"program": p["label"], "error": str(e)[:2000]})
    cmd = " ".join(["python3", "scripts/bench_omp.py", *sys.argv[1:]])
    out = {"command": cmd, "options": vars(a), "machine": os.uname().nodename, "nproc": os.cpu_count(),
           "loadavg_start": load0, "loadavg_end": os.getloadavg(), "elapsed_s": time.time() - t0,
           "tools": {t: subprocess.run([t, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
                     for t in ("clang-19", "flang-new-19", "valgrind")},
           "checkpoint_columns": CK_COLS, "results": results, "failed": failed}
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(dump_json(out))
    report(out, a)
    log(f"done in {time.time() - t0:.0f} s; raw data in {a.json}")


def report(out, a):
    res = out["results"]

    def kib(x):
        return "-" if x is None else f"{x / 1024:,.1f}"

    def b(x):
        return "-" if x is None else f"{x:,.0f}"

    def pct(x, d=1):
        return "-" if x is None else f"{100 * x:.{d}f}%"

    if any("roles" in r for r in res):
        print(f"\n### Live bytes per role at a checkpoint, 4 threads (medians over the checkpoints; workers: over those taken inside a region)\n")
        print("| program | checkpoints (with workers) | sites | master private B | workers private B (per worker) | shared KiB | DAO live KiB | save-all KiB | live/save-all | RSS KiB | live/RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in [r for r in res if "roles" in r]:
        s = r["roles"]
        if not s:
            print(f"| {r['program']} | 0 | | | | | | | | | |")
            continue
        print(f"| {r['program']} | {s['n']} ({s['in_region']}) | {s['sites']} | {b(s['master'])} | {b(s['workers'])} ({b(s['per_worker'])}) | "
              f"{kib(s['shared'])} | {kib(s['live'])} | {kib(s['all'])} | {pct(s['live_over_all'])} | {kib(s['rss'])} | {pct(s['live_over_rss'], 2)} |")

    wres = [r for r in res if "wall" in r]
    if wres:
        print(f"\n### Failure-free overhead, wall time (OMP_NUM_THREADS=2, median of {a.reps} interleaved runs, argument x{a.time_scale})\n")
        print("| program | arg | clean s | instrumented s | overhead | + policy armed s | overhead |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    for r in wres:
        w = r["wall"]
        m = w["median_s"]
        print(f"| {r['program']} | {w['arg']} | {m['clean']:.3f} | {m['instr']:.3f} | {100 * w['overhead']:+.1f}% | "
              f"{m['instr_policy']:.3f} | {100 * w['overhead_policy']:+.1f}% |")
    if wres:
        g1 = statistics.geometric_mean([1 + r["wall"]["overhead"] for r in wres]) - 1
        g2 = statistics.geometric_mean([1 + r["wall"]["overhead_policy"] for r in wres]) - 1
        print(f"| **geometric mean** | | | | **{100 * g1:+.2f}%** | | **{100 * g2:+.2f}%** |")

    rows = [r for r in res if r.get("instructions")]
    if rows:
        print("\n### Failure-free overhead, executed instructions (callgrind, OMP_NUM_THREADS=1, DAO_DIR unset)\n")
        print("| program | arg | clean | instrumented | overhead | marker kept (no dao) | of which: marker position | dao code |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            i = r["instructions"]
            g = i.get("marker_kept")
            kept = "-" if g is None else f"{g:,}"
            pos = "-" if g is None else f"{100 * (g - i['clean']) / i['clean']:+.2f}%"
            dao = "-" if g is None else f"{100 * (i['instr'] - g) / i['clean']:+.2f}%"
            print(f"| {r['program']} | {i['arg']} | {i['clean']:,} | {i['instr']:,} | {100 * i['overhead']:+.2f}% | {kept} | {pos} | {dao} |")
        g = statistics.geometric_mean([1 + r["instructions"]["overhead"] for r in rows]) - 1
        print(f"| **geometric mean** | | | | **{100 * g:+.2f}%** | | | |")
        ex = [r for r in rows if r["instructions"].get("explain")]
        if ex:
            print(f"\n### Where the extra instructions are (programs above {100 * a.explain_above:.0f}%; instrumented - clean, % of the clean total)\n")
            print("| program | program code | dao runtime | shared libraries | largest differences (function: instructions) |")
            print("|---|---:|---:|---:|---|")
            for r in ex:
                i = r["instructions"]
                e = i["explain"]
                c = e["by_category"]
                top = "; ".join(f"`{t['function']}` {t['delta']:+,}" for t in e["top"][:3])
                print(f"| {r['program']} | {100 * c['program code'] / i['clean']:+.2f}% | {100 * c['dao runtime'] / i['clean']:+.2f}% | "
                      f"{100 * c['shared libraries'] / i['clean']:+.2f}% | {top} |")
            if a.no_lines:
                ex = []
            else:
                print("\nSource lines with the largest differences (callgrind, debug-info builds, 1 thread; "
                      "C: clean -> marker kept = the marker's position, marker kept -> instrumented = dao's code; Fortran: clean -> instrumented):\n")
                print("| program | step | line: instructions, source |")
                print("|---|---|---|")

            def cell(ls):
                return "<br>".join(f"{x['line']}: {x['delta']:+,} `{x['text'][:60].replace('|', '/')}`" for x in ls) or "-"
            for r in ex:
                e = r["instructions"]["explain"]
                if "lines_marker_position" in e:
                    print(f"| {r['program']} | marker position | {cell(e['lines_marker_position'])} |")
                print(f"| {r['program']} | dao code | {cell(e['lines_dao_code'])} |")

    if any("times" in r for r in res):
        print("\n### Checkpoint time with 1, 2, 4 threads (median over the checkpoints; raw = plain write + fsync + rename + directory fsync of the same number of bytes, same directory)\n")
        print("| program | threads | checkpoints (with workers) | file KiB | collect ms | write ms | raw write+fsync ms | write/raw |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in [r for r in res if "times" in r]:
        for t in ("1", "2", "4"):
            s = r["times"].get(t) or r["times"].get(int(t))
            if not s:
                print(f"| {r['program']} | {t} | 0 | | | | | |")
                continue
            raw = s["raw_write_fsync_s"]
            raw_ms = "-" if raw is None else f"{1000 * raw:.2f}"
            ratio = "-" if not raw else f"{s['write_s'] / raw:.2f}"
            print(f"| {r['program']} | {t} | {s['n']} ({s['in_region']}) | {kib(s['file_bytes'])} | {1000 * s['collect_s']:.2f} | "
                  f"{1000 * s['write_s']:.2f} | {raw_ms} | {ratio} |")
    bad = [r["program"] for r in res if not r.get("output_ok", True)]
    if bad:
        print(f"\nOutput of a checkpointing run differed from the clean run's: {', '.join(bad)}")
    for f in out["failed"]:
        print(f"\nFAILED: {f['program']}: {f['error'].splitlines()[0] if f['error'] else ''}")


if __name__ == "__main__":
    main()
