#!/usr/bin/env bash
# The unit tests under ASan + UBSan, then every libFuzzer harness (tests/fuzz) for
# OPSCOPE_FUZZ_SECONDS each, built with clang in build-san. Needs scripts/setup.sh first
# (clang and libclang-rt-dev come from scripts/deps/apt-test.txt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_SAN_DIR:-build-san}"
SECONDS_EACH="${OPSCOPE_FUZZ_SECONDS:-20}"
log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

log "sanitizer build: $BUILD_DIR (clang, address+undefined, fuzzers)"
cmake -S . -B "$BUILD_DIR" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOPSCOPE_SANITIZE=address,undefined -DOPSCOPE_FUZZERS=ON -DOPSCOPE_FUZZ_SECONDS="$SECONDS_EACH" \
  -DOPSCOPE_WITH_TORCH=OFF -DOPSCOPE_WERROR=ON -DOPSCOPE_PYTHON="$ROOT/.venv/bin/python" >/dev/null
# Only what the two ctest runs below need: the CLI, benches and editor tools are built and
# tested in the main build.
cmake --build "$BUILD_DIR" -j"$(nproc)" --target opscope_unit_and_fuzz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$BUILD_DIR"
log "unit tests under ASan + UBSan"
ctest --output-on-failure --timeout 600 -j"$(nproc)" -L unit
# A fixed seed: a CI gate must replay the same inputs as the developer's run of this script.
export OPSCOPE_FUZZ_SEED="${OPSCOPE_FUZZ_SEED-1}" # set but empty: a new seed each run
log "fuzzers, ${SECONDS_EACH}s each, seed ${OPSCOPE_FUZZ_SEED:-random}"
ctest --output-on-failure -j"$(nproc)" -L fuzz
