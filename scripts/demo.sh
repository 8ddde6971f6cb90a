#!/usr/bin/env bash
# Sets up everything, builds, and prints the bundled example model's structure the way a
# coreai-opt Quantizer config must name it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"
# Only what the demo runs: the test targets (LibTorch-linked) are most of a full build, and the
# tests' packages (transformers, clang, ...) most of the installs. scripts/test.sh later turns
# the same build folder into a test build.
OPSCOPE_RUN_ONLY=1 OPSCOPE_TARGETS="opscope opscope-inspect" scripts/setup.sh
export VIRTUAL_ENV="$ROOT/.venv"
"$BUILD_DIR/opscope" summary examples/resnet/model.py:build --input 1x3x64x64 --compressor quantizer "$@"
