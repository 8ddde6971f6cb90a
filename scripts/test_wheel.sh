#!/usr/bin/env bash
# The wheel end to end (issue 16): build the sdist and, from it, the repaired wheel
# (scripts/build_wheel.sh), install the wheel into a fresh venv without system site packages,
# add torch==2.13.0 there (the venv's own torch, for exporting the Python example), and run
# tests/install/test_wheel.py against that venv. Prints the time of each step.
#
# usage: scripts/test_wheel.sh            (scripts/test.sh runs it after the ctest suites)
#   OPSCOPE_WHEEL_TORCH=0   skip torch in the venv (the Python-example test is then skipped)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${OPSCOPE_PYTHON:-$ROOT/.venv/bin/python}"
work="$(mktemp -d "${TMPDIR:-/tmp}/opscope-wheel-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
step() { printf '== test_wheel: %s (%d s so far)\n' "$*" $(($(date +%s) - t0)) >&2; }

step "building the sdist and the wheel"
scripts/build_wheel.sh "$work/dist"
t_build=$(($(date +%s) - t0))

step "fresh venv (no system site packages), pip install the wheel"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-index "$work"/dist/opscope-*.whl
if [[ "${OPSCOPE_WHEEL_TORCH:-1}" == 1 ]]; then
  step "torch==2.13.0 into the venv"
  "$work/venv/bin/pip" install -q --disable-pip-version-check -c scripts/deps/constraints.txt torch==2.13.0
fi
t_venv=$(($(date +%s) - t0 - t_build))

step "tests/install/test_wheel.py"
OPSCOPE_WHEEL_VENV="$work/venv" "$PY" -m pytest -q -p no:cacheprovider tests/install/test_wheel.py
t_total=$(($(date +%s) - t0))
printf '== test_wheel: passed in %d s (sdist + wheel + repair %d s, venv + install %d s, tests %d s); wheel: %s (%s)\n' \
  "$t_total" "$t_build" "$t_venv" $((t_total - t_build - t_venv)) \
  "$(cd "$work/dist" && ls opscope-*.whl)" "$(du -h "$work"/dist/opscope-*.whl | cut -f1)" >&2
