#!/usr/bin/env bash
# Sets up everything (apt, .venv, editors' tooling), builds, and runs every test with ctest:
# unit tests, fidelity against coreai-opt, LSP transcripts and the real-editor tests; then
# the unit tests again under ASan + UBSan with every fuzzer for a fixed time
# (scripts/test_sanitized.sh), a plain Release build as a user makes it, and the wheel
# installed in a fresh venv (scripts/test_wheel.sh).
#   OPSCOPE_BUILD_DIR   build folder (default: build)
#   OPSCOPE_SKIP_SANITIZED=1  skip the sanitizer/fuzzer stage and the Release build
#   OPSCOPE_SKIP_WHEEL=1      skip the wheel test (scripts/test_wheel.sh: sdist, wheel, fresh venv)
#   extra arguments go to the first ctest (e.g. -R fidelity)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"

# Developers and CI build with warnings as errors; a user's build never fails on one.
OPSCOPE_WERROR=1 scripts/setup.sh
if [[ -x tests/editors/install.sh ]]; then
  tests/editors/install.sh "$BUILD_DIR"
fi
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1500 "$@")

if [[ "${OPSCOPE_SKIP_SANITIZED:-0}" != 1 ]]; then
  scripts/test_sanitized.sh
  scripts/build_release.sh
fi
if [[ "${OPSCOPE_SKIP_WHEEL:-0}" != 1 ]]; then
  scripts/test_wheel.sh
fi
