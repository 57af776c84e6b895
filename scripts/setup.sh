#!/usr/bin/env bash
# setup.sh -- install what dao needs to build and test, if it is missing.
# Idempotent: installs nothing when everything is present; runs
# `apt-get update` only when a package has to be installed.
set -euo pipefail

# Debian package -> a file or command it provides (to check without dpkg locks).
declare -A need=(
  [clang-19]=/usr/bin/clang-19
  [llvm-19-dev]=/usr/lib/llvm-19/bin/llvm-config
  [llvm-19]=/usr/bin/llvm-link-19   # whole-program mode: llvm-link-19, opt-19, llvm-nm-19; llvm-cxxfilt-19
  [libomp-19-dev]=/usr/lib/llvm-19/lib/libomp.so
  [libclang-rt-19-dev]=/usr/lib/llvm-19/lib/clang/19/lib/linux
  [flang-19]=/usr/bin/flang-new-19
  [llvm-19-tools]=/usr/bin/FileCheck-19
  [clang-tools-19]=/usr/lib/llvm-19/bin/clang-offload-packager
  [build-essential]=/usr/bin/make
  [openmpi-bin]=/usr/bin/mpirun
  [libopenmpi-dev]=/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h
)

missing=()
for pkg in "${!need[@]}"; do
  [ -e "${need[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "setup: error: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
      echo "setup: error: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "setup: error: cargo (Rust) not found; install Rust 1.85 or newer (1.95 for the whole test suite) from https://rustup.rs and re-run" >&2
  exit 1
fi
# test.sh runs clippy's incompatible_msrv lint (rust-version kept true)
if ! cargo clippy --version >/dev/null 2>&1; then
  if command -v rustup >/dev/null; then
    rustup component add clippy
  else
    echo "setup: error: cargo clippy not found (scripts/test.sh uses it); install the clippy component of your Rust toolchain and re-run" >&2
    exit 1
  fi
fi
echo "setup: OK ($(clang-19 --version | head -1); $(cargo --version))"
