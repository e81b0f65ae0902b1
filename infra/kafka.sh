#!/usr/bin/env bash
# A private single-node Apache Kafka broker (KRaft mode, no ZooKeeper) for tests and local
# development of the split deployment.
#
#   infra/kafka.sh start    resolve the broker's jars from Maven Central once (infra/kafka/pom.xml,
#                           `mvn dependency:copy-dependencies` into .tools/kafka/libs), format the
#                           KRaft storage once, start on the machine's Java 17, wait until ready
#   infra/kafka.sh stop     stop the broker this script started (by its pid; SIGKILL after 30 s)
#   infra/kafka.sh status   print running/stopped (exit 0 when running, 3 when not)
#   infra/kafka.sh url      print the bootstrap address (host:port)
#
# Environment: GATEWAY_KAFKA_PORT, GATEWAY_KAFKA_CONTROLLER_PORT (defaults in distributed.env),
# KAFKA_DIR (default .tools/kafka).
#
# Listens on 127.0.0.1:$GATEWAY_KAFKA_PORT (clients) and :$GATEWAY_KAFKA_CONTROLLER_PORT (KRaft
# controller); data in .tools/kafka/data. Messages up to $GATEWAY_KAFKA_MAX_MESSAGE_BYTES.
set -euo pipefail
ENGINE=kafka
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=infra/kafka/broker.sh
source "$REPO/infra/kafka/broker.sh"

# KAFKA_DIR: a second private broker (the fault tests stop and start one of their own);
# the jars are shared
DIR="${KAFKA_DIR:-$TOOLS/kafka}"
DATA="$DIR/data"
PIDFILE="$DIR/kafka.pid"
PORT="$GATEWAY_KAFKA_PORT"
CPORT="$GATEWAY_KAFKA_CONTROLLER_PORT"

url() { echo "127.0.0.1:$PORT"; }

write_config() {
  mkdir -p "$DATA"
  cat >"$DIR/server.properties" <<CONF
# written by infra/kafka.sh on every start
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA
$(topic_settings 1 1)
CONF
  write_log4j "$DIR"
}

java_run() {
  java -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$DIR/log4j.properties" -cp "$LIBS/*" "$@"
}

format_storage() {
  [[ -f "$DATA/meta.properties" ]] && return 0
  local id
  id="$(java_run kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
  java_run kafka.tools.StorageTool format -t "$id" -c "$DIR/server.properties" >"$DIR/format.log" 2>&1 || {
    cat "$DIR/format.log" >&2
    die "kafka-storage format failed"
  }
}

ready() { port_open "$PORT" && broker_started "$DIR"; }

start() {
  if pid_alive "$PIDFILE"; then
    wait_for 60 ready || die "pid $(cat "$PIDFILE") runs but the broker is not ready on port $PORT"
    return 0
  fi
  port_open "$PORT" && die "port $PORT is taken by another process"
  fetch_jars
  write_config
  format_storage
  : >"$DIR/server.log"
  # setsid: the broker is not in the caller's process group, so a Ctrl-C there does not hit it
  setsid java -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$DIR/log4j.properties" -cp "$LIBS/*" \
    kafka.Kafka "$DIR/server.properties" >"$DIR/stdout.log" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  if ! wait_for 90 ready; then
    tail -n 30 "$DIR/server.log" "$DIR/stdout.log" >&2 || true
    stop
    die "broker did not become ready on 127.0.0.1:$PORT"
  fi
  log "running: $(url) (pid $(cat "$PIDFILE"))"
}

stop() { stop_pid "$PIDFILE" 30; }

engine_main "$@"
