#!/usr/bin/env bash
# Sets up everything (apt, .venv, editors' tooling), builds, and runs every test with ctest:
# unit tests, fidelity against coreai-opt, LSP transcripts and the real-editor tests.
#   OPSCOPE_BUILD_DIR   build folder (default: build)
#   extra arguments go to ctest (e.g. -R fidelity)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"

scripts/setup.sh
if [[ -x tests/editors/install.sh ]]; then
  tests/editors/install.sh "$BUILD_DIR"
fi
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 1500 "$@"
