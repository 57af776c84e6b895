#!/usr/bin/env bash
# test.sh -- everything: set up, build the release binaries the whole-program
# tests use (target/release/dao, libdao.so, libdao_rt.a), run every test of
# the workspace. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --release -p dao-driver -p dao-pass -p dao-runtime
# rust-version is true: no standard-library API newer than it (the
# dependencies' side is tests/tests/structure.rs)
cargo clippy --release --workspace --all-targets --quiet -- -A clippy::all -D clippy::incompatible_msrv
cargo test --release --workspace --no-fail-fast
echo "test: OK"
