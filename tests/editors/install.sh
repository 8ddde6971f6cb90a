#!/usr/bin/env bash
# Installs what the real-editor tests need: Debian packages (Chromium, Neovim, Emacs, the native
# build deps of code-server) and npm packages (code-server, playwright-core) into TOOLS_DIR, plus
# the VS Code extension's own dependencies. Idempotent: a second run only checks.
#
# usage: tests/editors/install.sh [BUILD_DIR]
#   npm tools go to BUILD_DIR/editor-tools (BUILD_DIR defaults to $OPSCOPE_BUILD_DIR, then build);
#   $OPSCOPE_EDITOR_TOOLS overrides that folder.
# Set OPSCOPE_SKIP_APT=1 to skip the apt step (e.g. when not root).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${1:-${OPSCOPE_BUILD_DIR:-build}}
[[ $build_dir = /* ]] || build_dir="$repo/$build_dir"
tools=${OPSCOPE_EDITOR_TOOLS:-$build_dir/editor-tools}
code_server_version=4.100.3
playwright_version=1.65.1
mkdir -p "$tools"
tools=$(cd "$tools" && pwd)

log() { echo "install.sh: $*"; }

# --- Debian packages --------------------------------------------------------------------------
apt_wanted=(chromium neovim emacs-nox ripgrep libkrb5-dev libxkbfile-dev libsecret-1-dev
            fonts-dejavu-core python3 g++ make)
if [[ ${OPSCOPE_SKIP_APT:-0} != 1 ]]; then
  missing=()
  for p in "${apt_wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  # Debian 12's Emacs 28 needs eglot from elpa-eglot; Emacs 29+ has it built in (no such package).
  if ! dpkg-query -W -f='${Status}' elpa-eglot 2>/dev/null | grep -q 'ok installed'; then
    if apt-cache show elpa-eglot >/dev/null 2>&1; then missing+=(elpa-eglot); fi
  fi
  if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""; [[ $(id -u) != 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    # elpa-eglot may only show up after the update.
    if apt-cache show elpa-eglot >/dev/null 2>&1 && [[ ! " ${missing[*]} " =~ " elpa-eglot " ]] &&
       ! dpkg-query -W -f='${Status}' elpa-eglot 2>/dev/null | grep -q 'ok installed'; then
      missing+=(elpa-eglot)
    fi
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    log "apt packages present"
  fi
fi

# --- npm: code-server and playwright-core -----------------------------------------------------
# code-server 4.100.3 is the last one whose runtime works on Node 20 (see editors/README.md).
npm_env=(npm_config_unsafe_perm=true npm_config_nodedir=/usr npm_config_yes=true
         npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false)
if [[ -x $tools/node_modules/.bin/code-server &&
      $(node -p "require('$tools/node_modules/code-server/package.json').version" 2>/dev/null) == "$code_server_version" &&
      -d $tools/node_modules/playwright-core ]]; then
  log "code-server $code_server_version and playwright-core present in $tools"
else
  log "npm install code-server@$code_server_version playwright-core@$playwright_version into $tools"
  # @vscode/ripgrep downloads rg from GitHub in its postinstall; pre-seed its cache with Debian's rg.
  tmp="$tools/tmp"
  mkdir -p "$tmp/vscode-ripgrep-cache-1.15.11" "$tmp/rg-pack"
  cp /usr/bin/rg "$tmp/rg-pack/rg"
  for name in ripgrep-v13.0.0-10-x86_64-unknown-linux-musl ripgrep-v13.0.0-4-x86_64-unknown-linux-musl; do
    tar -C "$tmp/rg-pack" -czf "$tmp/vscode-ripgrep-cache-1.15.11/$name.tar.gz" rg
  done
  [[ -f $tools/package.json ]] || echo '{"name":"opscope-editor-tools","private":true}' >"$tools/package.json"
  (cd "$tools" && env "${npm_env[@]}" TMPDIR="$tmp" \
     npm install --no-save --loglevel=error \
       "code-server@$code_server_version" "playwright-core@$playwright_version")
fi

# --- the VS Code extension's own dependencies (tsc, vsce, vscode-languageclient) --------------
ext="$repo/editors/vscode"
if [[ -d $ext/node_modules/vscode-languageclient && -d $ext/node_modules/@vscode/vsce &&
      $ext/node_modules/.package-lock.json -nt $ext/package-lock.json ]]; then
  log "extension dependencies present"
else
  log "npm ci in $ext"
  (cd "$ext" && env "${npm_env[@]}" npm ci --loglevel=error)
fi
log "done: tools in $tools"
