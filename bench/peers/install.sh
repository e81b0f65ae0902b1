#!/usr/bin/env bash
# Installs the peers `BENCH_PEERS` can measure into .tools/bench-peers/ (git-ignored), at pinned
# versions: Portkey's gateway from npm, the LiteLLM proxy from PyPI into its own venv. Opt-in and
# outside the pnpm workspace: nothing in CI runs this. Idempotent: a peer already at its pinned
# version is left as it is. Usage: bash bench/peers/install.sh [portkey] [litellm] (default: both).
set -euo pipefail

PORTKEY_VERSION=1.15.2
# Portkey's gateway appends headers to responses, which @hono/node-server from 1.14.2 on
# (honojs/node-server#242) hands it with the upstream's immutable headers: every streamed answer
# fails with "TypeError: immutable" (Portkey-AI/gateway#1389, open). Its dependency ranges allow
# those, so pin the last good one, and @hono/node-ws at the last release whose peer range takes it
# (1.3 wants node-server 1.19).
PORTKEY_PACKAGES=("@portkey-ai/gateway@$PORTKEY_VERSION" "@hono/node-server@1.14.1" "@hono/node-ws@1.2.0")
# The newest whose [proxy] extra pip resolves from PyPI here: later ones want newer
# litellm-proxy-extras releases and, from 1.110, a litellm-proxy package the registry does not have.
LITELLM_VERSION=1.108.7

root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/.tools/bench-peers"
mkdir -p "$dir"

install_portkey() {
  local prefix="$dir/portkey"
  # Installed when every copy of each package (npm nests another where a range asks) is at its pin.
  local installed=yes package copy
  for package in "${PORTKEY_PACKAGES[@]}"; do
    local name="${package%@*}" version="${package##*@}" copies=()
    [[ -d "$prefix/node_modules" ]] &&
      mapfile -t copies < <(find "$prefix/node_modules" -path "*/node_modules/$name/package.json")
    [[ ${#copies[@]} -gt 0 ]] || installed=no
    for copy in "${copies[@]}"; do
      grep -q "\"version\": \"$version\"" "$copy" || installed=no
    done
  done
  if [[ $installed == yes ]]; then
    echo "portkey $PORTKEY_VERSION: already installed"
    return
  fi
  # --no-fund/--no-audit: npm's own calls beyond the registry's packages. --ignore-scripts: its
  # postinstall runs patch-package on patches its package does not ship.
  npm install --prefix "$prefix" --no-fund --no-audit --omit=dev --ignore-scripts --save-exact \
    "${PORTKEY_PACKAGES[@]}"
  echo "portkey $PORTKEY_VERSION: installed in $prefix"
}

install_litellm() {
  local venv="$dir/litellm"
  if [[ -x "$venv/bin/litellm" ]] &&
    [[ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("litellm"))')" == "$LITELLM_VERSION" ]]; then
    echo "litellm $LITELLM_VERSION: already installed"
    return
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "litellm[proxy]==$LITELLM_VERSION"
  echo "litellm $LITELLM_VERSION: installed in $venv"
}

peers=("$@")
[[ ${#peers[@]} -gt 0 ]] || peers=(portkey litellm)
for peer in "${peers[@]}"; do
  case "$peer" in
    portkey) install_portkey ;;
    litellm) install_litellm ;;
    *) echo "unknown peer: $peer (portkey, litellm)" >&2 && exit 2 ;;
  esac
done
