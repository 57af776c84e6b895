#!/usr/bin/env python3
"""Checkpoint size on third-party NPB (issue #33): live / save-all at the
main-loop candidate, built through the codes' own makefiles.

Nothing third-party is in this repository: point the script at unpacked
trees fetched from public repositories, e.g.

  NPB 3.0 OpenMP C     (github edeiana/NPB3.0-omp-C):         --npb-c DIR
  NPB 3.3 OpenMP Fortran (github mbdevpl/nas-parallel-benchmarks,
                          folder NPB3.3-OMP):                  --npb-f DIR

For every benchmark the script copies the tree to a work folder, inserts
one marker at the top of the main loop (`dao_potential_checkpoint();`, in
Fortran `call dao_potential_checkpoint()` and `use dao`), writes
config/make.def (`dao cc -O3 -fopenmp`, `dao fc -O3 -fopenmp`; `--opt=-O2`
for another level) and runs
`make BENCH CLASS=W`. Then, at --threads threads:

1. compile time of `make` (wall), with the pass and with `--dao-no-pass`
   (the clean build through the same driver);
2. two profiling runs (`DAO_PROFILE`, nothing written): live and
   `DAO_SAVE=all`; the bytes a checkpoint would save at the marker's
   second instance (the steady state of the loop; the first when there is
   one), and the peak RSS of an uninterrupted run without DAO_ variables
   (/usr/bin/time);
3. with --restart: an uninterrupted run, then a run that checkpoints at
   every second candidate and dies after its first checkpoint
   (`DAO_CRASH_AFTER=1`), restarted with `DAO_DEAD=poison` (bytes the
   analysis declared dead are poisoned): the verification lines of the
   restarted run must equal the uninterrupted run's.

Prints a Markdown table, writes the raw numbers as JSON to --json.

Usage: python3 scripts/bench_thirdparty.py --npb-c /tmp/npb3 --npb-f
       /tmp/npb33/NPB3.3-OMP [--only bt,ft] [--threads 2] [--restart]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"
OPT = "-O3"

# (name, suite, make target, file, loop-line regex, unit-line regex for `use dao`)
BENCHES = [
    ("bt", "c", "BT", "BT/bt.c", r"^\s*for \(step = 1; step <= niter; step\+\+\) \{", None),
    ("sp", "c", "SP", "SP/sp.c", r"^\s*for \(step = 1; step <= niter; step\+\+\) \{", None),
    ("ft", "c", "FT", "FT/ft.c", r"^\s*for \(iter = 1; iter <= niter; iter\+\+\) \{", None),
    ("mg", "c", "MG", "MG/mg.c", r"^\s*for \( ?it = 1; it <= nit; it\+\+\) \{", None),
    ("cg", "c", "CG", "CG/cg.c", r"^\s*for \(it = 1; it <= NITER; it\+\+\) \{", None),
    ("lu", "c", "LU", "LU/lu.c", r"^\s*for \(istep = 1; istep <= itmax; istep\+\+\) \{", None),
    ("bt_f", "f", "BT", "BT/bt.f", r"^\s+do\s+step\s*=\s*1\s*,\s*niter\s*$", r"^\s+program\s+BT"),
    ("sp_f", "f", "SP", "SP/sp.f", r"^\s+do\s+step\s*=\s*1\s*,\s*niter\s*$", r"^\s+program\s+SP"),
    ("ft_f", "f", "FT", "FT/ft.f", r"^\s+do\s+iter\s*=\s*1\s*,\s*niter\s*$", r"^\s+program\s+ft"),
    ("mg_f", "f", "MG", "MG/mg.f", r"^\s+do\s+it\s*=\s*1\s*,\s*nit\s*$", r"^\s+program\s+mg"),
    ("cg_f", "f", "CG", "CG/cg.f", r"^\s+do\s+it\s*=\s*1\s*,\s*niter\s*$", r"^\s+program\s+cg"),
    ("lu_f", "f", "LU", "LU/ssor.f", r"^\s+do\s+istep\s*=\s*1\s*,\s*niter\s*$", r"^\s+subroutine\s+ssor"),
]
# lines that change from run to run
TIMING = re.compile(r"(Time in seconds|Mop/s|Time|time|Compile date|Run date|Completed|RAND|Total threads|Avail threads|Number of available threads|Iterations)", re.I)


def mark(path, loop_re, unit_re, lang):
    text = path.read_text(errors="replace").splitlines(keepends=True)
    if any("dao_potential_checkpoint" in l for l in text):
        return
    out, marked, used = [], False, unit_re is None
    for l in text:
        out.append(l)
        if not used and re.match(unit_re, l, re.I):
            out.append("      use dao\n")
            used = True
        elif not marked and re.match(loop_re, l):
            out.append("         call dao_potential_checkpoint()\n" if lang == "f" else "    dao_potential_checkpoint();\n")
            marked = True
    if not marked or not used:
        sys.exit(f"{path}: main loop not found (the marker goes at its top)")
    if lang == "c":
        out.insert(0, '#include "dao.h"\n')
    path.write_text("".join(out))


def make_def(tree, lang, no_pass):
    flag = " --dao-no-pass" if no_pass else ""
    if lang == "c":
        d = f"CC = {DAO} cc{flag}\nCLINK = {DAO} cc{flag}\nC_LIB = -lm\nC_INC = -I../common\nCFLAGS = {OPT} -fopenmp\nCLINKFLAGS = {OPT} -fopenmp\nUCC = cc\nBINDIR = ../bin\nRAND = randdp\nWTIME = wtime.c\n"
    else:
        # NPB 3.4 names the compiler FC (3.3: F77); both are set
        d = f"F77 = {DAO} fc{flag}\nFC = {DAO} fc{flag}\nFLINK = {DAO} fc{flag}\nF_LIB =\nF_INC =\nFFLAGS = {OPT} -fopenmp\nFLINKFLAGS = {OPT} -fopenmp\nCC = cc -g\nCFLAGS = -O\nUCC = cc\nBINDIR = ../bin\nRAND = randi8\nWTIME = wtime.c\n"
    (tree / "config" / "make.def").write_text(d)


WHOLE = False


def build(tree, target, cls, lang, no_pass):
    make_def(tree, lang, no_pass)
    shutil.rmtree(tree / "bin", ignore_errors=True)
    (tree / "bin").mkdir()
    subprocess.run(["make", "-C", str(tree / target), "clean"], capture_output=True)
    # the shared objects too: built by another mode (bitcode or not, an
    # older pass) they would be linked as they are
    for o in (tree / "common").glob("*.o"):
        o.unlink()
    env = dict(os.environ)
    env.pop("DAO_WHOLE_PROGRAM", None)
    if WHOLE and not no_pass:
        env["DAO_WHOLE_PROGRAM"] = "1"
    t0 = time.perf_counter()
    # (NPB 3.4's makefiles need bash)
    r = subprocess.run(["make", target, f"CLASS={cls}", "SHELL=/bin/bash"], cwd=tree, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    exes = list((tree / "bin").glob(f"{target.lower()}.{cls}*"))
    if r.returncode != 0 or not exes:
        sys.exit(f"build of {target} failed in {tree}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return exes[0], dt, r.stderr


def run(exe, env, cwd):
    so, se = cwd / "stdout", cwd / "stderr"
    with open(so, "w") as fo, open(se, "w") as fe:
        child = subprocess.Popen([str(exe)], env=env, cwd=cwd, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(child.pid, 0)
    return os.waitstatus_to_exitcode(status), so.read_text(errors="replace"), se.read_text(errors="replace"), ru.ru_maxrss * 1024


def peak_rss(exe, env, cwd):
    """Peak resident set of a run, from /usr/bin/time (a child forked from
    this Python process starts with Python's high-water mark, so its own
    ru_maxrss is not the program's); None without /usr/bin/time."""
    if not Path("/usr/bin/time").exists():
        return None
    f = cwd / "rss"
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(f), str(exe)], env=env, cwd=cwd, capture_output=True)
    return int(f.read_text().split()[-1]) * 1024 if r.returncode == 0 else None


def verification(out):
    return [l for l in out.splitlines() if l.strip() and not TIMING.search(l)]


def profile(exe, threads, save_all, wd):
    prof = wd / f"prof-{int(save_all)}.json"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_PROFILE=str(prof))
    for k in ("DAO_DIR", "DAO_SAVE", "DAO_EVERY"):
        env.pop(k, None)
    if save_all:
        env["DAO_SAVE"] = "all"
    rc, out, err, rss = run(exe, env, wd)
    if rc != 0:
        sys.exit(f"profiling run of {exe} failed ({rc}):\n{err[-2000:]}")
    p = json.loads(prof.read_text())
    inst = [i for i in p["instances"]]
    if not inst:
        sys.exit(f"{exe}: the profile has no candidate instance")
    i = inst[1] if len(inst) > 1 else inst[0]
    sh = i["shared"]
    priv = sum(t.get("slots", 0) + t.get("stack", 0) + t.get("tls", 0) for t in i["threads"])
    return sh["globals"] + sh["heap"] + priv, i["site"], rss, out


def restart_check(exe, threads, wd, clean_out):
    d = wd / "ckpt"
    shutil.rmtree(d, ignore_errors=True)
    base = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_DIR=str(d), DAO_DEAD="poison")
    for k in ("DAO_PROFILE", "DAO_SAVE"):
        base.pop(k, None)
    rc1, _, err1, _ = run(exe, dict(base, DAO_EVERY="2", DAO_CRASH_AFTER="1"), wd)
    if rc1 == 0:
        return f"did not crash (no checkpoint taken?): {err1[-300:]}"
    rc2, out2, err2, _ = run(exe, base, wd)
    if rc2 != 0:
        return f"restart failed ({rc2}): {err2[-500:]}"
    a, b = verification(clean_out), verification(out2)
    # the restarted run prints only what comes after the checkpoint: its
    # verification lines must be the tail of the clean run's
    if a[-len(b):] != b or not b:
        diff = [(x, y) for x, y in zip(a[-len(b):], b) if x != y][:3]
        return f"WRONG: verification differs: {diff}"
    return "ok"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npb-c")
    ap.add_argument("--npb-f")
    ap.add_argument("--only")
    ap.add_argument("--cls", default="W")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--restart", action="store_true")
    ap.add_argument("--no-clean-build", action="store_true", help="skip the --dao-no-pass build (compile time)")
    ap.add_argument("--json")
    ap.add_argument("--work")
    ap.add_argument("--whole-program", action="store_true", help="build with DAO_WHOLE_PROGRAM=1 (the pass at the link, on all files)")
    ap.add_argument("--opt", default="-O3", help="the optimisation level of make.def (the codes' own: -O3)")
    ap.add_argument("--dao", help="the dao driver to build with (default: this checkout's target/release/dao)")
    a = ap.parse_args()
    global WHOLE
    WHOLE = a.whole_program
    global DAO, OPT
    OPT = a.opt
    if a.dao:
        DAO = Path(a.dao).resolve()
    if not DAO.exists():
        sys.exit("build the tools first: cargo build --release -p dao-driver -p dao-pass -p dao-runtime")
    work = Path(a.work or tempfile.mkdtemp(prefix="dao-thirdparty-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, lang, target, file, loop_re, unit_re in BENCHES:
        if a.only and name not in a.only.split(","):
            continue
        src = a.npb_c if lang == "c" else a.npb_f
        if not src:
            continue
        tree = work / f"tree-{lang}"
        if not tree.exists():
            shutil.copytree(src, tree, symlinks=True)
        mark(tree / file, loop_re, unit_re, lang)
        wd = work / name
        wd.mkdir(exist_ok=True)
        clean_s = None
        if not a.no_clean_build:
            _, clean_s, _ = build(tree, target, a.cls, lang, True)
        exe, dao_s, remarks = build(tree, target, a.cls, lang, False)
        exe = shutil.copy(exe, wd / exe.name)
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
        for k in [k for k in env if k.startswith("DAO_")]:
            env.pop(k)
        rc, out, err, rss = run(exe, env, wd)
        if rc != 0:
            sys.exit(f"{name}: the uninterrupted run failed ({rc}): {err[-1000:]}")
        rss = peak_rss(exe, env, wd)
        live, site, _, _ = profile(exe, a.threads, False, wd)
        full, _, _, out_all = profile(exe, a.threads, True, wd)
        if verification(out) != verification(out_all) or verification(out) != verification(profile(exe, a.threads, False, wd)[3]):
            sys.exit(f"{name}: the live and save-all runs print different results")
        row = {"bench": name, "class": a.cls, "threads": a.threads, "site": site, "live": live, "save_all": full,
               "ratio": live / full if full else None, "rss": rss, "make_s": dao_s, "make_clean_s": clean_s}
        if a.restart:
            row["restart"] = restart_check(exe, a.threads, wd, out)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    print("| code | candidate | live | save-all | live / save-all | RSS | make, dao cc/fc | make, --dao-no-pass |" + (" restart (poison) |" if a.restart else ""))
    print("|---|---|---:|---:|---:|---:|---:|---:|" + ("---|" if a.restart else ""))
    for r in rows:
        site = re.sub(r" \(([^)]*)\)", lambda m: " " + Path(m.group(1).split(":")[0]).name + ":" + m.group(1).split(":")[-1], r["site"])
        cl = f"{r['make_clean_s']:.1f} s" if r["make_clean_s"] else "-"
        rss = f"{r['rss'] / 1e6:.1f} MB" if r["rss"] else "-"
        print(f"| {r['bench']}.{r['class']} | {site} | {r['live'] / 1e6:.2f} MB | {r['save_all'] / 1e6:.2f} MB | {r['ratio']:.3f} | {rss} | {r['make_s']:.1f} s | {cl} |" + (f" {r['restart']} |" if a.restart else ""))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
