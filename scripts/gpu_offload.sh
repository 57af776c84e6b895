#!/usr/bin/env bash
# Issue #35, item 5: Jia's six programs (test-programs/offload/jia/) on a
# GPU, every measurement in one device call. NEVER RUN ON A GPU YET: only
# the host-device path (--host) has been run (docs/results.md says so).
#
#   scripts/gpu_offload.sh prepare CUDA_DIR   # here: build for sm_90 into target/gpu/
#   scripts/gpu_offload.sh prepare --host     # here: the same for the host offload device
#   scripts/gpu_offload.sh run [STEPS_SCALE]  # there (or here after --host):
#                                             # profile, dao place sync/async,
#                                             # DAO_PLACEMENT runs with DAO_STATS
#
# prepare: builds the six programs with `dao cc -O2 -fopenmp` for
# `--offload-arch=sm_90` (the recipe of ../shared/toolchain.md: CUDA_DIR
# holds ptxas in bin/, nvvm/libdevice/ and an include/cuda.h defining
# CUDA_VERSION; `-foffload-lto -Wl,--embed-bitcode` leaves the device code
# as bitcode that libomptarget compiles at run time, since there is no
# nvlink), plus clean builds (--dao-no-pass) for the reference outputs,
# and copies what the device machine lacks into target/gpu/ (ignored;
# carry it): the programs and the stripped `dao`
# driver (tar.xz), libomp and libomptarget (it holds the CUDA plugin)
# from /usr/lib/llvm-19/lib, and libLLVM with the libraries it links
# beyond glibc and libstdc++ (tar.xz).
# run: unpacks the libraries to /tmp/gpu-lib, and per program: a clean run
# (reference), a DAO_PROFILE run, `dao place --mtbf-gpu` for sync and async
# (the MTBF formula of scripts/bench_offload.py, equal MTBFs), one DAO_PLACEMENT run
# per mode with DAO_STATS (output compared with the reference). Everything
# goes to $OUT (default target/gpu/out): per program prof.json, place-*.json,
# stats-*.jsonl, and summary.txt.
#
# Device call (one): run(command="scripts/gpu_offload.sh run", carry=["target/gpu"], timeout_s=600)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
G="$ROOT/target/gpu"
PROGS="swim mgrid fft2d backprop bfs gaussian"
declare -A STEPS=([swim]=1000 [mgrid]=450 [fft2d]=450 [backprop]=3000 [bfs]=360 [gaussian]=30)
LLVMLIB=/usr/lib/llvm-19/lib

prepare() {
    local flags
    if [ "${1:-}" = "--host" ]; then
        flags="-fopenmp-targets=x86_64-pc-linux-gnu"
        echo host >"$G.kind.tmp"
    else
        local cuda=${1:?CUDA_DIR}
        flags="--offload-arch=sm_90 --cuda-path=$cuda -foffload-lto -Wl,--embed-bitcode"
        echo sm_90 >"$G.kind.tmp"
    fi
    rm -rf "$G" && mkdir -p "$G/bin" "$G/lib"
    mv "$G.kind.tmp" "$G/kind"
    for p in $PROGS; do
        # shellcheck disable=SC2086
        "$ROOT/target/release/dao" cc -O2 -fopenmp $flags "$ROOT/test-programs/offload/jia/$p.c" -o "$G/bin/$p" -lm
        # shellcheck disable=SC2086
        "$ROOT/target/release/dao" cc --dao-no-pass -O2 -fopenmp $flags "$ROOT/test-programs/offload/jia/$p.c" -o "$G/bin/$p.clean" -lm
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

run() {
    local scale=${1:-1}
    local out=${OUT:-$G/out}
    mkdir -p "$out"
    if [ -f "$G/bin.tar.xz" ]; then rm -rf "$G/bin" && tar -C "$G" -xJf "$G/bin.tar.xz"; fi
    local cores
    cores=$(getconf _NPROCESSORS_ONLN)
    local lib=/tmp/gpu-lib
    mkdir -p "$lib"
    cp "$G"/lib/*.so.* "$lib/"
    # libomptarget's plugins open `libomp.so`: the same file as the
    # program's libomp.so.5, or two OpenMP runtimes abort
    ln -sf libomp.so.5 "$lib/libomp.so"
    if [ -f "$G/lib/deps.tar.xz" ]; then xz -dc "$G/lib/deps.tar.xz" | tar -C "$lib" --strip-components=1 -xf -; fi
    export LD_LIBRARY_PATH="$lib:$LLVMLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
    local sum="$out/summary.txt"
    { echo "kind $(cat "$G/kind"), $cores cores, OMP_NUM_THREADS=$OMP_NUM_THREADS"; nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"; } >"$sum"
    for p in $PROGS; do
        local n a w
        n=$(python3 -c "print(max(1, round(${STEPS[$p]} * $scale)))")
        w="$out/$p"
        mkdir -p "$w"
        "$G/bin/$p.clean" "$n" >"$w/ref.txt"
        DAO_PROFILE="$w/prof.json" "$G/bin/$p" "$n" >"$w/prof-out.txt" 2>"$w/err.txt"
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
                "$G/bin/$p" "$n" >"$w/out-$mode.txt" 2>>"$w/err.txt"
            rm -rf "/tmp/gpu-ck-$p"
            if cmp -s "$w/out-$mode.txt" "$w/ref.txt"; then same=same; else same=DIFFERENT; fi
            python3 - "$p" "$mode" "$w" "$same" >>"$sum" <<'EOF'
import json, statistics, sys
p, mode, w, same = sys.argv[1:]
m = json.load(open(f"{w}/model-{mode}.json"))["results"][0]
evs = [json.loads(l) for l in open(f"{w}/stats-{mode}.jsonl") if '"event":"checkpoint"' in l]
med = lambda xs: statistics.median(xs) if xs else float("nan")
dev = med([e.get("device", {}).get("bytes", 0) for e in evs])
cp = med([e.get("device", {}).get("copy_s", 0) for e in evs])
col = med([e["collect_s"] for e in evs])
print(f"{p} {mode}: model sync {m['sync']['count']} ({m['sync']['cost_s']:.6f} s), async {m['async']['cpu']['count']}+{m['async']['gpu']['count']} "
      f"({m['async']['cpu']['cost_s'] + m['async']['gpu']['cost_s']:.6f} s); taken {len(evs)}, device bytes {dev:.0f}, d2h copy {cp * 1e3:.3f} ms, "
      f"collect {col * 1e3:.3f} ms; output {same}")
EOF
        done
    done
    cat "$sum"
}

case "${1:-}" in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n 2,12p "$0"; exit 2 ;;
esac
