# shellcheck shell=bash
# The secured Kafka cluster's ACLs (sourced by infra/secure/kafka.sh, which defines ROOT, CA,
# USER_NAME, node_dir, list, mtls_port, tls_settings and run_tool).

# the super user's client settings (the brokers' own certificate, on the mutual-TLS listener)
admin_config() {
  {
    echo "security.protocol=SSL"
    tls_settings
  } >"$ROOT/admin.properties"
  echo "$ROOT/admin.properties"
}

# add_acls: what the gateway's apps need, for SASL user $USER_NAME and the CA's client
# certificate; kept in the metadata log, so added again only when the wanted set changes
add_acls() {
  local config prefix wanted topics=() groups=() args=()
  wanted="$USER_NAME $SECURE_KAFKA_ACL_PREFIXES"
  [[ "$(cat "$ROOT/acls.done" 2>/dev/null)" == "$wanted" ]] && return 0
  config="$(admin_config)"
  args=(--allow-principal "User:$USER_NAME" --allow-principal "User:CN=gateway-test-client")
  for prefix in $SECURE_KAFKA_ACL_PREFIXES; do
    topics+=(--topic "$prefix")
    groups+=(--group "$prefix")
  done
  acl() {
    run_tool "$(node_dir 1)" kafka.admin.AclCommand --bootstrap-server "$(list mtls_port)" \
      --command-config "$config" --add --force "${args[@]}" "$@" >>"$ROOT/acls.log" 2>&1 ||
      die "adding ACLs failed (see $ROOT/acls.log)"
  }
  : >"$ROOT/acls.log"
  # idempotent producers (kafkajs asks for a producer id with the cluster's IdempotentWrite)
  acl --cluster --operation IdempotentWrite --operation Describe
  acl --resource-pattern-type prefixed "${topics[@]}" --operation Read --operation Write \
    --operation Create --operation Describe --operation DescribeConfigs
  acl --resource-pattern-type prefixed "${groups[@]}" --operation Read --operation Describe
  echo "$wanted" >"$ROOT/acls.done"
}
