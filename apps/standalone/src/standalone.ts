import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessBus, type EventBus } from "@gateway/bus";
import { type ConfigCache, createInProcessCache } from "@gateway/cache";
import { startCaptureWriter } from "@gateway/capture-writer";
import { createLogger, type Logger } from "@gateway/contracts";
import {
  buildServices,
  configSync,
  createControlPlaneApp,
  ensureFirstOrg,
  loadCatalogFile,
} from "@gateway/control-plane";
import { startCostingWorker } from "@gateway/costing-worker";
import { type Db, openDb, runMigrations, seedPriceTable } from "@gateway/db";
import { createGateway, gatewayConfigFromEnv, isGatewayPath, stopServing } from "@gateway/gateway";
import { createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { getRequestListener } from "@hono/node-server";
import type { StandaloneEnv } from "./env.ts";

export interface Standalone {
  url: string;
  server: Server;
  /** The config cache the gateway reads; exposed so tests can see what the control plane published. */
  cache: ConfigCache;
  /** The embedded adapters, for tests that publish events or read rows directly. */
  internals: { db: Db; bus: EventBus; jobs: JobQueue };
  /** Set on the first start of an empty store: the new org and its starter key, shown once. */
  firstStart: { orgId: string; apiKey: string } | null;
  /** Stops accepting, lets in-flight requests finish (bounded), flushes events, closes stores. */
  stop(): Promise<void>;
}

/**
 * Every app in one process on the embedded adapters: PGlite (or PostgreSQL when configured),
 * the in-process bus and cache, and capture files under the data dir. One port serves the
 * gateway (`/v1/*`, `/healthz`) and the control plane (everything else).
 */
export interface StandaloneOptions {
  log?: Logger;
  /** Operator credentials by env var name (catalog deployments, the responses key). */
  credentials?: (name: string) => string | undefined;
}

export async function startStandalone(
  env: StandaloneEnv,
  options: StandaloneOptions = {},
): Promise<Standalone> {
  const log = options.log ?? createLogger("standalone");
  const dataDir = resolve(env.GATEWAY_DATA_DIR);
  const store = await openDb(
    env.GATEWAY_DATABASE_URL
      ? { kind: "postgres", url: env.GATEWAY_DATABASE_URL }
      : { kind: "pglite", dataDir: join(dataDir, "pg"), ownThread: true },
  );
  await runMigrations(store);
  const { db } = store;
  await seedPriceTable(db);
  const jobs = createInProcessQueue((letter) =>
    log.error("job failed for good", { name: letter.name, error: letter.error }),
  );
  const cache = createInProcessCache();
  const bus = createInProcessBus({
    lingerMs: 20,
    onHandlerError: (group, error) =>
      log.error("event consumer failed; will retry", { group, error: String(error) }),
    // The event itself may hold captured prompts: only its request id goes to the log.
    onDeadLetter: (group, event, error) =>
      log.error("event given up after repeated failures", {
        group,
        request_id:
          typeof event === "object" && event !== null && "request_id" in event ? event.request_id : null,
        error: String(error),
      }),
  });
  const blobs = createFsBlobStore(join(dataDir, "blobs"));
  const sync = configSync(cache);
  await sync.syncAll(db);

  const services = buildServices(
    { db, sync, blobs, log },
    { cursorSecret: env.GATEWAY_CURSOR_SECRET, operatorToken: env.GATEWAY_OPERATOR_TOKEN },
  );
  if (env.GATEWAY_CATALOG_FILE) {
    const count = await loadCatalogFile(services, env.GATEWAY_CATALOG_FILE);
    log.info("catalog loaded", { file: env.GATEWAY_CATALOG_FILE, models: count });
  }
  const firstStart = await store.exclusive(() => ensureFirstOrg(services));

  await startCaptureWriter({ db, blobs, bus, log });
  await startCostingWorker({ db, bus, jobs, log });
  const gateway = createGateway({
    cache,
    bus,
    log,
    config: gatewayConfigFromEnv(env),
    credentials: options.credentials ?? (() => undefined),
  });
  const controlPlane = getRequestListener(createControlPlaneApp(services).fetch);

  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (isGatewayPath(req.url ?? "/")) gateway.handle(req, res);
    else void controlPlane(req, res);
  });
  await new Promise<void>((ready, failed) => {
    server.once("error", failed);
    server.listen(env.PORT, env.HOST, () => ready());
  });
  const { port } = server.address() as AddressInfo;
  const host = env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST;

  let stopping: Promise<void> | null = null;
  async function stop() {
    await stopServing(server, gateway, env.GATEWAY_DRAIN_TIMEOUT_MS, log);
    await bus.flush();
    await bus.close();
    await jobs.idle();
    await jobs.close();
    await gateway.close();
    await cache.close();
    await store.close();
  }

  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    server,
    internals: { db, bus, jobs },
    cache,
    firstStart,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
