#!/usr/bin/env bash
# Proves that each secured engine enforces what it claims, with the repo's own clients (kafkajs
# of packages/bus, ioredis and BullMQ of packages/cache and packages/jobs, postgres of
# packages/db, @aws-sdk/client-s3 of packages/blobstore; the checks are infra/secure/smoke/*.mjs):
# the right credentials and CA get in; a wrong password, plaintext and the wrong CA do not; a
# Kafka partition leader and the Redis primary are SIGKILLed under traffic and the figures printed.
#
#   infra/secure/smoke.sh [kafka|redis|postgres|s3 ...]   (default: all four)
#
# Starts the engines first (infra/secure/engines.sh start; a no-op when they run) and leaves them
# running, Redis started again in its original roles after its failover. Exit 1 if a check failed.
set -euo pipefail
ENGINE=secure/smoke
# shellcheck source=infra/secure/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$REPO/infra/secure"
# shellcheck source=scripts/toolchain.sh
source "$REPO/scripts/toolchain.sh" >/dev/null

"$HERE/engines.sh" start
# KEY=value lines whose values may hold shell characters (a URL's &): exported as they are
while IFS='=' read -r key value; do export "$key=$value"; done < <("$HERE/engines.sh" env)

failed=0
for engine in "${@:-kafka redis postgres s3}"; do
  for e in $engine; do
    t0=$SECONDS
    node "$HERE/smoke/$e.mjs" || failed=1
    echo "  ($e checked in $((SECONDS - t0)) s)"
    if [[ "$e" == redis ]]; then "$HERE/redis.sh" start 2>/dev/null; fi
  done
done
exit "$failed"
