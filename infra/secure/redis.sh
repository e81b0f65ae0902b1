#!/usr/bin/env bash
# A secured, replicated Redis for tests: a primary, one replica and three sentinels on
# 127.0.0.1, TLS only (port 0), ACL users, the sentinels over TLS and with a password too.
#
#   infra/secure/redis.sh start          write the configurations, start the five processes,
#                                        wait until the replica is in sync and the sentinels
#                                        agree (no-op when running)
#   infra/secure/redis.sh stop           stop every process this script started (by their pids)
#   infra/secure/redis.sh status         running/stopped per process (exit 0 when all run)
#   infra/secure/redis.sh url            the primary as the script started it (rediss://...)
#   infra/secure/redis.sh sentinels      the sentinels (host:port,...) and the master name
#   infra/secure/redis.sh primary        host:port of the primary as the sentinels see it now
#   infra/secure/redis.sh kill-primary   SIGKILL the process that is primary now
#   infra/secure/redis.sh cli PORT ARGS  redis-cli over TLS as the test user (sentinel ports: as
#                                        a sentinel client)
#
# Users on the data nodes: $SECURE_REDIS_USER (the apps: keys ~gw:*, channels &gw:*, every
# command but the @dangerous ones, with INFO and ROLE back), `replicator` (replication only),
# `sentinel` (what Sentinel needs); the default user is off. TLS client certificates are
# optional: a client may connect with the CA alone, and one that shows a certificate must show
# one of the CA's. No persistence: a restart starts empty, in the original roles.
set -euo pipefail
ENGINE=secure/redis
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROOT="$SECURE_DIR/redis"
MASTER="$SECURE_REDIS_MASTER_NAME"
INTERNAL="$SECURE_REDIS_INTERNAL_PASSWORD"
DATA_PORTS=("$SECURE_REDIS_PRIMARY_PORT" "$SECURE_REDIS_REPLICA_PORT")
SENTINEL_PORTS=()
for _n in 1 2 3; do SENTINEL_PORTS+=($((SECURE_REDIS_SENTINEL_PORT_BASE + _n))); done
unset _n

url() { echo "rediss://$SECURE_REDIS_USER:$SECURE_REDIS_PASSWORD@127.0.0.1:$SECURE_REDIS_PRIMARY_PORT"; }
sentinels() {
  local p out=""
  for p in "${SENTINEL_PORTS[@]}"; do out+="${out:+,}127.0.0.1:$p"; done
  echo "$out $MASTER"
}
pidfile() { echo "$ROOT/$1/redis.pid"; }
is_sentinel() { [[ " ${SENTINEL_PORTS[*]} " == *" $1 "* ]]; }

# cli PORT ARGS...: redis-cli over TLS with the CA, as the test user or as a sentinel's client
cli() {
  local port="$1" user=() password="$SECURE_REDIS_PASSWORD"
  shift
  if is_sentinel "$port"; then password="$SECURE_REDIS_SENTINEL_PASSWORD"; else user=(--user "$SECURE_REDIS_USER"); fi
  # the password through the environment, not the command line that ps shows
  REDISCLI_AUTH="$password" redis-cli --tls --cacert "$CA/ca.crt" -h 127.0.0.1 -p "$port" "${user[@]}" "$@"
}

tls_conf() {
  cat <<CONF
bind 127.0.0.1
port 0
tls-port $1
tls-cert-file $CA/server.crt
tls-key-file $CA/server.key
tls-ca-cert-file $CA/ca.crt
tls-auth-clients optional
tls-replication yes
daemonize yes
pidfile $ROOT/$1/redis.pid
logfile $ROOT/$1/redis.log
dir $ROOT/$1
CONF
}

write_data_conf() {
  local port="$1"
  mkdir -p "$ROOT/$port"
  {
    echo "# written by infra/secure/redis.sh on every start (Sentinel rewrites it on a failover)"
    tls_conf "$port"
    cat <<CONF
save ""
appendonly no
masteruser replicator
masterauth $INTERNAL
user default off
user $SECURE_REDIS_USER on >$SECURE_REDIS_PASSWORD resetkeys ~gw:* resetchannels &gw:* +@all -@dangerous +info +role
user replicator on >$INTERNAL +psync +replconf +ping
user sentinel on >$INTERNAL allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill
CONF
    [[ "$port" == "$SECURE_REDIS_PRIMARY_PORT" ]] || echo "replicaof 127.0.0.1 $SECURE_REDIS_PRIMARY_PORT"
  } >"$ROOT/$port/redis.conf"
}

write_sentinel_conf() {
  local port="$1"
  mkdir -p "$ROOT/$port"
  {
    echo "# written by infra/secure/redis.sh on every start (Sentinel rewrites it as it learns)"
    tls_conf "$port"
    cat <<CONF
requirepass $SECURE_REDIS_SENTINEL_PASSWORD
sentinel sentinel-pass $SECURE_REDIS_SENTINEL_PASSWORD
sentinel monitor $MASTER 127.0.0.1 $SECURE_REDIS_PRIMARY_PORT 2
sentinel auth-user $MASTER sentinel
sentinel auth-pass $MASTER $INTERNAL
sentinel down-after-milliseconds $MASTER $SECURE_REDIS_DOWN_AFTER_MS
sentinel failover-timeout $MASTER 10000
sentinel parallel-syncs $MASTER 1
CONF
  } >"$ROOT/$port/sentinel.conf"
}

all_ports() { echo "${DATA_PORTS[@]}" "${SENTINEL_PORTS[@]}"; }
all_running() {
  local p
  for p in $(all_ports); do pid_alive "$(pidfile "$p")" || return 1; done
}

in_sync() { cli "$SECURE_REDIS_REPLICA_PORT" info replication 2>/dev/null | grep -q "master_link_status:up"; }
sentinels_agree() {
  local p info
  for p in "${SENTINEL_PORTS[@]}"; do
    info="$(cli "$p" sentinel master "$MASTER" 2>/dev/null)" || return 1
    [[ "$(sed -n '/^num-other-sentinels$/{n;p}' <<<"$info")" == 2 ]] || return 1
    [[ "$(sed -n '/^num-slaves$/{n;p}' <<<"$info")" == 1 ]] || return 1
  done
}

start() {
  local p t0=$SECONDS
  if all_running; then
    wait_for 30 sentinels_agree || die "the processes run but the sentinels do not agree"
    return 0
  fi
  stop # a partial set (a killed primary): start the whole again, in the original roles
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  ensure_ca
  for p in $(all_ports); do port_open "$p" && die "port $p is taken by another process"; done
  for p in "${DATA_PORTS[@]}"; do
    write_data_conf "$p"
    redis-server "$ROOT/$p/redis.conf" >/dev/null
  done
  for p in "${SENTINEL_PORTS[@]}"; do
    write_sentinel_conf "$p"
    redis-server "$ROOT/$p/sentinel.conf" --sentinel >/dev/null
  done
  if ! wait_for 30 in_sync || ! wait_for 30 sentinels_agree; then
    for p in $(all_ports); do tail -n 5 "$ROOT/$p/redis.log" >&2 || true; done
    stop
    die "the primary, replica and sentinels did not come together"
  fi
  log "running: primary 127.0.0.1:$SECURE_REDIS_PRIMARY_PORT, sentinels $(sentinels), ready in $((SECONDS - t0)) s"
}

stop() {
  local p
  # all at once: each takes ~2 s to go, and no sentinel is left to fail the primary over
  for p in $(all_ports); do if pid_alive "$(pidfile "$p")"; then kill -TERM "$(cat "$(pidfile "$p")")"; fi; done
  for p in $(all_ports); do stop_pid "$(pidfile "$p")" 10; done
}

status() {
  local p code=0
  for p in $(all_ports); do
    if pid_alive "$(pidfile "$p")"; then echo "127.0.0.1:$p running (pid $(cat "$(pidfile "$p")"))"; else
      echo "127.0.0.1:$p stopped"
      code=3
    fi
  done
  return "$code"
}

primary() {
  local p addr
  for p in "${SENTINEL_PORTS[@]}"; do
    addr="$(cli "$p" sentinel get-master-addr-by-name "$MASTER" 2>/dev/null | paste -sd:)" || continue
    [[ -n "$addr" ]] && {
      echo "$addr"
      return 0
    }
  done
  die "no sentinel answers"
}

kill_primary() {
  local addr port
  addr="$(primary)"
  port="${addr##*:}"
  pid_alive "$(pidfile "$port")" || die "the primary $addr is not running"
  kill -KILL "$(cat "$(pidfile "$port")")"
  rm -f "$(pidfile "$port")"
  log "primary $addr killed (SIGKILL)"
}

case "${1:-}" in
  start | stop | status | url | sentinels | primary) "$1" ;;
  kill-primary) kill_primary ;;
  cli)
    shift
    cli "$@"
    ;;
  *)
    echo "usage: $0 {start|stop|status|url|sentinels|primary|kill-primary|cli PORT ARGS...}" >&2
    exit 2
    ;;
esac
