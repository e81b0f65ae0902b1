#!/usr/bin/env bash
# The folder one app runs from, as its image holds it (the Dockerfile runs this script):
#
#   scripts/deploy-folder.sh <app> <out>     app: gateway, control-plane, capture-writer,
#                                            costing-worker or standalone
#
# <out> gets the app's own files (package.json, src/), its production dependencies as the lockfile
# pins them (pnpm deploy, patches applied, one flat node_modules), and the workspace packages it
# uses under workspace/@gateway, linked from node_modules/@gateway: Node strips TypeScript's types
# only outside node_modules, and a workspace package resolves its own dependencies from the flat
# node_modules above it. Run it with `node src/main.ts` from <out>; nothing else is needed (no
# pnpm, no workspace, no source tree). Needs the workspace installed (pnpm install).
set -euo pipefail

app="${1:?usage: scripts/deploy-folder.sh <app> <out>}"
out="${2:?usage: scripts/deploy-folder.sh <app> <out>}"
out="$(realpath -m "$out")" # relative to where it was called from, not the repo
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f "apps/$app/src/main.ts" ]] || {
  echo "deploy-folder: no app named $app (apps/$app/src/main.ts)" >&2
  exit 2
}
[[ ! -e "$out" ]] || {
  echo "deploy-folder: $out exists; give a path that does not" >&2
  exit 2
}

pnpm --filter "@gateway/$app" --prod deploy --legacy --config.node-linker=hoisted "$out" >/dev/null
mkdir -p "$out/workspace"
mv "$out/node_modules/@gateway" "$out/workspace/@gateway"
ln -s ../workspace/@gateway "$out/node_modules/@gateway"
echo "deploy-folder: $app in $out ($(du -sh "$out" | cut -f1))"
