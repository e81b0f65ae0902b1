#!/usr/bin/env bash
# HAProxy, the load balancer the split deployment's end-to-end test puts in front of two gateways
# (apps/standalone/test/e2e/load-balancer.ts). The test starts its own HAProxy, with a config it
# writes for the gateways' ports; this script only provides the binary.
#
#   infra/haproxy.sh install   install Debian's haproxy if absent
#   infra/haproxy.sh path      print the binary's path (exit 3 when it is not installed)
set -euo pipefail
ENGINE=haproxy
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

binary() { command -v haproxy || { [[ -x /usr/sbin/haproxy ]] && echo /usr/sbin/haproxy; }; }

case "${1:-}" in
  install)
    binary >/dev/null || apt_install haproxy
    log "$("$(binary)" -v | head -n 1)"
    ;;
  path) binary || exit 3 ;;
  *)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
