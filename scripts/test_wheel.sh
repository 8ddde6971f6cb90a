#!/usr/bin/env bash
# The wheel end to end (issue 16): build the sdist and, from it, the repaired wheel
# (scripts/build_wheel.sh), install the wheel into a fresh venv without system site packages,
# add torch==2.13.0 there (the venv's own torch, for exporting the Python example), and run
# tests/install/test_wheel.py against that venv; then real VS Code (code-server) with that venv
# as the selected interpreter and no opscope.path, so the extension's server is the wheel's
# (tests/editors/vscode/wheel.test.js; needs tests/editors/install.sh's tools, else skipped with
# a message). Prints the time of each step.
#
# usage: scripts/test_wheel.sh            (scripts/test.sh runs it after the ctest suites)
#   OPSCOPE_WHEEL_TORCH=0   skip torch in the venv (the Python-example test is then skipped)
#   OPSCOPE_BUILD_DIR       the build folder holding editor-tools/ (default: build); the
#                           screenshots go to its editor-screenshots/
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
t_tests=$(($(date +%s) - t0 - t_build - t_venv))

step "VS Code with the venv as the interpreter (tests/editors/vscode/wheel.test.js)"
build_dir="${OPSCOPE_BUILD_DIR:-build}"
[[ $build_dir = /* ]] || build_dir="$ROOT/$build_dir"
tools="${OPSCOPE_EDITOR_TOOLS:-$build_dir/editor-tools}"
if [[ -x $tools/node_modules/.bin/code-server && -d editors/vscode/node_modules ]]; then
  # The extension the editor tests packaged from this checkout, unless a source changed since.
  vsix="$build_dir/editor-work/opscope.vsix"
  if [[ ! -f $vsix || -n "$(find editors/vscode/src editors/vscode/package.json -newer "$vsix" -print -quit)" ]]; then
    vsix=""
  fi
  OPSCOPE_WHEEL_VENV="$work/venv" OPSCOPE_EDITOR_TOOLS="$tools" OPSCOPE_EDITOR_WORK="$work/editor" \
    OPSCOPE_VSIX="$vsix" OPSCOPE_SCREENSHOTS="$build_dir/editor-screenshots" \
    node --test-reporter=spec tests/editors/vscode/wheel.test.js
else
  echo "== test_wheel: SKIPPED the VS Code run: no code-server in $tools (run tests/editors/install.sh)" >&2
fi
t_total=$(($(date +%s) - t0))
t_vscode=$((t_total - t_build - t_venv - t_tests))
printf '== test_wheel: passed in %d s (sdist + wheel + repair %d s, venv + install %d s, tests %d s, VS Code %d s); wheel: %s (%s)\n' \
  "$t_total" "$t_build" "$t_venv" "$t_tests" "$t_vscode" \
  "$(cd "$work/dist" && ls opscope-*.whl)" "$(du -h "$work"/dist/opscope-*.whl | cut -f1)" >&2
