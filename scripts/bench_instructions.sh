#!/usr/bin/env bash
# bench_instructions.sh -- instructions without checkpoints (callgrind, one
# thread, no DAO_DIR) of test programs and NPB ports built by two dao
# releases, side by side, and the bytes of a checkpoint of the NPB ports
# (docs/results.md, issue #31's "What it costs").
# Usage: bash scripts/bench_instructions.sh BASE_DAO [NEW_DAO]
#   BASE_DAO: e.g. a worktree of an older commit, built:
#     git worktree add /tmp/base ae42a7b && (cd /tmp/base && cargo build --release -p dao-driver -p dao-pass -p dao-runtime)
#     bash scripts/bench_instructions.sh /tmp/base/target/release/dao
set -euo pipefail
R=$(cd "$(dirname "$0")/.." && pwd)
BASE=$1
NEW=${2:-$R/target/release/dao}
W=$(mktemp -d /tmp/dao-bench-instr.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/data"
ir() { # dir args...: Ir total of ./prog (debug info stripped: valgrind cannot read clang-19's)
  (cd "$1" && shift && strip --strip-debug prog && OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=cg.out ./prog "$@" > /dev/null 2> vg.err && grep -E '^(summary|totals)' cg.out | head -1 | awk '{print $2}')
}
ratio() { python3 -c "print(f'{$2/$1:.4f}')"; }
echo "| program | base (Ir) | new (Ir) | ratio |"
echo "|---|---:|---:|---:|"
while IFS='|' read -r kind src args; do
  name=$(basename "$src"); name=${name%.*}
  declare -A got=()
  for v in base new; do
    D=$BASE; [ $v = new ] && D=$NEW
    d=$W/$v-$name; mkdir -p "$d"
    case $kind in
      c) (cd "$d" && "$D" cc -O2 "$R/$src" -o prog -lm) ;;
      f) (cd "$d" && "$D" fc -O2 "$R/$src" -o prog) ;;
      o) (cd "$d" && "$D" cc -O2 -fopenmp "$R/$src" -o prog -lm) ;;
    esac
    # shellcheck disable=SC2086
    got[$v]=$(ir "$d" $args)
  done
  echo "| $name | ${got[base]} | ${got[new]} | $(ratio "${got[base]}" "${got[new]}") |"
done <<EOF2
c|test-programs/files/c/io_streams.c|$W/data 60 0
c|test-programs/c/grid3d.c|60
c|test-programs/c/hash_table.c|40000
c|test-programs/c/nbody.c|300
f|test-programs/fortran/module_vars.f90|300000
o|test-programs/omp/c/jacobi2d.c|200
EOF2
echo
echo "| NPB port | base (Ir) | new (Ir) | ratio | checkpoint bytes, base | new |"
echo "|---|---:|---:|---:|---:|---:|"
for p in cg mg; do
  declare -A got=() bytes=()
  for v in base new; do
    D=$BASE; [ $v = new ] && D=$NEW
    d=$W/$v-$p; mkdir -p "$d"
    (cd "$d" && "$D" cc -O3 -fopenmp -DCLASS_S -I "$R/npb-ports/common" "$R/npb-ports/$p/$p.c" "$R/npb-ports/common/npb_common.c" -o prog -lm)
    got[$v]=$(ir "$d")
    (cd "$d" && OMP_NUM_THREADS=2 DAO_DIR=ck DAO_EVERY=5 DAO_ASYNC=off DAO_STATS=st ./prog > /dev/null 2>&1)
    bytes[$v]=$(python3 -c "
import json
e=[json.loads(l) for l in open('$d/st') if '\"checkpoint\"' in l][-1]['bytes']
print(sum(v for v in e.values() if isinstance(v, int)))")
  done
  echo "| $p.S (1 thread) | ${got[base]} | ${got[new]} | $(ratio "${got[base]}" "${got[new]}") | ${bytes[base]} | ${bytes[new]} |"
done
