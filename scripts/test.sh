#!/usr/bin/env bash
# Sets up everything (apt, .venv, editors' tooling), builds, and runs every test with ctest:
# unit tests, fidelity against coreai-opt, LSP transcripts and the real-editor tests; then
# the unit tests again under ASan + UBSan with every fuzzer for a fixed time
# (scripts/test_sanitized.sh), and the wheel installed in a fresh venv (scripts/test_wheel.sh).
# The wheel is built the way a user builds (Release, no -Werror, no LibTorch), so it is also
# the check that a user's ordinary build never fails on a warning; when the wheel test is
# skipped, scripts/build_release.sh makes that build instead. Each stage prints its time.
#   OPSCOPE_BUILD_DIR   build folder (default: build)
#   OPSCOPE_SKIP_SANITIZED=1  skip the sanitizer/fuzzer stage
#   OPSCOPE_SKIP_WHEEL=1      skip the wheel test (scripts/test_wheel.sh: sdist, wheel, fresh venv)
#   extra arguments go to the first ctest (e.g. -R fidelity)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"
started=$(date +%s)
stage_done() { printf '== test.sh: %s done, %d s since the start\n' "$1" $(($(date +%s) - started)) >&2; }

# Developers and CI build with warnings as errors; a user's build never fails on one.
OPSCOPE_WERROR=1 scripts/setup.sh
if [[ -x tests/editors/install.sh ]]; then
  tests/editors/install.sh "$BUILD_DIR"
fi
stage_done "setup and build"
# Two at a time on two cores: most tests are one Python process waiting on another (17.5 min
# instead of 34 serial); the editors and the timing-sensitive ones are RUN_SERIAL.
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1500 -j"$(nproc)" "$@")
stage_done "ctest"

if [[ "${OPSCOPE_SKIP_SANITIZED:-0}" != 1 ]]; then
  scripts/test_sanitized.sh
  stage_done "sanitizers and fuzzers"
fi
if [[ "${OPSCOPE_SKIP_WHEEL:-0}" != 1 ]]; then
  scripts/test_wheel.sh
  stage_done "wheel"
else
  scripts/build_release.sh
  stage_done "release build"
fi
