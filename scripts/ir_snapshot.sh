#!/usr/bin/env bash
# ir_snapshot.sh OUTDIR -- the pass's output IR (and its remarks) for every
# test program and NPB port, at -O0 and -O2, with paths made relative, so
# two trees can be compared with `diff -r`: a refactoring of the pass must
# leave every file identical. Uses target/release/dao of this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:?usage: ir_snapshot.sh OUTDIR}
mkdir -p "$out"
dao=$root/target/release/dao
srcs=$(ls test-programs/c/*.c test-programs/fortran/*.f90 test-programs/omp/c/*.c test-programs/omp/fortran/*.f90 \
          test-programs/bad/*.c test-programs/omp/bad/* npb-ports/*/*.c 2>/dev/null)
for s in $srcs; do
  case $s in *.c) tool=cc; extra="-fopenmp -DCLASS_S -I $root/npb-ports/common -I $root/$(dirname $s)";; *) tool=fc; extra="-fopenmp";; esac
  for o in 0 2; do
    name=$(echo "$s" | tr '/' '_').O$o
    tmp=$(mktemp -d)
    ( cd "$tmp" && DAO_REMARKS=1 "$dao" $tool -O$o $extra -S -emit-llvm "$root/$s" -o "$tmp/x.ll" >"$tmp/log" 2>&1; echo "rc=$?" >>"$tmp/log" ) || true
    [ -f "$tmp/x.ll" ] && sed -e "s#$root#ROOT#g" -e "s#$tmp#TMP#g" -e '/^; ModuleID/d' "$tmp/x.ll" >"$out/$name.ll"
    sed -e "s#$root#ROOT#g" -e "s#$tmp#TMP#g" "$tmp/log" >"$out/$name.log"
    rm -rf "$tmp"
  done
done
echo "ir_snapshot: $(ls "$out" | wc -l) files in $out"
