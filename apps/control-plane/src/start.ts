import type { RequestListener } from "node:http";
import type { Logger } from "@gateway/contracts";
import {
  checkReadiness,
  createHttpServer,
  type DrainSettings,
  drainableReadiness,
  listen,
  type Metrics,
  type ReadinessCheck,
  stopServing,
  withMetricsRoute,
} from "@gateway/runtime";
import { getRequestListener } from "@hono/node-server";
import { createControlPlaneApp, databaseReadiness } from "./app.ts";
import type { ControlPlaneDeps } from "./deps.ts";
import { loadCatalogFile } from "./services/catalog.ts";
import { ensureFirstOrg } from "./services/orgs.ts";

/** Services built on open stores, and the startup lock of the database they share. */
type Started = Pick<ControlPlaneDeps, "services" | "exclusive">;

export interface ControlPlaneStart {
  /** The control plane's requests (`/metrics` excepted: the process that serves it adds it). */
  listener: RequestListener;
  /** Set on the first start of an empty store: the new org and its starter key, shown once. */
  firstStart: { orgId: string; apiKey: string } | null;
}

/**
 * The control plane on its services, in the split deployment and in the standalone process
 * alike: the catalog file upserted, the first org made on an empty store, and its requests'
 * listener.
 */
export async function startControlPlane(
  { services, exclusive }: Started,
  options: { catalogFile?: string | undefined; metrics: Metrics | null; readiness?: ReadinessCheck },
): Promise<ControlPlaneStart> {
  if (options.catalogFile) {
    const count = await loadCatalogFile(services, options.catalogFile);
    services.log.info("catalog loaded", { file: options.catalogFile, models: count });
  }
  // Under the startup lock: replicas starting together on an empty database create one org.
  const firstStart = await exclusive(() => ensureFirstOrg(services));
  const app = createControlPlaneApp(services, options);
  return { listener: getRequestListener(app.fetch), firstStart };
}

/**
 * The control plane on a port of its own (the split deployment): ready while PostgreSQL
 * answers, `/metrics` beside its routes, and `stop` drains it (`/readyz` 503 first).
 */
export async function serveControlPlane(
  started: Started,
  options: {
    port: number;
    host: string;
    log: Logger;
    metrics: Metrics | null;
    catalogFile?: string | undefined;
    drain: DrainSettings;
  },
): Promise<ControlPlaneStart & { url: string; stop(): Promise<void> }> {
  const { log, metrics } = options;
  const ready = drainableReadiness(databaseReadiness(started.services));
  metrics?.readiness("control-plane", async () => (await checkReadiness(ready.readiness)).ready);
  const app = await startControlPlane(started, { ...options, readiness: ready.readiness });
  const server = createHttpServer(withMetricsRoute(metrics, app.listener), { log });
  const url = await listen(server, options.port, options.host);
  log.info("listening", { url });
  let stopping: Promise<void> | null = null;
  return { ...app, url, stop: () => (stopping ??= stopServing(server, ready, options.drain, log)) };
}
