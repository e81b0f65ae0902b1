# shellcheck shell=bash
# Helpers shared by infra/kafka.sh (one broker) and infra/secure/kafka.sh (a secured cluster):
# the broker's jars and its log configuration (sourced after infra/lib.sh, not run).

LIBS="$TOOLS/kafka/libs"

# fetch_jars: resolves the broker's jars from Maven Central into .tools/kafka/libs (once)
fetch_jars() {
  [[ -f "$LIBS/.complete" ]] && return 0
  command -v java >/dev/null 2>&1 || die "need Java 17+ (java on PATH)"
  command -v mvn >/dev/null 2>&1 || apt_install maven
  log "resolving the Kafka broker's jars from Maven Central into $LIBS (once)"
  rm -rf "$LIBS"
  mvn -q -B -f "$REPO/infra/kafka/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$LIBS" >&2 || die "mvn could not resolve the Kafka jars"
  touch "$LIBS/.complete"
}

# write_log4j DIR: the broker in DIR logs to DIR/server.log (its readiness is read from there)
write_log4j() {
  cat >"$1/log4j.properties" <<CONF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$1/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
CONF
}

# broker_started DIR: the broker in DIR has logged that it serves
broker_started() { grep -q "Kafka Server started" "$1/server.log" 2>/dev/null; }

# topic_settings REPLICATION MIN_ISR: the broker settings the gateway's topics rely on, for one
# broker (1 1) or a replicated cluster (3 2)
topic_settings() {
  local max="$GATEWAY_KAFKA_MAX_MESSAGE_BYTES"
  cat <<CONF
num.partitions=$GATEWAY_KAFKA_PARTITIONS
default.replication.factor=$1
min.insync.replicas=$2
auto.create.topics.enable=false
offsets.topic.replication.factor=$1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=$1
transaction.state.log.min.isr=$2
# consumers join at once instead of waiting 3 s for more members
group.initial.rebalance.delay.ms=0
# captures carry raw bodies inline (up to 32 MiB each way, base64 when binary)
message.max.bytes=$max
replica.fetch.max.bytes=$max
socket.request.max.bytes=$((max * 2))
log.retention.hours=24
CONF
}
