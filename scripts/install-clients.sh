#!/usr/bin/env bash
# Installs the clients people point at a gateway, for the real-client suite
# (apps/standalone/test/e2e/real-clients.ts), into <repo>/.tools/clients:
#   python/  a virtualenv with the official `openai` and `anthropic` SDKs, and schemathesis (the
#            API fuzzer of apps/standalone/test/e2e/fuzz.ts), from PyPI
#   npm/     Codex CLI (`@openai/codex`, its native binary comes inside the package) and
#            Claude Code (`@anthropic-ai/claude-code`), from the npm registry
# The Node SDKs are the workspace's own devDependencies. Versions are pinned here, so a run is
# repeatable; raise them deliberately. What the Python clients pull in is pinned too
# (scripts/clients-constraints.txt); the npm clients pull in nothing but their own platform
# binaries, at their own exact version. Idempotent: a second run installs nothing. Prints the
# directory on success.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="$(pwd -P)/.tools/clients"
python_packages=(openai==3.57.0 anthropic==2.13.0 schemathesis==4.32.5)
npm_packages=(@openai/codex@0.169.0 @anthropic-ai/claude-code@2.1.331)

mkdir -p "$dir"
stamp="$dir/.installed"
constraints="$(pwd -P)/scripts/clients-constraints.txt"
want="${python_packages[*]} ${npm_packages[*]} $(sha256sum "$constraints" | cut -c1-16)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$dir"
  exit 0
fi

python3 -m venv "$dir/python"
"$dir/python/bin/pip" install --quiet --disable-pip-version-check -c "$constraints" "${python_packages[@]}" >&2
npm install --silent --no-audit --no-fund --prefix "$dir/npm" "${npm_packages[@]}" >&2
# each client answers, or the install failed
"$dir/python/bin/python" -c 'import openai, anthropic, schemathesis' >&2
"$dir/npm/node_modules/.bin/codex" --version >&2
"$dir/npm/node_modules/.bin/claude" --version >&2
echo "$want" >"$stamp"
echo "$dir"
