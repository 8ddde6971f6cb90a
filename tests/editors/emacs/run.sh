#!/usr/bin/env bash
# Runs the Emacs batch (eglot) editor test in a fresh copy of the example project, trusted as a
# user would (`opscope trust`); `run.sh trust` runs trust.el in a hostile repository instead;
# `run.sh peft` runs peft.el on the PEFT configs of ../peft (no opscope.yaml; their base model
# in a private Hugging Face cache, exported with OPSCOPE_PYTHON's venv as the activated one);
# `run.sh llmcompressor` runs llmcompressor.el on ../llmcompressor (a checkpoint, its own model).
# env: OPSCOPE_BIN (required), OPSCOPE_EDITOR_WORK (scratch folder, default a temp dir),
# OPSCOPE_PYTHON (required by `peft` and `llmcompressor`).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
: "${OPSCOPE_BIN:?set OPSCOPE_BIN to the built opscope}"
command -v emacs >/dev/null || { echo "emacs not found: run tests/editors/install.sh" >&2; exit 1; }
mkdir -p "${OPSCOPE_EDITOR_WORK:-${TMPDIR:-/tmp}}"
work=$(mktemp -d "${OPSCOPE_EDITOR_WORK:-${TMPDIR:-/tmp}}/emacs-XXXXXX")
trap 'rm -rf "$work"' EXIT
example=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dir"])' "$repo/tests/editors/example.json")
src=${OPSCOPE_EXAMPLE_DIR:-$example}
[[ $src = /* ]] || src="$repo/$src"
mkdir -p "$work/home"
export HOME="$work/home" OPSCOPE_WS="$work/ws" OPSCOPE_REPO="$repo"
export XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache"
if [[ ${1:-} == trust ]]; then
  script=trust.el
  python3 "$repo/tests/hostile_repo.py" "$work/ws" >/dev/null
elif [[ ${1:-} == peft ]]; then
  script=peft.el
  source "$repo/tests/editors/peft_env.sh"
elif [[ ${1:-} == llmcompressor ]]; then
  script=llmcompressor.el
  source "$repo/tests/editors/llmcompressor_env.sh"
else
  script=test.el
  cp -r "$src" "$work/ws"
  # A training script with its config in Python (issue 12), shared with the other editors' tests.
  cp "$repo"/tests/editors/workspace/* "$work/ws/"
  # The example's Python target runs with the model's Python once the user trusts the project.
  [[ -z ${OPSCOPE_PYTHON:-} ]] || printf 'python: %s\n' "$OPSCOPE_PYTHON" >>"$work/ws/opscope.yaml"
  "$OPSCOPE_BIN" trust "$work/ws/opscope.yaml" | sed 's/^/# /'
fi
# Debian's elpa-* packages (elpa-eglot on Emacs 28) are on the load path through package.el.
exec timeout 300 emacs --batch -Q --eval '(progn (require (quote package)) (add-to-list (quote package-directory-list) "/usr/share/emacs/site-lisp/elpa") (package-initialize))' -l "$here/harness.el" -l "$here/$script"
