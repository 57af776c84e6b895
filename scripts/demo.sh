#!/usr/bin/env bash
# demo.sh -- dao in one command: build dao, compile a test program with
# `dao cc -O2`, run it uninterrupted, run it again with checkpoints and a
# crash (the runtime kills the process after its 4th checkpoint), restart it
# from the checkpoint, and check that the outputs are identical.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --release -p dao-driver -p dao-pass -p dao-runtime

DAO=target/release/dao
PROG=test-programs/c/grid3d.c
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dao-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "demo: dao cc -O2 $PROG"
$DAO cc -O2 "$PROG" -o "$WORK/grid3d" -lm

echo "demo: uninterrupted run"
"$WORK/grid3d" 200 > "$WORK/expected.txt"

echo "demo: run with a checkpoint every 100 candidates, killed after the 4th checkpoint"
set +e
DAO_DIR="$WORK/ckpt" DAO_EVERY=100 DAO_CRASH_AFTER=4 "$WORK/grid3d" 200 >> "$WORK/actual.txt"
status=$?
set -e
if [ $status -ne 137 ]; then
  echo "demo: FAILED: expected the run to be killed (status 137), got $status" >&2
  exit 1
fi
echo "demo: killed (status $status); what the checkpoint directory holds:"
$DAO inspect "$WORK/ckpt"

echo "demo: restart with the same DAO_DIR"
DAO_DIR="$WORK/ckpt" DAO_EVERY=100 "$WORK/grid3d" 200 >> "$WORK/actual.txt"

echo "demo: uninterrupted output:"
tail -n 3 "$WORK/expected.txt"
echo "demo: crashed + restarted output:"
tail -n 3 "$WORK/actual.txt"
if cmp -s "$WORK/expected.txt" "$WORK/actual.txt"; then
  echo "demo: OK"
else
  echo "demo: FAILED: outputs differ" >&2
  diff "$WORK/expected.txt" "$WORK/actual.txt" | head -20 >&2
  exit 1
fi
