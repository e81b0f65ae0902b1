#!/usr/bin/env bash
# A private Redis server for tests and local development of the split deployment.
#
#   infra/redis.sh start    install Debian's redis-server if absent, start, wait until it answers
#                           PING (no-op when already running)
#   infra/redis.sh stop     stop the server this script started (by its pid)
#   infra/redis.sh status   print running/stopped (exit 0 when running, 3 when not)
#   infra/redis.sh url      print the connection URL
#
# Environment: GATEWAY_REDIS_PORT (default in distributed.env), REDIS_DIR (default .tools/redis).
#
# Not Debian's system service: a server of its own on 127.0.0.1:$GATEWAY_REDIS_PORT, data in
# .tools/redis, no persistence (the control plane rebuilds the cache from PostgreSQL at start).
set -euo pipefail
ENGINE=redis
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# REDIS_DIR: a second private instance (the fault tests stop and start one of their own)
DIR="${REDIS_DIR:-$TOOLS/redis}"
PIDFILE="$DIR/redis.pid"
PORT="$GATEWAY_REDIS_PORT"

url() { echo "redis://127.0.0.1:$PORT"; }
ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" == PONG ]]; }

start() {
  if pid_alive "$PIDFILE"; then
    wait_for 10 ping || die "pid $(cat "$PIDFILE") runs but does not answer on port $PORT"
    return 0
  fi
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  port_open "$PORT" && die "port $PORT is taken by another process"
  mkdir -p "$DIR"
  # --daemonize writes the pid file itself; logs go to a file we can show on failure
  redis-server --bind 127.0.0.1 --port "$PORT" --protected-mode yes --dir "$DIR" \
    --daemonize yes --pidfile "$PIDFILE" --logfile "$DIR/redis.log" \
    --save "" --appendonly no >/dev/null
  if ! wait_for 20 ping; then
    tail -n 20 "$DIR/redis.log" >&2 || true
    die "redis did not answer on 127.0.0.1:$PORT"
  fi
  log "running: $(url)"
}

stop() { stop_pid "$PIDFILE" 10; }

engine_main "$@"
