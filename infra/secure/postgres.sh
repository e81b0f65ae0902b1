#!/usr/bin/env bash
# A secured PostgreSQL for tests: infra/postgres.sh with TLS from the throwaway CA (clients
# connect with sslmode=verify-full and the CA), `hostssl` + scram-sha-256 only in pg_hba, and
# the application user $SECURE_PG_USER owning the database. Data in $SECURE_DIR/pg.
#
#   infra/secure/postgres.sh {start|stop|status|url}   as infra/postgres.sh; url has the password,
#                                                      sslmode=verify-full and sslrootcert
set -euo pipefail
ENGINE=secure/postgres
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ "${1:-}" == start ]] && ensure_ca
PG_DATA_DIR="$SECURE_DIR/pg" PG_PORT="$SECURE_PG_PORT" PG_TLS_DIR="$CA" \
  PG_PASSWORD="$SECURE_PG_PASSWORD-superuser" PG_APP_USER="$SECURE_PG_USER" \
  PG_APP_PASSWORD="$SECURE_PG_PASSWORD" exec "$REPO/infra/postgres.sh" "$@"
