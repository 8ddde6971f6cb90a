#!/usr/bin/env bash
# Runs every benchmark with the project's Python; arguments go to bench/run.py
# (e.g. --quick, --build-dir build-g). See bench/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec "$ROOT/.venv/bin/python" "$ROOT/bench/run.py" "$@"
