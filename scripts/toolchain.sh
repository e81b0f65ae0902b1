# shellcheck shell=bash
# Source this file (do not execute it):   source scripts/toolchain.sh
#
# Makes the project's toolchain available in the current bash shell:
#   * node >= 22.16: the `node` already on PATH if it is new enough, otherwise
#     Node from the npm registry package `node-linux-<arch>` (major
#     $GATEWAY_NODE_VERSION, default 24), unpacked once into
#     <repo>/.tools/node/bin/node and put first on PATH.
#   * pnpm at the version pinned in package.json ("packageManager"): corepack
#     shims in <repo>/.tools/bin (COREPACK_INTEGRITY_KEYS=0), or, if corepack
#     does not work, `npm install -g pnpm@<pinned>` into <repo>/.tools/pnpm.
#
# Idempotent (a second source downloads nothing), quiet (prints only on
# failure, or when it downloads something), safe under `set -euo pipefail`,
# and it does not change the caller's shell options. Returns non-zero on
# failure. Tunables: GATEWAY_NODE_VERSION (npm version spec, default 24),
# GATEWAY_TOOLCHAIN_VERBOSE=1 (say what was chosen).

if [ -z "${BASH_VERSION:-}" ]; then
  echo "toolchain.sh: needs bash (source it from bash)" >&2
  # shellcheck disable=SC2317 # exit is reached only when this file is executed by sh
  return 1 2>/dev/null || exit 1
fi
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  echo "toolchain.sh: source this file instead of running it: source scripts/toolchain.sh" >&2
  exit 1
fi

_gw_log() { echo "toolchain: $*" >&2; }

_gw_path_prepend() {
  local d="$1" p=":${PATH:-}:"
  while [[ "$p" == *":$d:"* ]]; do p="${p//:"$d":/:}"; done
  p="${p#:}"
  p="${p%:}"
  PATH="$d${p:+:$p}"
  export PATH
}

# _gw_node_ok BIN: true when BIN runs and is >= 22.16 (node:sqlite unflagged, with FTS5: the
# embedded store looks upstream ids up through it)
_gw_node_ok() {
  local v major minor rest
  v="$("$1" --version 2>/dev/null)" || return 1
  v="${v#v}"
  major="${v%%.*}"
  rest="${v#*.}"
  minor="${rest%%.*}"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  ((major > 22 || (major == 22 && minor >= 16)))
}

_gw_fetch_node() {
  local tools="$1" spec="$2" arch pkg tmp tgz
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      _gw_log "no Node package for architecture $(uname -m)"
      return 1
      ;;
  esac
  pkg="node-linux-$arch@$spec"
  if ! command -v npm >/dev/null 2>&1; then
    _gw_log "need npm (any version) to download $pkg; install Debian's npm or a Node >= 22.16"
    return 1
  fi
  mkdir -p "$tools" || return 1
  tmp="$(mktemp -d "$tools/.node-download.XXXXXX")" || return 1
  _gw_log "downloading $pkg from the npm registry into $tools/node (once)"
  if ! (cd "$tmp" && npm pack --silent "$pkg") >"$tmp/npm.log" 2>&1; then
    _gw_log "npm pack $pkg failed:"
    tail -n 20 "$tmp/npm.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  tgz="$(find "$tmp" -maxdepth 1 -name '*.tgz' -print -quit)"
  if [[ -z "$tgz" ]] || ! tar -xzf "$tgz" -C "$tmp" package/bin/node; then
    _gw_log "could not unpack package/bin/node from $pkg"
    rm -rf "$tmp"
    return 1
  fi
  chmod 0755 "$tmp/package/bin/node"
  if ! _gw_node_ok "$tmp/package/bin/node"; then
    _gw_log "downloaded node does not run or is older than 22.16"
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$tools/node/bin" && mv -f "$tmp/package/bin/node" "$tools/node/bin/node"
  local rc=$?
  rm -rf "$tmp"
  return "$rc"
}

_gw_ensure_node() {
  local tools="$1" cur
  cur="$(command -v node 2>/dev/null || true)"
  if [[ -n "$cur" ]] && _gw_node_ok "$cur"; then
    return 0
  fi
  if ! _gw_node_ok "$tools/node/bin/node"; then
    _gw_fetch_node "$tools" "${GATEWAY_NODE_VERSION:-24}" || return 1
  fi
  _gw_path_prepend "$tools/node/bin"
  hash -r
}

# prints the pnpm version pinned by package.json's "packageManager" (pnpm@X[+sha...])
_gw_pinned_pnpm() {
  local line
  line="$(grep -Eo '"packageManager"[[:space:]]*:[[:space:]]*"pnpm@[^"+]+' "$1/package.json" 2>/dev/null)" || return 1
  echo "${line##*pnpm@}"
}

# _gw_pnpm_is DIR VERSION: `pnpm --version` (as found on PATH, run in DIR) is VERSION
_gw_pnpm_is() {
  local got
  got="$(cd "$1" && pnpm --version 2>/dev/null </dev/null)" || return 1
  [[ "$got" == "$2" ]]
}

_gw_ensure_pnpm() {
  local repo="$1" tools="$1/.tools" want
  want="$(_gw_pinned_pnpm "$repo")" || {
    _gw_log "no \"packageManager\": \"pnpm@...\" in $repo/package.json"
    return 1
  }
  export COREPACK_INTEGRITY_KEYS=0 # the keys in older corepack releases are out of date
  export COREPACK_ENABLE_DOWNLOAD_PROMPT=0
  export COREPACK_ENABLE_AUTO_PIN=0 # never let corepack rewrite package.json
  export COREPACK_ENABLE_STRICT=0

  # 1. npm fallback installed by an earlier run: keep using it
  if [[ -x "$tools/pnpm/bin/pnpm" ]]; then
    _gw_path_prepend "$tools/pnpm/bin"
    hash -r
    _gw_pnpm_is "$repo" "$want" && return 0
  fi

  # 2. corepack shims in .tools/bin
  if command -v corepack >/dev/null 2>&1; then
    if [[ ! -e "$tools/bin/pnpm" ]]; then
      mkdir -p "$tools/bin"
      corepack enable --install-directory "$tools/bin" pnpm >/dev/null 2>&1 || true
    fi
    if [[ -e "$tools/bin/pnpm" ]]; then
      _gw_path_prepend "$tools/bin"
      hash -r
      # the first run downloads pnpm into corepack's cache (COREPACK_HOME)
      _gw_pnpm_is "$repo" "$want" && return 0
      _gw_log "corepack could not provide pnpm@$want; falling back to npm"
    fi
  fi

  # 3. fallback: npm install -g pnpm@<pinned> into .tools/pnpm
  if ! command -v npm >/dev/null 2>&1; then
    _gw_log "neither corepack nor npm can provide pnpm@$want"
    return 1
  fi
  _gw_log "installing pnpm@$want with npm into $tools/pnpm"
  rm -rf "$tools/pnpm"
  if ! npm install -g --silent --no-audit --no-fund --prefix "$tools/pnpm" "pnpm@$want" >"$tools/pnpm-npm.log" 2>&1; then
    _gw_log "npm install pnpm@$want failed (log: $tools/pnpm-npm.log):"
    tail -n 20 "$tools/pnpm-npm.log" >&2
    return 1
  fi
  _gw_path_prepend "$tools/pnpm/bin"
  hash -r
  if ! _gw_pnpm_is "$repo" "$want"; then
    _gw_log "pnpm from npm does not report version $want"
    return 1
  fi
}

_gw_toolchain() {
  local repo
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)" || return 1
  _gw_ensure_node "$repo/.tools" || return 1
  _gw_ensure_pnpm "$repo" || return 1
  if [[ "${GATEWAY_TOOLCHAIN_VERBOSE:-0}" == 1 ]]; then
    _gw_log "node $(node --version) at $(command -v node); pnpm $(cd "$repo" && pnpm --version) at $(command -v pnpm)"
  fi
}

_gw_rc=0
_gw_toolchain || _gw_rc=$?
unset -f _gw_log _gw_path_prepend _gw_node_ok _gw_fetch_node _gw_ensure_node \
  _gw_pinned_pnpm _gw_pnpm_is _gw_ensure_pnpm _gw_toolchain
if [[ "$_gw_rc" -ne 0 ]]; then
  unset _gw_rc
  return 1
fi
unset _gw_rc
