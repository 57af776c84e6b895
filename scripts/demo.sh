#!/usr/bin/env bash
# demo.sh -- dao in one command: set up, build dao, compile the NPB MG port
# (class A, OpenMP) with checkpoints (`CC="dao cc" make`), run it
# uninterrupted, run it again with checkpoints until it is killed with
# SIGKILL right after its 3rd checkpoint, show what the checkpoint holds,
# restart it from the checkpoint, and check that the restarted job prints
# exactly what the uninterrupted one printed (timing lines aside) and that
# NPB's own verification succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --release -p dao-driver -p dao-pass -p dao-runtime

DAO="$PWD/target/release/dao"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dao-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
CLASS=${CLASS:-A}
filter() { grep -v -E '^ *(Time in seconds|Mop/s total|Mop/s/thread|Time initialisation)'; }

echo "demo: make -C npb-ports/mg CLASS=$CLASS CC=\"dao cc\""
make -s -C npb-ports/mg CLASS="$CLASS" CC="$DAO cc" NPB_BIN="$WORK" >/dev/null
PROG="$WORK/mg.$CLASS"

echo "demo: uninterrupted run ($OMP_NUM_THREADS threads)"
"$PROG" > "$WORK/expected.txt"

echo "demo: run with a checkpoint every 10 candidates, killed (SIGKILL) right after the 3rd"
set +e
DAO_DIR="$WORK/ckpt" DAO_EVERY=10 DAO_CRASH_AFTER=3 "$PROG" >> "$WORK/actual.txt"
status=$?
set -e
if [ $status -ne 137 ]; then
  echo "demo: FAILED: expected the run to be killed (status 137), got $status" >&2
  exit 1
fi
echo "demo: killed (status $status); the checkpoint directory:"
"$DAO" inspect "$WORK/ckpt"

echo "demo: restart with the same DAO_DIR (stdout appended to the same file)"
DAO_DIR="$WORK/ckpt" DAO_EVERY=10 "$PROG" >> "$WORK/actual.txt"

filter < "$WORK/expected.txt" > "$WORK/expected.f"
filter < "$WORK/actual.txt" > "$WORK/actual.f"
echo "demo: uninterrupted:         $(grep -E 'Verification +=' "$WORK/expected.txt" | tr -s ' ')"
echo "demo: killed and restarted:  $(grep -E 'Verification +=' "$WORK/actual.txt" | tr -s ' ')"
if ! grep -q -E 'Verification += +SUCCESSFUL' "$WORK/actual.txt"; then
  echo "demo: FAILED: the restarted run did not verify" >&2
  exit 1
fi
if cmp -s "$WORK/expected.f" "$WORK/actual.f"; then
  echo "demo: OK (the restarted job's output equals the uninterrupted run's, timing lines aside)"
else
  echo "demo: FAILED: outputs differ" >&2
  diff "$WORK/expected.f" "$WORK/actual.f" | head -20 >&2
  exit 1
fi
