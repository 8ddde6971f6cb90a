#!/bin/sh
# Every fixture model and every tiny Hugging Face architecture: a weightless export gives the
# same index as a real one, graph and eager mode (ctest's fidelity_weightless runs a subset).
#   bench/weightless_equality.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
OPSCOPE_WEIGHTLESS_ALL=1 OPSCOPE_INSPECT="$build/opscope-inspect" \
  exec "$root/.venv/bin/python" -m pytest -q -s -p no:cacheprovider \
  "$root/tests/fidelity/test_weightless.py"
