#!/usr/bin/env bash
# Installs Debian's `chromium` for the console's browser tests (apps/control-plane/test/console/),
# which drive it with playwright-core. Packages that download their own browser (`playwright
# install`, plain `puppeteer`) fail on the build machine, so the browser comes from apt.
# Idempotent: a second run installs nothing. Prints the browser's path on success.
set -euo pipefail

browser=/usr/bin/chromium
if [[ ! -x "$browser" ]]; then
  run_as_root=()
  if ((EUID != 0)); then run_as_root=(sudo); fi
  "${run_as_root[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${run_as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
fi
"$browser" --version >&2
echo "$browser"
