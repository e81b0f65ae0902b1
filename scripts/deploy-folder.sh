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

# Not `--legacy`: that deploy resolves every dependency afresh from the registry and ignores the
# lockfile (a folder built on another day held other versions than the ones tested, and broke
# when the registry served a release whose own dependency it did not have yet). Injected workspace
# packages are what lets pnpm deploy from the lockfile; for this command only, the workspace's
# own install keeps its links.
pnpm --filter "@gateway/$app" --prod deploy --config.inject-workspace-packages=true \
  --config.node-linker=hoisted "$out" >/dev/null
# (the lockfile deploy writes into the folder is the workspace's; nothing reads it at run time)
rm "$out/pnpm-lock.yaml"
mkdir -p "$out/workspace"
mv "$out/node_modules/@gateway" "$out/workspace/@gateway"
ln -s ../workspace/@gateway "$out/node_modules/@gateway"
echo "deploy-folder: $app in $out ($(du -sh "$out" | cut -f1))"
