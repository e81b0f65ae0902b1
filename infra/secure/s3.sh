#!/usr/bin/env bash
# MinIO over HTTPS for tests: infra/s3.sh with the throwaway CA's server certificate
# (127.0.0.1/localhost), on 127.0.0.1:$SECURE_S3_PORT, data in $SECURE_DIR/minio; clients need
# the CA bundle ($SECURE_DIR/ca/ca.crt). Credentials and bucket as infra/distributed.env.
#
#   infra/secure/s3.sh {start|stop|status|url}   as infra/s3.sh; url is https://...
set -euo pipefail
ENGINE=secure/s3
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ "${1:-}" == start ]] && ensure_ca
S3_DIR="$SECURE_DIR/minio" S3_PORT="$SECURE_S3_PORT" S3_TLS_DIR="$CA" exec "$REPO/infra/s3.sh" "$@"
