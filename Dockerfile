# syntax=docker/dockerfile:1
# One image per app, each holding only that app's deploy folder (scripts/deploy-folder.sh: its
# files, its production dependencies as pnpm-lock.yaml pins them, the workspace packages it uses)
# on a pinned Node 24, run as the unprivileged `node` user:
#
#   docker build --target gateway -t gateway .        # also: control-plane, capture-writer,
#                                                     # costing-worker, standalone
#
# CI has no Docker engine: apps/standalone/test/e2e/deploy-folders.e2e.test.ts runs every app from
# the folder this file copies, built by the same script, in an empty directory with only `node`.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS workspace
RUN corepack enable
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile \
  && for app in gateway control-plane capture-writer costing-worker standalone; do \
       scripts/deploy-folder.sh "$app" "/deploy/$app"; \
     done

# Every app writes only under /data (a volume): the spool and journal of the split apps, the
# embedded database, captures and journal of the standalone process.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
RUN mkdir -p /data && chown node:node /data
VOLUME /data
WORKDIR /app
USER node
STOPSIGNAL SIGTERM

FROM runtime AS gateway
COPY --from=workspace /deploy/gateway /app
ENV GATEWAY_SPOOL_DIR=/data/spool
EXPOSE 8080
CMD ["node", "--max-semi-space-size=8", "--no-allocation-site-pretenuring", "--no-parallel-scavenge", "src/main.ts"]

FROM runtime AS control-plane
COPY --from=workspace /deploy/control-plane /app
EXPOSE 8080
CMD ["node", "src/main.ts"]

FROM runtime AS capture-writer
COPY --from=workspace /deploy/capture-writer /app
ENV GATEWAY_SPOOL_DIR=/data/spool PORT=8091
EXPOSE 8091
CMD ["node", "src/main.ts"]

FROM runtime AS costing-worker
COPY --from=workspace /deploy/costing-worker /app
ENV GATEWAY_SPOOL_DIR=/data/spool PORT=8092
EXPOSE 8092
CMD ["node", "src/main.ts"]

FROM runtime AS standalone
COPY --from=workspace /deploy/standalone /app
# glibc returns freed memory past 128 KiB to the system, and Node keeps each module's stripped,
# compiled form in the data volume so that a restart does not load the TypeScript stripper (~17 MB
# resident); the start script sets the same (docs/operations.md)
ENV GATEWAY_DATA_DIR=/data MALLOC_TRIM_THRESHOLD_=131072 NODE_COMPILE_CACHE=/data/node-compile-cache
EXPOSE 8080
CMD ["node", "--max-semi-space-size=8", "--no-allocation-site-pretenuring", "src/main.ts"]
