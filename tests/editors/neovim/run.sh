#!/usr/bin/env bash
# Runs the Neovim headless editor test in a fresh copy of the example project, trusted as a
# user would (`opscope trust`); `run.sh trust` runs trust.lua in a hostile repository instead;
# `run.sh peft` runs peft.lua on the PEFT configs of ../peft (no opscope.yaml; their base model
# in a private Hugging Face cache, exported with OPSCOPE_PYTHON's venv as the activated one);
# `run.sh llmcompressor` runs llmcompressor.lua on ../llmcompressor (a checkpoint, its own model).
# env: OPSCOPE_BIN (required), OPSCOPE_EDITOR_WORK (scratch folder, default a temp dir),
# OPSCOPE_PYTHON (required by `peft` and `llmcompressor`). Each script loads harness.lua (report,
# finish, client, requests) first.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
: "${OPSCOPE_BIN:?set OPSCOPE_BIN to the built opscope}"
command -v nvim >/dev/null || { echo "nvim not found: run tests/editors/install.sh" >&2; exit 1; }
mkdir -p "${OPSCOPE_EDITOR_WORK:-${TMPDIR:-/tmp}}"
work=$(mktemp -d "${OPSCOPE_EDITOR_WORK:-${TMPDIR:-/tmp}}/nvim-XXXXXX")
trap 'rm -rf "$work"' EXIT
example=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dir"])' "$repo/tests/editors/example.json")
src=${OPSCOPE_EXAMPLE_DIR:-$example}
[[ $src = /* ]] || src="$repo/$src"
mkdir -p "$work/xdg/config" "$work/xdg/data" "$work/xdg/state" "$work/xdg/cache"
export XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" XDG_STATE_HOME="$work/xdg/state"
export XDG_CACHE_HOME="$work/xdg/cache" OPSCOPE_WS="$work/ws" OPSCOPE_REPO="$repo"
if [[ ${1:-} == trust ]]; then
  script=trust.lua
  python3 "$repo/tests/hostile_repo.py" "$work/ws" >/dev/null
elif [[ ${1:-} == peft ]]; then
  script=peft.lua
  source "$repo/tests/editors/peft_env.sh"
elif [[ ${1:-} == llmcompressor ]]; then
  script=llmcompressor.lua
  source "$repo/tests/editors/llmcompressor_env.sh"
else
  script=test.lua
  cp -r "$src" "$work/ws"
  # A training script with its config in Python (issue 12), shared with the other editors' tests.
  cp "$repo"/tests/editors/workspace/* "$work/ws/"
  # The example's Python target runs with the model's Python once the user trusts the project.
  [[ -z ${OPSCOPE_PYTHON:-} ]] || printf 'python: %s\n' "$OPSCOPE_PYTHON" >>"$work/ws/opscope.yaml"
  "$OPSCOPE_BIN" trust "$work/ws/opscope.yaml" | sed 's/^/# /'
fi
nvim --version | head -1
exec timeout 300 nvim --headless -u NONE -i NONE -n -c "luafile $here/$script"
