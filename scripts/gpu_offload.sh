#!/usr/bin/env bash
# Issue #35, item 5: Jia's six programs (test-programs/offload/jia/) and
# the other offload test programs on a GPU, every measurement in one device
# call each. Run on an NVIDIA H200 on 2026-11-28 (docs/results.md, item 5).
#
#   scripts/gpu_offload.sh prepare CUDA_DIR   # here: build for sm_90 into target/gpu/
#   scripts/gpu_offload.sh prepare --host     # here: the same for the host offload device
#   scripts/gpu_offload.sh run [STEPS_SCALE]  # there (or here after --host):
#                                             # profile, dao place sync/async,
#                                             # DAO_PLACEMENT runs with DAO_STATS
#   scripts/gpu_offload.sh crash              # there (or here after --host):
#                                             # the crash scenarios, below
#
# prepare: builds the six programs with `dao cc -O2 -fopenmp` for
# `--offload-arch=sm_90` (the recipe of ../shared/toolchain.md: CUDA_DIR
# holds ptxas in bin/, nvvm/libdevice/ and an include/cuda.h defining
# CUDA_VERSION; there is no nvlink: `-foffload-lto` links the device code
# into one module, scripts/gpu/ptxas compiles it to a complete cubin and
# scripts/gpu/nvlink stands in for the empty device link; the JIT path,
# `-Wl,--embed-bitcode`, fails on the GPU with Debian's libomptarget),
# plus clean builds (--dao-no-pass) for the reference outputs,
# and copies what the device machine lacks into target/gpu/ (ignored;
# carry it): the programs and the stripped `dao`
# driver (tar.xz), libomp and libomptarget (it holds the CUDA plugin)
# from /usr/lib/llvm-19/lib, and libLLVM (libomptarget links it) with the
# libraries it links beyond glibc and libstdc++ (tar.xz).
# run: unpacks the libraries to /tmp/gpu-lib, and per program: a clean run
# (reference), a DAO_PROFILE run, `dao place --mtbf-gpu` for sync and async
# (the MTBF formula of scripts/bench_offload.py, equal MTBFs), one DAO_PLACEMENT run
# per mode with DAO_STATS (output compared with the reference). Everything
# goes to $OUT (default target/gpu/out): per program prof.json, place-*.json,
# stats-*.jsonl, and summary.txt.
#
# Device calls: run(command="bash scripts/gpu_offload.sh run", carry=["target/gpu"])
# (72 s on the H200) and the same with `crash` (147 s).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
G="$ROOT/target/gpu"
PROGS="swim mgrid fft2d backprop bfs gaussian"
# test-programs/offload/ beside jia/: only in the crash scenarios
EXTRA="maps unstructured nowait devices"
declare -A STEPS=([swim]=1000 [mgrid]=450 [fft2d]=450 [backprop]=3000 [bfs]=360 [gaussian]=30)
LLVMLIB=/usr/lib/llvm-19/lib

prepare() {
    local flags
    if [ "${1:-}" = "--host" ]; then
        flags="-fopenmp-targets=x86_64-pc-linux-gnu"
        echo host >"$G.kind.tmp"
    else
        local cuda=${1:?CUDA_DIR}
        # ahead of time: there is no nvlink here and Debian's libomptarget
        # cannot compile IR at run time ("no targets are registered", seen
        # on an H200), so the device code is linked whole by LTO, compiled
        # to a complete cubin by ptxas, and scripts/gpu/nvlink stands in
        # for the device link, which has nothing left to do
        local tools="$ROOT/target/gpu-cuda"
        rm -rf "$tools" && mkdir -p "$tools/bin"
        ln -s "$(cd "$cuda" && pwd)/bin/ptxas" "$tools/bin/ptxas.real"
        cp "$ROOT/scripts/gpu/ptxas" "$ROOT/scripts/gpu/nvlink" "$tools/bin/"
        ln -s "$(cd "$cuda" && pwd)/nvvm" "$tools/nvvm"
        ln -s "$(cd "$cuda" && pwd)/include" "$tools/include"
        flags="--offload-arch=sm_90 --cuda-path=$tools -foffload-lto"
        echo sm_90 >"$G.kind.tmp"
    fi
    rm -rf "$G" && mkdir -p "$G/bin" "$G/lib"
    mv "$G.kind.tmp" "$G/kind"
    local p src
    for p in $PROGS $EXTRA; do
        src="$ROOT/test-programs/offload/jia/$p.c"
        [ -f "$src" ] || src="$ROOT/test-programs/offload/$p.c"
        # shellcheck disable=SC2086
        "$ROOT/target/release/dao" cc -O2 -fopenmp $flags "$src" -o "$G/bin/$p" -lm
        # shellcheck disable=SC2086
        "$ROOT/target/release/dao" cc --dao-no-pass -O2 -fopenmp $flags "$src" -o "$G/bin/$p.clean" -lm
    done
    # the runtime's debug information is most of each program's 30 MB
    strip --strip-debug "$G"/bin/*
    strip -o "$G/bin/dao" "$ROOT/target/release/dao"
    tar -C "$G" -cJf "$G/bin.tar.xz" bin && rm -rf "$G/bin"
    cp -L "$LLVMLIB/libomp.so.5" "$LLVMLIB/libomptarget.so.19.1" "$G/lib/"
    if [ "$(cat "$G/kind")" != host ]; then
        # libLLVM and what it links beyond glibc and libstdc++ (libffi,
        # libedit, libz3, libxml2, ICU, ...: the GPU machine may lack them)
        local deps
        deps=$(ldd "$LLVMLIB/libLLVM.so.19.1" | awk '$3 ~ /^\// {print $3}' | grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so')
        mkdir -p "$G/deps"
        cp -L "$LLVMLIB/libLLVM.so.19.1" $deps "$G/deps/"
        tar -C "$G" -cf - deps | xz -T2 -9 >"$G/lib/deps.tar.xz"
        rm -rf "$G/deps"
    fi
    du -sh "$G"   # with the rest of the tree, at most 64 MiB travel
}

setup_libs() {
    mkdir -p "$1"
    if [ -f "$G/bin.tar.xz" ]; then rm -rf "$G/bin" && tar -C "$G" -xJf "$G/bin.tar.xz"; fi
    local lib=/tmp/gpu-lib
    mkdir -p "$lib"
    cp "$G"/lib/*.so.* "$lib/"
    # libomptarget's plugins open `libomp.so`: the same file as the
    # program's libomp.so.5, or two OpenMP runtimes abort
    ln -sf libomp.so.5 "$lib/libomp.so"
    if [ -f "$G/lib/deps.tar.xz" ]; then xz -dc "$G/lib/deps.tar.xz" | tar -C "$lib" --strip-components=1 -xf -; fi
    export LD_LIBRARY_PATH="$lib:$LLVMLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if [ "$(cat "$G/kind")" != host ]; then export OMP_TARGET_OFFLOAD=MANDATORY; fi
}

run() {
    local scale=${1:-1}
    local out=${OUT:-$G/out}
    mkdir -p "$out"
    setup_libs "$out"
    local cores
    cores=$(getconf _NPROCESSORS_ONLN)
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
    local sum="$out/summary.txt"
    { echo "kind $(cat "$G/kind"), $cores cores, OMP_NUM_THREADS=$OMP_NUM_THREADS"; nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"; } >"$sum"
    if [ "$(cat "$G/kind")" != host ]; then
        # no silent fall-back to the host: a kernel that cannot run on the
        # GPU stops the program
        export OMP_TARGET_OFFLOAD=MANDATORY
        # one short run that says where its kernels went
        LIBOMPTARGET_INFO=1 timeout 120 "$G/bin/swim.clean" 2 >"$out/preflight.txt" 2>&1 || {
            echo "preflight failed (rc $?)" >>"$sum"; tail -30 "$out/preflight.txt" >>"$sum"; cat "$sum"; return 1; }
        grep -m3 -i -E 'cuda|nvptx|sm_90|device 0' "$out/preflight.txt" >>"$sum" || true
    fi
    for p in $PROGS; do
        ( run_one "$p" "$scale" "$out" "$sum" ) || echo "$p: FAILED (rc $?), see $out/$p/err.txt" >>"$sum"
    done
    cat "$sum"
}

run_one() {
    local p=$1 scale=$2 out=$3 sum=$4
    set -euo pipefail
    {
        local n a w
        n=$(python3 -c "print(max(1, round(${STEPS[$p]} * $scale)))")
        w="$out/$p"
        mkdir -p "$w"
        local t0 t1
        t0=$(date +%s.%N)
        timeout 150 "$G/bin/$p.clean" "$n" >"$w/ref.txt"
        t1=$(date +%s.%N)
        DAO_PROFILE="$w/prof.json" timeout 150 "$G/bin/$p" "$n" >"$w/prof-out.txt" 2>"$w/err.txt"
        echo "$p: $n steps, clean run $(python3 -c "print(f'{$t1 - $t0:.2f}')") s, profiled run $(python3 -c "import time; print(f'{time.time() - $t1:.2f}')") s" >>"$sum"
        a=$(python3 - "$w/prof.json" <<'EOF'
import json, math, sys
v = json.load(open(sys.argv[1]))
inst = v["instances"]
t = [0.0] + [i["time_s"] for i in inst] + [v["total_time_s"]]
gap = max(b - a for a, b in zip(t[1:-1], t[2:]))
itvl = max((t[-1] - t[1]) / 8, 1.2 * t[1], 1.2 * gap)
dev = sorted(i["device"]["bytes"] / i["device"]["d2h_s"] for i in inst if i.get("device", {}).get("d2h_s", 0) > 0)
print(f"{2 * itvl / math.log(2)!r} {dev[len(dev) // 2]!r}")
EOF
)
        set -- $a
        for mode in sync async; do
            "$G/bin/dao" place --profile "$w/prof.json" --mtbf "$1" --mtbf-gpu "$1" --reliability 0.5 --bandwidth 1e9 \
                --host-device-bandwidth "$2" --gpu-mode "$mode" --json -o "$w/place-$mode.json" >"$w/model-$mode.json"
            local asyncmode=off
            [ $mode = async ] && asyncmode=auto
            rm -rf "/tmp/gpu-ck-$p" "$w/stats-$mode.jsonl"
            DAO_DIR="/tmp/gpu-ck-$p" DAO_PLACEMENT="$w/place-$mode.json" DAO_STATS="$w/stats-$mode.jsonl" DAO_ASYNC=$asyncmode \
                timeout 150 "$G/bin/$p" "$n" >"$w/out-$mode.txt" 2>>"$w/err.txt"
            rm -rf "/tmp/gpu-ck-$p"
            if cmp -s "$w/out-$mode.txt" "$w/ref.txt"; then same=same; else same=DIFFERENT; fi
            python3 - "$p" "$mode" "$w" "$same" >>"$sum" <<'EOF'
import json, statistics, sys
p, mode, w, same = sys.argv[1:]
m = json.load(open(f"{w}/model-{mode}.json"))["results"][0]
import os
st = f"{w}/stats-{mode}.jsonl"  # absent when the placement takes no checkpoint
evs = [json.loads(l) for l in open(st) if '"event":"checkpoint"' in l] if os.path.exists(st) else []
med = lambda xs: statistics.median(xs) if xs else float("nan")
dev = med([e.get("device", {}).get("bytes", 0) for e in evs])
cp = med([e.get("device", {}).get("copy_s", 0) for e in evs])
col = med([e["collect_s"] for e in evs])
print(f"{p} {mode}: model sync {m['sync']['count']} ({m['sync']['cost_s']:.6f} s), async {m['async']['cpu']['count']}+{m['async']['gpu']['count']} "
      f"({m['async']['cpu']['cost_s'] + m['async']['gpu']['cost_s']:.6f} s); taken {len(evs)}, device bytes {dev:.0f}, d2h copy {cp * 1e3:.3f} ms, "
      f"collect {col * 1e3:.3f} ms; output {same}")
EOF
        done
    }
}

# crash: the crash scenarios of tests/tests/offload.rs on the GPU, at four
# times the tests' sizes and DAO_EVERY: killed after checkpoint 1 and 5, while writing
# checkpoint 3, twice in a row, and by SIGKILL at three random times after
# the first checkpoint file exists; each with the default writer and with
# DAO_ASYNC=off. Every restart runs with DAO_DEAD=poison; the output of the
# killed run and its restart together must equal the clean run's.
crash() {
    local out=${OUT:-$G/out}
    setup_libs "$out"
    declare -A ARGS=([swim]=60 [mgrid]=16 [fft2d]=24 [backprop]=64 [bfs]=12 [gaussian]=4 [maps]=200 [unstructured]=150 [nowait]=120 [devices]=120)
    declare -A EVERY=([swim]=10 [mgrid]=9 [fft2d]=4 [backprop]=10 [bfs]=12 [gaussian]=3 [maps]=16 [unstructured]=12 [nowait]=10 [devices]=10)
    local sum="$out/crash.txt" p mode ok=0 bad=0
    : >"$sum"
    for p in $PROGS $EXTRA; do
        # four times the tests' sizes and DAO_EVERY: about a dozen
        # checkpoints, over a run long enough for the random kills
        local w="$out/crash-$p" n=$((${ARGS[$p]} * 4)) every=$((${EVERY[$p]} * 4))
        mkdir -p "$w"
        timeout 120 "$G/bin/$p.clean" "$n" >"$w/ref.txt"
        for mode in auto off; do
            local ck="/tmp/gpu-crash-$p" sc t0 t1 tinst
            rm -rf "$ck"
            t0=$(date +%s.%N)
            DAO_DIR=$ck DAO_EVERY=$every DAO_ASYNC=$mode timeout 120 "$G/bin/$p" "$n" >"$w/$mode-whole.txt" 2>"$w/$mode-whole.err" || true
            t1=$(date +%s.%N)
            tinst=$(python3 -c "print($t1 - $t0)")
            if cmp -s "$w/$mode-whole.txt" "$w/ref.txt"; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
            echo "$p $mode uninterrupted: $(cmp -s "$w/$mode-whole.txt" "$w/ref.txt" && echo same || echo DIFFERENT), $tinst s" >>"$sum"
            for sc in after1 after5 in3 twice kill1 kill2 kill3; do
                rm -rf "$ck"
                local o="$w/$mode-$sc.txt" e="$w/$mode-$sc.err" res
                : >"$o"; : >"$e"
                export DAO_DIR=$ck DAO_EVERY=$every DAO_DEAD=poison DAO_ASYNC=$mode
                case $sc in
                after1) DAO_CRASH_AFTER=1 timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || true ;;
                after5) DAO_CRASH_AFTER=5 timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || true ;;
                in3) DAO_CRASH_IN=3 timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || true ;;
                twice) DAO_CRASH_AFTER=1 timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || true
                       DAO_CRASH_AFTER=1 timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || true ;;
                kill*) "$G/bin/$p" "$n" >>"$o" 2>>"$e" &
                       local pid=$! i=0 rc=0
                       t0=$(date +%s.%N)
                       while ! compgen -G "$ck/ckpt.*.dao" >/dev/null && ! compgen -G "$ck/store.*.dst" >/dev/null && kill -0 $pid 2>/dev/null && [ $i -lt 5000 ]; do sleep 0.002; i=$((i + 1)); done
                       # a random time in what is left of an uninterrupted run
                       sleep "$(python3 -c "import random; print(random.uniform(0, max(0.0, $tinst - ($(date +%s.%N) - $t0))))")"
                       kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || rc=$?
                       # a kill in the exit path after the run marked itself
                       # finished (a GPU's teardown is long) kills a run whose
                       # work is done: as tests/src/scenario.rs, no restart
                       if [ $rc -eq 0 ] || [ -e "$ck/finished" ]; then echo "$p $mode $sc: finished before the kill (rc $rc)" >>"$sum"; continue; fi ;;
                esac
                timeout 120 "$G/bin/$p" "$n" >>"$o" 2>>"$e" || echo "restart rc $?" >>"$e"
                unset DAO_DIR DAO_EVERY DAO_DEAD DAO_ASYNC
                if cmp -s "$o" "$w/ref.txt"; then res=same; ok=$((ok + 1)); else res=DIFFERENT; bad=$((bad + 1)); fi
                echo "$p $mode $sc: $res, $(grep -c 'dao: resuming' "$e" || true) restart(s) resumed" >>"$sum"
            done
        done
        rm -rf "/tmp/gpu-crash-$p"
    done
    echo "crash scenarios: $ok same, $bad different" >>"$sum"
    cat "$sum"
}

case "${1:-}" in
prepare) shift; prepare "$@" ;;
crash) shift; crash "$@" ;;
run) shift; run "$@" ;;
*) sed -n 2,12p "$0"; exit 2 ;;
esac
