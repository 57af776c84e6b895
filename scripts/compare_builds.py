#!/usr/bin/env python3
"""compare_builds.py -- the same programs built by two dao installations,
side by side: does a change of the pass or the runtime keep behaviour?

For each program (C, Fortran, OpenMP, an NPB port), built at -O2 with
`--base` dao and with `--new` dao:
  * failure-free cost: executed instructions under callgrind with no
    checkpointing (DAO_DIR unset), 1 thread; the ratio new/base;
  * checkpoints: one run of each with DAO_DIR, DAO_EVERY=k, 1 thread
    (deterministic), every checkpoint file compared byte by byte after
    masking the header fields that differ between any two runs or two
    executables (binary hash and size, run id, pid, time, checksums) and
    the bytes that differ between two runs of the base executable; a
    remaining difference must be a 64-bit word whose values differ by the
    distance some data or function symbol moved between the two executables (nm: the
    statically linked runtime changed size, so the program's globals
    moved), else it is reported;
  * stdout of both runs identical.

Example (the baseline a worktree of the old commit, built there):
  git worktree add /tmp/base <old commit> && (cd /tmp/base && cargo build --release -p dao-driver -p dao-pass -p dao-runtime)
  python3 scripts/compare_builds.py --base /tmp/base/target/release/dao --new target/release/dao
Exit 1 when a checkpoint or output differs otherwise than by a shift.
"""
import argparse, os, re, shutil, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# name, sources, language tool, flags, argument, DAO_EVERY
PROGRAMS = [
    ("grid3d", ["test-programs/c/grid3d.c"], "cc", [], "80", 60),
    ("hash_table", ["test-programs/c/hash_table.c"], "cc", [], "150000", 30),
    ("linked_list", ["test-programs/c/linked_list.c"], "cc", [], "6000", 12),
    ("allocatable", ["test-programs/fortran/allocatable.f90"], "fc", [], "100", 40),
    ("jacobi2d", ["test-programs/omp/c/jacobi2d.c"], "cc", ["-fopenmp"], "280", 200),
    ("nb_figure8", ["test-programs/omp/c/nb_figure8.c"], "cc", ["-fopenmp"], "150", 3000),
    ("stencil3d_heap", ["test-programs/omp/c/stencil3d_heap.c"], "cc", ["-fopenmp"], "20", 20),
    ("timestep_barrier", ["test-programs/omp/fortran/timestep_barrier.f90"], "fc", ["-fopenmp"], "50", 100),
    # the NPB ports print and save timer values: instructions and
    # checkpoint counts only (their bytes and output differ run to run)
    ("cg.S", ["npb-ports/cg/cg.c", "npb-ports/common/npb_common.c"], "cc", ["-fopenmp", "-DCLASS_S", "-Inpb-ports/common"], None, 5),
    ("mg.S", ["npb-ports/mg/mg.c", "npb-ports/common/npb_common.c"], "cc", ["-fopenmp", "-DCLASS_S", "-Inpb-ports/common"], None, 3),
]

HEADER_MASK = [(16, 32), (40, 48), (60, 80)]


def mask(z):
    z = bytearray(z)
    # section records after the 80-byte header: kind u32, len u64, checksum
    # u64; a checksum over shifted addresses differs, the payloads are
    # compared word by word
    pos = 80
    while pos + 20 <= len(z) - 16:
        ln = struct.unpack_from("<Q", z, pos + 4)[0]
        if pos + 20 + ln > len(z):
            break
        z[pos + 12:pos + 20] = b"\0" * 8
        pos += 20 + ln
    for lo, hi in HEADER_MASK:
        z[lo:hi] = b"\0" * (hi - lo)
    z[-16:-8] = b"\0" * 8
    return bytes(z)


def data_shift(exe_a, exe_b):
    """How far data and function symbols moved between the two
    executables (a checkpoint holds addresses of both: globals, and
    function pointers such as the exit handlers the runtime's own module
    records): the set of non-zero differences of the symbols both
    define."""
    def syms(exe):
        out = subprocess.run(["nm", "--defined-only", exe], capture_output=True, text=True, check=True).stdout
        # Rust statics carry a hash of their crate in the name
        # (`..17h0123456789abcdefE`), which changes with any change of the
        # runtime: compared without it (the runtime's own module, process.rs)
        return {re.sub(r"17h[0-9a-f]{16}E$", "E", f[2]): int(f[0], 16) for f in (l.split() for l in out.splitlines()) if len(f) == 3 and f[1] in "dDbBtT"}
    a, b = syms(exe_a), syms(exe_b)
    return {b[k] - a[k] for k in a.keys() & b.keys() if b[k] != a[k]}


def diff_dirs(a, b, deltas, again=None):
    """(files compared, words explained by a symbol's move, the moves
    used, problems). `again`: a second run of the base executable; bytes
    that differ between the two base runs are per-run values (addresses in
    libc's randomised mapping that the runtime's own module records, such
    as a stream's FILE) and are not compared."""
    fa = sorted(f for f in os.listdir(a) if f.endswith(".dao"))
    fb = sorted(f for f in os.listdir(b) if f.endswith(".dao"))
    if fa != fb:
        return 0, 0, 0, [f"different checkpoint files: {fa} vs {fb}"]
    problems, shifted, used = [], 0, set()
    for f in fa:
        x = mask(open(os.path.join(a, f), "rb").read())
        y = mask(open(os.path.join(b, f), "rb").read())
        if again is not None and os.path.exists(os.path.join(again, f)):
            z = mask(open(os.path.join(again, f), "rb").read())
            if len(z) == len(x):
                noisy = [i for i in range(len(x)) if x[i] != z[i]]
                x, y = bytearray(x), bytearray(y)
                # the whole word around a per-run byte (an address's
                # high bytes may agree in two runs and not in a third)
                for i in noisy:
                    for j in range(max(0, i - 7), min(len(x), i + 8)):
                        x[j] = y[j] = 0
                x, y = bytes(x), bytes(y)
        if len(x) != len(y):
            problems.append(f"{f}: sizes differ ({len(x)} vs {len(y)})")
            continue
        i, n = 0, len(x)
        while i < n:
            if x[i] == y[i]:
                i += 1
                continue
            ok = False
            for s in range(max(0, i - 7), i + 1):
                if s + 8 > n:
                    break
                d = struct.unpack_from("<Q", y, s)[0] - struct.unpack_from("<Q", x, s)[0]
                if d in deltas:
                    ok, i = True, s + 8
                    used.add(d)
                    shifted += 1
                    break
            if not ok:
                problems.append(f"{f}: unexplained difference at byte {i}")
                break
    return len(fa), shifted, used, problems


def build(dao, prog, out, work):
    name, srcs, tool, flags, _, _ = prog
    cmd = [dao, tool, "-O2", *flags, *[os.path.join(ROOT, s) if s.endswith((".c", ".f90")) else s for s in srcs], "-o", out]
    cmd = [c.replace("-Inpb-ports", "-I" + os.path.join(ROOT, "npb-ports")) for c in cmd]
    if tool == "cc":
        cmd.append("-lm")
    subprocess.run(cmd, check=True, cwd=work, stdout=subprocess.DEVNULL)


def instructions(exe, args, env):
    # on a copy without debug info (valgrind's reader gives up on some of
    # the large DWARF of the linked runtime)
    bare = exe + ".nodebug"
    subprocess.run(["objcopy", "--strip-debug", exe, bare], check=True)
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", bare, *args], env=env,
                       capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    raise SystemExit(f"callgrind failed on {exe}: {r.stderr[-400:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--only", help="comma-separated program names")
    o = ap.parse_args()
    o.base, o.new = os.path.abspath(o.base), os.path.abspath(o.new)
    work = tempfile.mkdtemp(prefix="dao-compare-")
    bad = 0
    print("| program | instructions base | new | new/base | checkpoints | words shifted (by) | stdout |")
    print("|---|---:|---:|---:|---|---|---|")
    for prog in PROGRAMS:
        name, _, _, _, arg, every = prog
        if o.only and name not in o.only.split(","):
            continue
        args = [arg] if arg else []
        env = dict(os.environ, OMP_NUM_THREADS="1")
        for k in ("DAO_DIR", "DAO_EVERY", "DAO_INTERVAL", "DAO_MTBF", "DAO_PLACEMENT"):
            env.pop(k, None)
        exes, outs, dirs, counts = {}, {}, {}, {}
        for side, dao in (("base", o.base), ("new", o.new)):
            exe = exes[side] = os.path.join(work, f"{name}.{side}")
            build(dao, prog, exe, work)
            counts[side] = None if o.no_callgrind else instructions(exe, args, env)
            d = os.path.join(work, f"ck.{name}.{side}")
            os.makedirs(d)
            r = subprocess.run([exe, *args], env=dict(env, DAO_DIR=d, DAO_EVERY=str(every), DAO_KEEP="100000", DAO_STORE="file"),
                               capture_output=True, cwd=work)
            if r.returncode != 0:
                raise SystemExit(f"{name} ({side}) exited {r.returncode}: {r.stderr.decode()[-400:]}")
            outs[side], dirs[side] = r.stdout, d
        again = os.path.join(work, f"ck.{name}.base2")
        os.makedirs(again)
        subprocess.run([exes["base"], *args], env=dict(env, DAO_DIR=again, DAO_EVERY=str(every), DAO_KEEP="100000", DAO_STORE="file"),
                       capture_output=True, cwd=work)
        n, shifted, used, problems = diff_dirs(dirs["base"], dirs["new"], data_shift(exes["base"], exes["new"]), again)
        delta = ",".join(f"{d:#x}" for d in sorted(used)) or "-"
        same_out = outs["base"] == outs["new"]
        if name.startswith(("cg.", "mg.")):
            problems = [p for p in problems if "unexplained" not in p]
            same_out = b"SUCCESSFUL" in outs["base"] and b"SUCCESSFUL" in outs["new"]
            shifted, delta = 0, "-"
        bad += bool(problems) or not same_out or n == 0
        ratio = f"{counts['new'] / counts['base']:.4f}" if counts["base"] else "-"
        ck = f"{n} files, {'identical' if not problems else 'DIFFER: ' + '; '.join(problems[:2])}" if n else "NONE WRITTEN"
        if name.startswith(("cg.", "mg.")):
            ck = f"{n} files (bytes not compared: timers)" if not problems else "DIFFER: " + "; ".join(problems[:2])
            shown = "both verified" if same_out else "NOT VERIFIED"
        else:
            shown = "identical" if same_out else "DIFFER"
        print(f"| {name} | {counts['base'] or '-'} | {counts['new'] or '-'} | {ratio} | {ck} | {shifted} ({delta}) | {shown} |")
        sys.stdout.flush()
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
