#!/usr/bin/env bash
# All the secured, replicated engines at once, for issue 36's end-to-end tests and the smoke
# check: the throwaway CA, Kafka (3 KRaft nodes, SASL_SSL + mutual TLS, ACLs), Redis (primary,
# replica, 3 sentinels, TLS, ACL users), PostgreSQL (TLS, verify-full, scram) and MinIO (HTTPS).
#
#   infra/secure/engines.sh start    start each (idempotent), Kafka alongside the others; prints
#                                    how long each took
#   infra/secure/engines.sh stop     stop everything these scripts started
#   infra/secure/engines.sh status   each engine's status (exit 0 when all run)
#   infra/secure/engines.sh env      the SECURE_* settings a test needs, as KEY=value lines
#                                    (values unquoted: read them as lines, do not source them);
#                                    SECURE_PG_ADMIN_URL is the superuser's, for a test that makes
#                                    a database of its own (owned by SECURE_PG_USER)
set -euo pipefail
ENGINE=secure/engines
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$REPO/infra/secure"

start() {
  local t0=$SECONDS t kafka_pid engine
  ensure_ca
  mkdir -p "$SECURE_DIR"
  # Kafka's JVMs take the longest: they start while the others do
  "$HERE/kafka.sh" start 2>"$SECURE_DIR/kafka-start.log" &
  kafka_pid=$!
  for engine in redis postgres s3; do
    t=$SECONDS
    "$HERE/$engine.sh" start 2>/dev/null || {
      wait "$kafka_pid" || true
      die "$engine did not start (run infra/secure/$engine.sh start to see why)"
    }
    log "$engine ready in $((SECONDS - t)) s"
  done
  wait "$kafka_pid" || {
    cat "$SECURE_DIR/kafka-start.log" >&2
    die "kafka did not start"
  }
  log "kafka ready in $((SECONDS - t0)) s"
  log "all secured engines ready in $((SECONDS - t0)) s"
}

stop() {
  local engine
  for engine in s3 postgres redis kafka; do "$HERE/$engine.sh" stop; done
}

status() {
  local engine code=0
  for engine in kafka redis postgres s3; do
    echo "$engine:"
    "$HERE/$engine.sh" status | sed 's/^/  /' || code=3
  done
  return "$code"
}

print_env() {
  cat <<ENV
SECURE_CA_DIR=$CA
SECURE_KAFKA_BROKERS=$("$HERE/kafka.sh" url)
SECURE_KAFKA_MTLS_BROKERS=$("$HERE/kafka.sh" mtls-url)
SECURE_KAFKA_USER=$SECURE_KAFKA_USER
SECURE_KAFKA_PASSWORD=$SECURE_KAFKA_PASSWORD
SECURE_REDIS_URL=$("$HERE/redis.sh" url)
SECURE_REDIS_PRIMARY_PORT=$SECURE_REDIS_PRIMARY_PORT
SECURE_REDIS_SENTINELS=$("$HERE/redis.sh" sentinels | cut -d' ' -f1)
SECURE_REDIS_MASTER_NAME=$SECURE_REDIS_MASTER_NAME
SECURE_REDIS_USER=$SECURE_REDIS_USER
SECURE_REDIS_PASSWORD=$SECURE_REDIS_PASSWORD
SECURE_REDIS_SENTINEL_PASSWORD=$SECURE_REDIS_SENTINEL_PASSWORD
SECURE_PG_URL=$("$HERE/postgres.sh" url)
SECURE_PG_ADMIN_URL=postgres://postgres:$SECURE_PG_PASSWORD-superuser@127.0.0.1:$SECURE_PG_PORT/postgres?sslmode=verify-full&sslrootcert=$CA/ca.crt
SECURE_S3_URL=$("$HERE/s3.sh" url)
ENV
}

case "${1:-}" in
  start | stop | status) "$1" ;;
  env) print_env ;;
  *)
    echo "usage: $0 {start|stop|status|env}" >&2
    exit 2
    ;;
esac
