#!/usr/bin/env python3
"""Heap objects (issue #33, item 3): the bytes a checkpoint saves with the
pass's heap objects against save-all, on third-party code and our own.

Nothing third-party is in this repository: point the script at an
unpacked Rodinia tree (github yuhc/gpu-rodinia, folder `openmp`), fetched
from its public repository:

  python3 scripts/bench_heap.py --rodinia /tmp/rodinia/openmp [--opt=-O2] [--threads 2]

Per program (Rodinia's SRAD v2 with one marker at the top of its iteration
loop, built with -DOUTPUT so that it prints its final image; our
test-programs/omp/c/heap_scratch.c and heap_flat.c):

1. two profiling runs (`DAO_PROFILE`, nothing written): the default and
   `DAO_SAVE=all`; the bytes of the marker's second instance (globals,
   heap, and the heap left out, `heap_dead`), and the peak RSS of an
   uninterrupted run (/usr/bin/time);
2. a run that checkpoints at every second candidate and dies after its
   second checkpoint (`DAO_CRASH_AFTER=2`), restarted with
   `DAO_DEAD=poison` (every byte left out filled with 0xff, heap blocks
   included): its output appended to the killed run's must equal the
   clean build's (`dao cc --dao-no-pass`).

Prints a Markdown table and writes the raw numbers as JSON to --json.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAO = ROOT / "target" / "release" / "dao"


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def prepare_srad(rodinia, work):
    src = Path(rodinia) / "srad" / "srad_v2" / "srad.cpp"
    if not src.exists():
        sys.exit(f"{src}: not found (--rodinia is the `openmp` folder of a Rodinia tree)")
    text = src.read_text()
    loop = "for (iter=0; iter< niter; iter++){"
    if loop not in text:
        sys.exit(f"{src}: its iteration loop `{loop}` not found")
    text = '#include "dao.h"\n' + text.replace(loop, loop + " dao_potential_checkpoint();", 1)
    out = work / "srad.cpp"
    out.write_text(text)
    return out


def build(subcommand, src, flags, out, no_pass):
    cmd = [str(DAO), subcommand] + (["--dao-no-pass"] if no_pass else []) + flags + [str(src), "-o", str(out)]
    sh(cmd)
    return out


def run(exe, args, env, cwd, stdout):
    with open(stdout, "a") as fo:
        p = subprocess.run([str(exe)] + args, env=env, cwd=cwd, stdout=fo, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


def profile(exe, args, threads, save_all, wd):
    prof = wd / f"prof-{int(save_all)}.json"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_PROFILE=str(prof))
    for k in ("DAO_DIR", "DAO_SAVE", "DAO_EVERY"):
        env.pop(k, None)
    if save_all:
        env["DAO_SAVE"] = "all"
    rc, err = run(exe, args, env, wd, wd / "profile.out")
    if rc != 0:
        sys.exit(f"profiling run of {exe} failed ({rc}):\n{err[-2000:]}")
    inst = json.loads(prof.read_text())["instances"]
    i = inst[1] if len(inst) > 1 else inst[0]
    sh_ = i["shared"]
    priv = sum(t.get("slots", 0) + t.get("stack", 0) + t.get("tls", 0) for t in i["threads"])
    return {"site": i["site"], "globals": sh_["globals"], "heap": sh_["heap"], "heap_dead": sh_.get("heap_dead", 0), "total": sh_["globals"] + sh_["heap"] + priv}


def peak_rss(exe, args, threads, wd):
    if not Path("/usr/bin/time").exists():
        return None
    f = wd / "rss"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(f), str(exe)] + args, env=env, cwd=wd, capture_output=True)
    return int(f.read_text().split()[-1]) * 1024 if r.returncode == 0 else None


def restart_check(inst, clean, args, threads, wd):
    ref = wd / "clean.out"
    ref.unlink(missing_ok=True)
    rc, err = run(clean, args, dict(os.environ, OMP_NUM_THREADS=str(threads)), wd, ref)
    if rc != 0:
        return f"clean run failed ({rc})"
    d = wd / "ckpt"
    shutil.rmtree(d, ignore_errors=True)
    out = wd / "restart.out"
    out.unlink(missing_ok=True)
    base = dict(os.environ, OMP_NUM_THREADS=str(threads), DAO_DIR=str(d), DAO_DEAD="poison")
    for k in ("DAO_PROFILE", "DAO_SAVE"):
        base.pop(k, None)
    rc1, err1 = run(inst, args, dict(base, DAO_EVERY="2", DAO_CRASH_AFTER="2"), wd, out)
    if rc1 == 0:
        return f"did not crash (no checkpoint taken?): {err1[-300:]}"
    rc2, err2 = run(inst, args, base, wd, out)
    if rc2 != 0:
        return f"restart failed ({rc2}): {err2[-500:]}"
    if "dao: resuming" not in err2:
        return "the restart did not resume"
    return "ok" if ref.read_bytes() == out.read_bytes() else "WRONG: the output differs from the clean run's"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rodinia", help="the `openmp` folder of a Rodinia tree (github yuhc/gpu-rodinia)")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--work")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="dao-heap-"))
    work.mkdir(parents=True, exist_ok=True)
    progs = []
    if a.rodinia:
        wd = work / "srad"
        wd.mkdir(exist_ok=True)
        src = prepare_srad(a.rodinia, wd)
        progs.append(("Rodinia SRAD v2 (512 x 512, 10 iterations)", "c++", src, ["-DOUTPUT"], ["512", "512", "0", "127", "0", "127", str(a.threads), "0.5", "10"], wd))
    for name, args in (("heap_scratch", ["30", "262144"]), ("heap_flat", ["30", "512", "512"])):
        wd = work / name
        wd.mkdir(exist_ok=True)
        progs.append((f"{name}.c (ours)", "cc", ROOT / "test-programs" / "omp" / "c" / f"{name}.c", [], args, wd))
    rows = []
    for label, sub, src, extra, args, wd in progs:
        flags = [a.opt, "-fopenmp"] + extra
        inst = build(sub, src, flags, wd / "inst", False)
        clean = build(sub, src, flags, wd / "clean", True)
        live = profile(inst, args, a.threads, False, wd)
        allp = profile(inst, args, a.threads, True, wd)
        rss = peak_rss(clean, args, a.threads, wd)
        rs = restart_check(inst, clean, args, a.threads, wd)
        row = {"program": label, "opt": a.opt, "threads": a.threads, "site": live["site"], "live": live, "save_all": allp, "ratio": live["total"] / allp["total"], "heap_ratio": live["heap"] / max(allp["heap"], 1), "rss": rss, "restart": rs}
        print(json.dumps(row), flush=True)
        rows.append(row)
    mb = lambda b: f"{b / 1e6:.2f} MB"
    print(f"\n| program | candidate | heap saved | heap left out | save-all heap | live / save-all (all bytes) | RSS | restart (poison) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['program']} {r['opt']} | {r['site']} | {mb(r['live']['heap'])} | {mb(r['live']['heap_dead'])} | {mb(r['save_all']['heap'])} | {r['ratio']:.3f} | {mb(r['rss']) if r['rss'] else '-'} | {r['restart']} |")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
