import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import {
  createInProcessBus,
  type EventBus,
  type LockHolder,
  lockDir,
  openJournal,
  registerConsumerMetrics,
} from "@gateway/bus";
import { type ConfigCache, createInProcessCache } from "@gateway/cache";
import { callEventRequestId, type Logger } from "@gateway/contracts";
import { buildServices, seedPricesAndQueueRepricing, startControlPlane } from "@gateway/control-plane";
import { registerCostingMetrics } from "@gateway/costing-worker";
import { type Db, openDb, runMigrations, upgradeFromPglite } from "@gateway/db";
import { createGateway, gatewayConfigFromEnv, isGatewayPath } from "@gateway/gateway";
import { createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { createInProcessLimits } from "@gateway/limits";
import {
  aliveAnswer,
  createHttpServer,
  createLogger,
  drainSettings,
  listen,
  metricsFor,
  readyAnswer,
  stopServing,
  withMetricsRoute,
} from "@gateway/runtime";
import type { Tracer } from "@gateway/tracing";
import { startCallStore } from "./call-store.ts";
import type { StandaloneEnv } from "./env.ts";
import { sweepCaptureFiles } from "./sweep-captures.ts";

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
 * Every app in one process on the embedded adapters: SQLite (or PostgreSQL when configured),
 * the in-process bus and cache, and capture files under the data dir. One port serves the
 * gateway (`/v1/*`, `/healthz`) and the control plane (everything else).
 */
export interface StandaloneOptions {
  log?: Logger;
  /** Operator credentials by env var name (catalog deployments, the responses key). */
  credentials?: (name: string) => string | undefined;
  /** Spans for the gateway's calls and the consumers' events; null (the default) when tracing is off. */
  tracer?: Tracer | null;
}

export async function startStandalone(
  env: StandaloneEnv,
  options: StandaloneOptions = {},
): Promise<Standalone> {
  const log = options.log ?? createLogger("standalone", { level: env.LOG_LEVEL });
  const dataDir = resolve(env.GATEWAY_DATA_DIR);
  // Taken before anything in the data dir is opened: a second process on it is refused here, and
  // one that cannot have the port fails next, before it has touched the database.
  const lock = lockDir(dataDir);
  if (lock.stale) log.warn("the last process on this data dir did not stop cleanly", { pid: lock.stale.pid });
  let serve: RequestListener = answerStarting;
  const server = createHttpServer((req, res) => serve(req, res), { log });
  try {
    const url = await listen(server, env.PORT, env.HOST);
    const apps = await startApps(env, dataDir, log, options, lock.stale ? lockedSince(lock.stale) : null);
    serve = apps.serve;
    let stopping: Promise<void> | null = null;
    const stop = async () => {
      await stopServing(server, apps.gateway, drainSettings(env), log);
      await apps.close();
      lock.release();
    };
    return {
      url,
      server,
      internals: apps.internals,
      cache: apps.cache,
      firstStart: apps.firstStart,
      stop: () => {
        stopping ??= stop();
        return stopping;
      },
    };
  } catch (error) {
    server.close();
    lock.release();
    throw error;
  }
}

/**
 * Until the stores are open every request is asked to come back (the SDKs retry a 503 by
 * themselves), `/readyz` included; `/livez` says the process is alive.
 */
function answerStarting(req: IncomingMessage, res: ServerResponse) {
  const alive = req.url === "/livez";
  const body = JSON.stringify(
    alive
      ? aliveAnswer.body
      : req.url === "/readyz"
        ? readyAnswer({ ready: false, reason: "starting" }).body
        : { error: { code: "starting", message: "The server is starting; retry in a moment." } },
  );
  res.writeHead(alive ? aliveAnswer.status : 503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(alive ? {} : { "retry-after": "1" }),
  });
  res.end(body);
}

/** When the process that left a stale lock started; the epoch when its lock does not say. */
function lockedSince(holder: LockHolder): Date {
  const started = new Date(holder.started_at);
  return Number.isNaN(started.getTime()) ? new Date(0) : started;
}

/**
 * The embedded store, `<dataDir>/gateway.db`. A data dir that a release before SQLite wrote holds
 * PGlite's store at `<dataDir>/pg` instead: it is imported once, here, under the data dir's lock
 * (the next start finds the SQLite file and imports nothing).
 */
async function embeddedStore(dataDir: string, log: Logger) {
  const file = join(dataDir, "gateway.db");
  await upgradeFromPglite({ dataDir, sqliteFile: file, log });
  return { kind: "sqlite", file } as const;
}

/**
 * Opens the stores in the data dir and starts every app on them. `crashedSince` is set after an
 * unclean stop: the start of the process that died, whose unfinished capture files are swept.
 */
async function startApps(
  env: StandaloneEnv,
  dataDir: string,
  log: Logger,
  options: StandaloneOptions,
  crashedSince: Date | null,
) {
  // PostgreSQL as the split apps open it (a refusal, of a certificate or a login, is one line at
  // start), its driver loaded only then: the embedded default never loads it
  const store = env.GATEWAY_DATABASE_URL
    ? await (await import("@gateway/engines/postgres")).openPostgres({
        GATEWAY_DATABASE_URL: env.GATEWAY_DATABASE_URL,
        GATEWAY_DATABASE_POOL_SIZE: 10,
        ...(env.GATEWAY_DATABASE_CA_FILE ? { GATEWAY_DATABASE_CA_FILE: env.GATEWAY_DATABASE_CA_FILE } : {}),
      })
    : await openDb(await embeddedStore(dataDir, log));
  await runMigrations(store);
  const { db } = store;
  const jobs = createInProcessQueue((letter) =>
    log.error("job failed for good", { name: letter.name, error: letter.error }),
  );
  // the re-pricing jobs wait in the queue until the costing worker below takes them
  await seedPricesAndQueueRepricing(db, jobs);
  const cache = createInProcessCache();
  const limits = createInProcessLimits();
  const bus = createInProcessBus({
    // A batch is one transaction and one capture segment, cheaper per call the larger it is, and
    // one stretch of the event loop that serves no request: 128 at most (docs/decisions.md, "The
    // embedded store writes in batches")
    lingerMs: 60,
    maxBatch: 128,
    onHandlerError: (group, error) => log.error("event consumer failed; will retry", { group, error }),
    // The event itself may hold captured prompts: only a call's request id goes to the log.
    onDeadLetter: (group, event, error) =>
      log.error("event given up after repeated failures", {
        group,
        request_id: callEventRequestId(event) ?? null,
        error,
      }),
    journal: openJournal(join(dataDir, "journal"), {
      onError: (message, error) => log.error(message, { error }),
    }),
  });
  const blobsRoot = join(dataDir, "blobs");
  const blobs = createFsBlobStore(blobsRoot);
  const services = buildServices(
    { db, cache, blobs, log, limits, jobs },
    { cursorSecret: env.GATEWAY_CURSOR_SECRET, operatorToken: env.GATEWAY_OPERATOR_TOKEN },
  );
  await services.sync.syncAll(db);
  // one registry for every app of the process, served on its one port
  const metrics = metricsFor(env);
  const controlPlane = await startControlPlane(
    { services, exclusive: (work) => store.exclusive(work) },
    { catalogFile: env.GATEWAY_CATALOG_FILE, metrics },
  );

  const tracer = options.tracer ?? null;
  const retentionEveryMs = env.GATEWAY_RETENTION_EVERY_MS;
  const calls = await startCallStore({ db, blobs, bus, jobs, log, tracer, limits, retentionEveryMs });
  if (metrics) {
    registerConsumerMetrics(metrics, bus);
    registerCostingMetrics(metrics, { db, jobs });
  }
  // Calls a killed process had answered but not yet stored: their consumers are listening now.
  const replayed = bus.replayJournal();
  if (replayed > 0) log.info("journal: events of the last process published again", { events: replayed });
  if (crashedSince) {
    // once the replayed events are stored, what is still unindexed was cut off by the crash
    await bus.flush();
    // best effort: a file it cannot read must not keep the server from starting
    await sweepCaptureFiles(db, blobsRoot, crashedSince, log).catch((error: unknown) =>
      log.error("capture sweep failed", { error }),
    );
  }
  const gateway = createGateway({
    cache,
    bus,
    log,
    config: gatewayConfigFromEnv(env),
    credentials: options.credentials ?? (() => undefined),
    spillDir: join(dataDir, "spill"),
    metrics,
    tracer,
    limits,
  });
  const serve = withMetricsRoute(metrics, (req, res) => {
    if (isGatewayPath(req.url ?? "/")) gateway.handle(req, res);
    else void controlPlane.listener(req, res);
  });

  return {
    serve,
    gateway,
    cache,
    firstStart: controlPlane.firstStart,
    internals: { db, bus, jobs } as Standalone["internals"],
    /** After the gateway has drained: hands every event on, then closes the stores. */
    async close() {
      await bus.flush();
      await bus.close();
      await jobs.idle();
      await jobs.close();
      await calls.close();
      await gateway.close();
      await cache.close();
      await store.close();
    },
  };
}
