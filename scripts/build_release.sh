#!/usr/bin/env bash
# The build a user makes (-DCMAKE_BUILD_TYPE=Release, no tests, no LibTorch), as CI checks it:
# it must succeed on the distribution's compiler and give a working binary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_RELEASE_DIR:-build-release}"
log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }
log "release build: $BUILD_DIR"
# -Werror here too: CI must see the warnings a user's compiler prints (g++ 12's -Wrestrict).
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DOPSCOPE_BUILD_TESTS=OFF \
  -DOPSCOPE_WITH_TORCH=OFF -DOPSCOPE_WERROR=ON >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
"$BUILD_DIR/opscope" --help >/dev/null
log "release build: ok"
