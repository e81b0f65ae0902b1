#!/usr/bin/env bash
# A private PostgreSQL server for tests and local development.
#
#   infra/postgres.sh start    install PostgreSQL (Debian packages) if absent, initdb once,
#                              start, wait until ready, create the database (no-op if running)
#   infra/postgres.sh stop     stop the server this script started (pg_ctl stop -m fast)
#   infra/postgres.sh status   print running/stopped (exit 0 when running, 3 when not)
#   infra/postgres.sh url      print the connection URL
#
# This is NOT Debian's system service: it is a cluster of its own in PG_DATA_DIR,
# listening on 127.0.0.1 only (no Unix socket), trust auth for loopback, fsync off.
# With PG_TLS_DIR (infra/secure/postgres.sh sets it): TLS only (`hostssl`), scram-sha-256
# passwords, and an application user that owns the database.
#
# Environment:
#   PG_DATA_DIR   data directory (default <repo>/.tools/pg)
#   PG_PORT       TCP port on 127.0.0.1 (default 25432)
#   PG_DATABASE   database created on start (default gateway)
#   PG_TLS_DIR    a folder with ca.crt, server.crt and server.key (infra/secure/ca.sh): TLS on,
#                 set when the cluster is made (initdb); then also PG_PASSWORD (the postgres
#                 superuser's), PG_APP_USER and PG_APP_PASSWORD (the owner of PG_DATABASE)
set -euo pipefail

ENGINE=postgres
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PG_PORT="${PG_PORT:-25432}"
PG_DATABASE="${PG_DATABASE:-gateway}"
PG_HOST=127.0.0.1
PG_USER=postgres
PG_TLS_DIR="${PG_TLS_DIR:-}"
if [[ -n "$PG_TLS_DIR" ]]; then
  : "${PG_PASSWORD:?PG_TLS_DIR needs PG_PASSWORD}" "${PG_APP_USER:?PG_TLS_DIR needs PG_APP_USER}" \
    "${PG_APP_PASSWORD:?PG_TLS_DIR needs PG_APP_PASSWORD}"
  # the script's own psql and pg_isready verify the server as any client must
  export PGPASSWORD="$PG_PASSWORD" PGSSLMODE=verify-full PGSSLROOTCERT="$PG_TLS_DIR/ca.crt"
fi

# newest /usr/lib/postgresql/<major>/bin, empty if none
pg_bindir() {
  local d
  d="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)"
  if [[ -n "$d" && -x "$d/initdb" && -x "$d/pg_ctl" ]]; then echo "$d"; fi
}

install_postgres() {
  log "PostgreSQL not found"
  apt_install postgresql
  BIN="$(pg_bindir)"
  [[ -n "$BIN" ]] || die "postgresql installed, but no initdb/pg_ctl under /usr/lib/postgresql/*/bin"
}

# run a server-side command as the postgres OS user when we are root (initdb refuses root)
as_pg() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

resolve_data_dir() {
  if [[ -n "${PG_DATA_DIR:-}" ]]; then
    DATA="$PG_DATA_DIR"
    return
  fi
  DATA="$REPO/.tools/pg"
  # as root, the postgres user must be able to reach the data dir: a checkout under a
  # private directory (/root, mode 700) is unreachable for it, so use a fixed place instead
  if [[ $EUID -eq 0 ]] && id postgres >/dev/null 2>&1; then
    mkdir -p "$REPO/.tools"
    if ! runuser -u postgres -- test -x "$REPO/.tools"; then
      DATA="/var/tmp/gateway-pg-$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)"
    fi
  fi
}

pg_running() {
  [[ -f "$DATA/PG_VERSION" ]] && as_pg "$BIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

url() {
  if [[ -n "$PG_TLS_DIR" ]]; then
    echo "postgres://$PG_APP_USER:$PG_APP_PASSWORD@$PG_HOST:$PG_PORT/$PG_DATABASE?sslmode=verify-full&sslrootcert=$PG_TLS_DIR/ca.crt"
  else
    echo "postgres://$PG_USER@$PG_HOST:$PG_PORT/$PG_DATABASE"
  fi
}

init_cluster() {
  if [[ $EUID -eq 0 ]]; then
    mkdir -p "$DATA"
    runuser -u postgres -- test -x "$(dirname "$DATA")" ||
      die "the postgres OS user cannot reach $(dirname "$DATA"); set PG_DATA_DIR to a place it can reach"
    chown postgres:postgres "$DATA"
  else
    mkdir -p "$DATA"
  fi
  chmod 0700 "$DATA"
  local auth=(--auth=trust)
  if [[ -n "$PG_TLS_DIR" ]]; then
    (umask 077 && echo "$PG_PASSWORD" >"$DATA.pw")
    [[ $EUID -ne 0 ]] || chown postgres "$DATA.pw"
    auth=(--auth=scram-sha-256 --pwfile="$DATA.pw")
  fi
  as_pg "$BIN/initdb" -D "$DATA" -U "$PG_USER" "${auth[@]}" --encoding=UTF8 --locale=C.UTF-8 \
    --no-sync >"$DATA.initdb.log" 2>&1 || {
    cat "$DATA.initdb.log" >&2
    rm -f "$DATA.pw"
    die "initdb failed"
  }
  rm -f "$DATA.initdb.log" "$DATA.pw"
  if [[ -n "$PG_TLS_DIR" ]]; then
    init_tls
    return
  fi
  # loopback TCP only
  as_pg tee "$DATA/pg_hba.conf" >/dev/null <<'EOF'
# TYPE  DATABASE  USER  ADDRESS       METHOD
host    all       all   127.0.0.1/32  trust
host    replication all 127.0.0.1/32  trust
EOF
  echo "include_if_exists = 'gateway.conf'" | as_pg tee -a "$DATA/postgresql.conf" >/dev/null
}

# create_database: PG_DATABASE, owned by the application user when there is one
create_database() {
  local owner=""
  if [[ -n "$PG_TLS_DIR" ]]; then
    if [[ "$(psql_q -d postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$PG_APP_USER'")" != 1 ]]; then
      psql_q -d postgres -c "CREATE ROLE \"$PG_APP_USER\" LOGIN PASSWORD '$PG_APP_PASSWORD'"
    fi
    owner=" OWNER \"$PG_APP_USER\""
  fi
  if [[ "$(psql_q -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")" != 1 ]]; then
    psql_q -d postgres -c "CREATE DATABASE \"$PG_DATABASE\"$owner"
  fi
}

# init_tls: the server's certificate in the data dir (the server wants its key private to it);
# loopback TCP over TLS only, passwords as SCRAM
init_tls() {
  local f
  as_pg mkdir -p "$DATA/tls"
  for f in ca.crt server.crt server.key; do
    as_pg tee "$DATA/tls/$f" <"$PG_TLS_DIR/$f" >/dev/null || die "cannot read $PG_TLS_DIR/$f"
  done
  as_pg chmod 0600 "$DATA/tls/server.key"
  as_pg tee "$DATA/pg_hba.conf" >/dev/null <<'EOF'
# TYPE   DATABASE  USER  ADDRESS       METHOD
hostssl  all       all   127.0.0.1/32  scram-sha-256
EOF
  as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<'EOF'
include_if_exists = 'gateway.conf'
ssl = on
ssl_cert_file = 'tls/server.crt'
ssl_key_file = 'tls/server.key'
ssl_ca_file = 'tls/ca.crt'
ssl_min_protocol_version = 'TLSv1.2'
password_encryption = 'scram-sha-256'
EOF
}

write_runtime_conf() {
  as_pg tee "$DATA/gateway.conf" >/dev/null <<EOF
# written by infra/postgres.sh on every start
listen_addresses = '$PG_HOST'
port = $PG_PORT
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
logging_collector = off
EOF
}

wait_ready() {
  local i
  for ((i = 0; i < 60; i++)); do
    if "$BIN/pg_isready" -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres; then return 0; fi
    sleep 0.5
  done
  return 1
}

psql_q() {
  "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" "$@"
}

start() {
  if pg_running; then
    local port
    port="$(sed -n 4p "$DATA/postmaster.pid" 2>/dev/null || true)"
    if [[ -n "$port" && "$port" != "$PG_PORT" ]]; then
      die "server in $DATA is already running on port $port, not $PG_PORT: run '$0 stop' first"
    fi
    wait_ready || die "server in $DATA is running but not answering on $PG_HOST:$PG_PORT"
    return 0
  fi
  [[ -f "$DATA/PG_VERSION" ]] || init_cluster
  write_runtime_conf
  local logfile="$DATA/server.log"
  if ! as_pg "$BIN/pg_ctl" start -D "$DATA" -l "$logfile" -w -t 60 -s >/dev/null; then
    tail -n 30 "$logfile" >&2 || true
    die "pg_ctl start failed (is port $PG_PORT in use?)"
  fi
  wait_ready || {
    tail -n 30 "$logfile" >&2 || true
    die "server did not become ready on $PG_HOST:$PG_PORT"
  }
  create_database
  log "running: $(url) (data: $DATA)"
}

stop() {
  if pg_running; then
    as_pg "$BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 -s
  fi
}

status() {
  if pg_running; then
    echo "running: $(url) (data: $DATA, pid $(head -n 1 "$DATA/postmaster.pid" 2>/dev/null))"
  else
    echo "stopped (data: $DATA)"
    return 3
  fi
}

cmd="${1:-}"
case "$cmd" in
  url)
    url
    exit 0
    ;;
  start | stop | status) ;;
  *)
    echo "usage: $0 {start|stop|status|url}" >&2
    exit 2
    ;;
esac

BIN="$(pg_bindir)"
if [[ -z "$BIN" ]]; then
  case "$cmd" in
    start) install_postgres ;;
    stop) exit 0 ;;
    status)
      echo "stopped (PostgreSQL not installed)"
      exit 3
      ;;
  esac
fi
resolve_data_dir
"$cmd"
