#!/usr/bin/env bash
# A secured, replicated Apache Kafka for tests: 3 KRaft nodes on 127.0.0.1, each broker and
# controller at once (one JVM each, heap $SECURE_KAFKA_HEAP), TLS from the throwaway CA, SASL
# users, ACLs on.
#
#   infra/secure/kafka.sh start        format the nodes once (with the SCRAM users), start the
#                                      three, wait until each serves, add the ACLs (idempotent)
#   infra/secure/kafka.sh stop         stop the nodes this script started (by their pids, all at
#                                      once; a node left alone, without a quorum, SIGKILLed after 3 s)
#   infra/secure/kafka.sh status       running/stopped per node (exit 0 when all run, 3 when not)
#   infra/secure/kafka.sh url          the SASL_SSL bootstrap list (host:port,...)
#   infra/secure/kafka.sh mtls-url     the mutual-TLS bootstrap list
#   infra/secure/kafka.sh kill N       SIGKILL node N (1..3): a broker lost without a goodbye
#   infra/secure/kafka.sh start-node N start node N again (after kill) and wait until it serves
#   infra/secure/kafka.sh leaders TOPIC  print "partition leader replicas isr" per partition
#
# Listeners per node n: SASL_SSL on $SECURE_KAFKA_SASL_PORT_BASE+n (SCRAM-SHA-256, SCRAM-SHA-512
# and PLAIN, user $SECURE_KAFKA_USER), SSL with a required client certificate on
# $SECURE_KAFKA_MTLS_PORT_BASE+n (clients of the CA are User:CN=<their CN>; the brokers talk to
# each other there as User:CN=gateway-test-server, the super user), CONTROLLER (SSL, client
# certificate required) on $SECURE_KAFKA_CONTROLLER_PORT_BASE+n. Topics default to replication 3
# and min.insync.replicas 2. Data in $SECURE_DIR/kafka/node<n>.
set -euo pipefail
ENGINE=secure/kafka
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=infra/kafka/broker.sh
source "$REPO/infra/kafka/broker.sh"
# shellcheck source=infra/secure/kafka-acls.sh
source "$REPO/infra/secure/kafka-acls.sh"

ROOT="$SECURE_DIR/kafka"
NODES=(1 2 3)
USER_NAME="$SECURE_KAFKA_USER"
PASSWORD="$SECURE_KAFKA_PASSWORD"
SUPER="User:CN=gateway-test-server"

node_dir() { echo "$ROOT/node$1"; }
sasl_port() { echo $((SECURE_KAFKA_SASL_PORT_BASE + $1)); }
mtls_port() { echo $((SECURE_KAFKA_MTLS_PORT_BASE + $1)); }
controller_port() { echo $((SECURE_KAFKA_CONTROLLER_PORT_BASE + $1)); }
list() {
  local n out=""
  for n in "${NODES[@]}"; do out+="${out:+,}127.0.0.1:$("$1" "$n")"; done
  echo "$out"
}
url() { list sasl_port; }
voters() {
  local n out=""
  for n in "${NODES[@]}"; do out+="${out:+,}$n@127.0.0.1:$(controller_port "$n")"; done
  echo "$out"
}

# the brokers' TLS identity and trust, from the CA's PEM files (also the admin client's)
tls_settings() {
  cat <<CONF
ssl.keystore.type=PEM
ssl.keystore.location=$CA/server-chain.pem
ssl.truststore.type=PEM
ssl.truststore.location=$CA/ca.crt
CONF
}

write_config() {
  local n="$1" dir
  dir="$(node_dir "$n")"
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<CONF
# written by infra/secure/kafka.sh on every start
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$(voters)
listeners=SASL_SSL://127.0.0.1:$(sasl_port "$n"),MTLS://127.0.0.1:$(mtls_port "$n"),CONTROLLER://127.0.0.1:$(controller_port "$n")
advertised.listeners=SASL_SSL://127.0.0.1:$(sasl_port "$n"),MTLS://127.0.0.1:$(mtls_port "$n")
controller.listener.names=CONTROLLER
inter.broker.listener.name=MTLS
listener.security.protocol.map=SASL_SSL:SASL_SSL,MTLS:SSL,CONTROLLER:SSL
$(tls_settings)
ssl.endpoint.identification.algorithm=https
listener.name.mtls.ssl.client.auth=required
listener.name.controller.ssl.client.auth=required
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$USER_NAME="$PASSWORD";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=$SUPER
allow.everyone.if.no.acl.found=false
log.dirs=$dir/data
$(topic_settings 3 2)
# what a failover's length hangs on, at Kafka's defaults (said out loud): a broker whose
# heartbeats stop is fenced after 9 s, then its partitions get new leaders from the ISR
broker.heartbeat.interval.ms=2000
broker.session.timeout.ms=9000
CONF
  write_log4j "$dir"
}

java_opts() { echo "-Xms128m -Xmx$SECURE_KAFKA_HEAP -XX:+UseG1GC -Djava.awt.headless=true"; }

# run_tool DIR CLASS ARGS...: a Kafka command-line tool on the node's log configuration
run_tool() {
  local dir="$1"
  shift
  # shellcheck disable=SC2046
  java $(java_opts) -Dlog4j.configuration="file:$dir/log4j.properties" -cp "$LIBS/*" "$@"
}

format_storage() {
  local n="$1" dir
  dir="$(node_dir "$n")"
  [[ -f "$dir/data/meta.properties" ]] && return 0
  rm -f "$ROOT/acls.done" # a new metadata log has no ACLs
  [[ -f "$ROOT/cluster.id" ]] || run_tool "$dir" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1 >"$ROOT/cluster.id"
  # the SCRAM credentials go into the metadata log itself: a cluster with SCRAM-only clients
  # needs no bootstrap through PLAIN
  run_tool "$dir" kafka.tools.StorageTool format -t "$(cat "$ROOT/cluster.id")" -c "$dir/server.properties" \
    --add-scram "SCRAM-SHA-256=[name=$USER_NAME,password=$PASSWORD]" \
    --add-scram "SCRAM-SHA-512=[name=$USER_NAME,password=$PASSWORD]" >"$dir/format.log" 2>&1 || {
    cat "$dir/format.log" >&2
    die "kafka-storage format of node $n failed"
  }
}

node_ready() {
  local dir
  dir="$(node_dir "$1")"
  pid_alive "$dir/kafka.pid" && port_open "$(sasl_port "$1")" && broker_started "$dir"
}

# launch N: start node N's JVM (no wait)
launch() {
  local n="$1" dir
  dir="$(node_dir "$n")"
  pid_alive "$dir/kafka.pid" && return 0
  port_open "$(sasl_port "$n")" && die "port $(sasl_port "$n") is taken by another process"
  write_config "$n"
  format_storage "$n"
  : >"$dir/server.log"
  # shellcheck disable=SC2046
  setsid java $(java_opts) -Dlog4j.configuration="file:$dir/log4j.properties" -cp "$LIBS/*" \
    kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 </dev/null &
  echo $! >"$dir/kafka.pid"
}

wait_node() {
  local n="$1"
  wait_for 120 node_ready "$n" && return 0
  tail -n 30 "$(node_dir "$n")/server.log" "$(node_dir "$n")/stdout.log" >&2 || true
  die "node $n did not become ready on 127.0.0.1:$(sasl_port "$n")"
}

start() {
  local n t0=$SECONDS
  fetch_jars
  ensure_ca
  mkdir -p "$ROOT"
  # all three at once: a controller quorum needs two voters before any broker can serve
  for n in "${NODES[@]}"; do launch "$n"; done
  for n in "${NODES[@]}"; do wait_node "$n"; done
  add_acls
  log "running: $(url) (SASL_SSL), $(list mtls_port) (mutual TLS), ready in $((SECONDS - t0)) s"
}

# kill_hard PIDFILE: SIGKILL, wait until the process is gone (its ports free), forget the pid
kill_hard() {
  kill -KILL "$(cat "$1")" 2>/dev/null || true
  wait_for 10 eval "! pid_alive '$1'" || true
  rm -f "$1"
}

# alive: pid files of the nodes that run
alive() {
  local n
  for n in "${NODES[@]}"; do if pid_alive "$(node_dir "$n")/kafka.pid"; then echo "$(node_dir "$n")/kafka.pid"; fi; done
}

stop() {
  local pidfile left i lone=0
  # all at once: a node stopped after the others would wait for a controller quorum that is gone
  for pidfile in $(alive); do kill -TERM "$(cat "$pidfile")"; done
  for ((i = 0; i < 300; i++)); do
    left="$(alive)"
    [[ -z "$left" ]] && break
    # the last node left has lost its quorum (2 of 3) and cannot finish a controlled shutdown
    if [[ "$(wc -l <<<"$left")" == 1 ]] && ((++lone > 30)); then break; fi
    sleep 0.1
  done
  for pidfile in $(alive); do
    log "$(basename "$(dirname "$pidfile")") alone cannot finish a controlled shutdown: SIGKILL"
    kill_hard "$pidfile"
  done
  rm -f "$ROOT"/node*/kafka.pid
}

status() {
  local n code=0
  for n in "${NODES[@]}"; do
    if pid_alive "$(node_dir "$n")/kafka.pid"; then
      echo "node $n running: 127.0.0.1:$(sasl_port "$n") (pid $(cat "$(node_dir "$n")/kafka.pid"))"
    else
      echo "node $n stopped"
      code=3
    fi
  done
  return "$code"
}

node_arg() {
  [[ "${1:-}" =~ ^[123]$ ]] || die "give a node id: 1, 2 or 3"
  echo "$1"
}

kill_node() {
  local n pidfile
  n="$(node_arg "${1:-}")"
  pidfile="$(node_dir "$n")/kafka.pid"
  pid_alive "$pidfile" || die "node $n is not running"
  kill_hard "$pidfile"
  log "node $n killed (SIGKILL)"
}

start_node() {
  local n t0=$SECONDS
  n="$(node_arg "${1:-}")"
  launch "$n"
  wait_node "$n"
  log "node $n serves again after $((SECONDS - t0)) s"
}

# leaders TOPIC: through kafkajs (packages/bus's), as the super user over mutual TLS
leaders() {
  [[ -n "${1:-}" ]] || die "give a topic"
  # shellcheck source=scripts/toolchain.sh
  source "$REPO/scripts/toolchain.sh" >/dev/null
  SECURE_KAFKA_MTLS_BROKERS="$(list mtls_port)" node "$REPO/infra/secure/smoke/kafka-leaders.mjs" "$1"
}

case "${1:-}" in
  start | stop | status | url) "$1" ;;
  mtls-url) list mtls_port ;;
  kill) kill_node "${2:-}" ;;
  start-node) start_node "${2:-}" ;;
  leaders) leaders "${2:-}" ;;
  *)
    echo "usage: $0 {start|stop|status|url|mtls-url|kill N|start-node N|leaders TOPIC}" >&2
    exit 2
    ;;
esac
