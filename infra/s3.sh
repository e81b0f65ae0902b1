#!/usr/bin/env bash
# A private S3-compatible server (MinIO) for tests and local development of the split deployment.
#
#   infra/s3.sh start    build MinIO once with `go install` from the Go module proxy into
#                        .tools/minio/bin (about 4 minutes on 2 cores), start it, wait until
#                        ready, create the bucket (no-op when already running)
#   infra/s3.sh stop     stop the server this script started (by its pid)
#   infra/s3.sh status   print running/stopped (exit 0 when running, 3 when not)
#   infra/s3.sh url      print the endpoint URL
#
# Listens on 127.0.0.1:$GATEWAY_S3_PORT only, data in .tools/minio/data, credentials and
# bucket from infra/distributed.env.
#
# Environment: S3_DIR (default .tools/minio: data, pid and logs; the binary stays in
# .tools/minio/bin), S3_PORT (default $GATEWAY_S3_PORT), S3_TLS_DIR (a folder with ca.crt,
# server.crt and server.key, as infra/secure/ca.sh makes it: HTTPS with that certificate;
# infra/secure/s3.sh sets these).
set -euo pipefail
ENGINE=s3
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pinned: the module proxy serves MinIO's source as a pseudo-version
MINIO_MODULE="github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"
BIN="$TOOLS/minio/bin/minio"
DIR="${S3_DIR:-$TOOLS/minio}"
DATA="$DIR/data"
PIDFILE="$DIR/minio.pid"
PORT="${S3_PORT:-$GATEWAY_S3_PORT}"
TLS_DIR="${S3_TLS_DIR:-}"
CURL_TLS=()
[[ -z "$TLS_DIR" ]] || CURL_TLS=(--cacert "$TLS_DIR/ca.crt")

url() { echo "http${TLS_DIR:+s}://127.0.0.1:$PORT"; }
ready() { curl -fsS "${CURL_TLS[@]}" -o /dev/null "$(url)/minio/health/ready" 2>/dev/null; }

# certs_dir: MinIO's --certs-dir layout (public.crt, private.key, CAs/) from TLS_DIR
certs_dir() {
  mkdir -p "$DIR/certs/CAs"
  cp "$TLS_DIR/server.crt" "$DIR/certs/public.crt"
  cp "$TLS_DIR/server.key" "$DIR/certs/private.key"
  cp "$TLS_DIR/ca.crt" "$DIR/certs/CAs/ca.crt"
  echo "$DIR/certs"
}

build() {
  [[ -x "$BIN" ]] && return 0
  # the image's Go lives in /usr/local/go; Debian's golang-go is too old for MinIO
  [[ -x /usr/local/go/bin/go ]] && PATH="/usr/local/go/bin:$PATH"
  command -v go >/dev/null 2>&1 || die "need Go >= 1.24 on PATH to build MinIO"
  log "building $MINIO_MODULE with go install into $(dirname "$BIN") (once)"
  local t0=$SECONDS
  mkdir -p "$DIR" "$(dirname "$BIN")"
  GOBIN="$(dirname "$BIN")" CGO_ENABLED=0 go install "$MINIO_MODULE" >"$DIR/build.log" 2>&1 || {
    tail -n 30 "$DIR/build.log" >&2
    die "go install of MinIO failed"
  }
  log "built MinIO in $((SECONDS - t0)) s"
}

# creates the bucket with a signed S3 request (MinIO's own client is not installed)
make_bucket() {
  local code
  code="$(curl -sS "${CURL_TLS[@]}" -o "$DIR/mb.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:$GATEWAY_S3_REGION:s3" --user "$GATEWAY_S3_ACCESS_KEY:$GATEWAY_S3_SECRET_KEY" \
    "$(url)/$GATEWAY_S3_BUCKET")"
  case "$code" in
    200) log "created bucket $GATEWAY_S3_BUCKET" ;;
    409) ;; # BucketAlreadyOwnedByYou
    *)
      cat "$DIR/mb.out" >&2
      die "creating bucket $GATEWAY_S3_BUCKET answered $code"
      ;;
  esac
}

start() {
  if pid_alive "$PIDFILE"; then
    wait_for 30 ready || die "pid $(cat "$PIDFILE") runs but does not answer on port $PORT"
    make_bucket
    return 0
  fi
  port_open "$PORT" && die "port $PORT is taken by another process"
  build
  mkdir -p "$DATA"
  local certs=()
  [[ -z "$TLS_DIR" ]] || certs=(--certs-dir "$(certs_dir)")
  MINIO_ROOT_USER="$GATEWAY_S3_ACCESS_KEY" MINIO_ROOT_PASSWORD="$GATEWAY_S3_SECRET_KEY" \
    MINIO_BROWSER=off MINIO_UPDATE=off MINIO_CI_CD=1 \
    setsid "$BIN" server "$DATA" --address "127.0.0.1:$PORT" --console-address "127.0.0.1:$((PORT + 1))" \
    "${certs[@]}" --quiet >"$DIR/server.log" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  if ! wait_for 60 ready; then
    tail -n 30 "$DIR/server.log" >&2 || true
    stop
    die "MinIO did not become ready on 127.0.0.1:$PORT"
  fi
  make_bucket
  log "running: $(url) (pid $(cat "$PIDFILE"), bucket $GATEWAY_S3_BUCKET)"
}

stop() { stop_pid "$PIDFILE" 15; }

engine_main "$@"
