import { createHttpServer, createLogger, metricsFor, withMetricsRoute } from "@gateway/contracts";
import { databaseAnswers } from "@gateway/db";
import { envOrExit, listen, stopOnSignals } from "@gateway/engines";
import { getRequestListener } from "@hono/node-server";
import { createControlPlaneApp } from "./app.ts";
import { controlPlaneDeps } from "./deps.ts";
import { parseControlPlaneEnv } from "./env.ts";
import { loadCatalogFile } from "./services/catalog.ts";
import { ensureFirstOrg, firstStartBanner } from "./services/orgs.ts";

// The control plane as a process of its own (split deployment): `pnpm --filter @gateway/control-plane start`.
const log = createLogger("control-plane");
const env = envOrExit(parseControlPlaneEnv);
const { services, exclusive, close } = await controlPlaneDeps(env, log);
if (env.GATEWAY_CATALOG_FILE) {
  const count = await loadCatalogFile(services, env.GATEWAY_CATALOG_FILE);
  log.info("catalog loaded", { file: env.GATEWAY_CATALOG_FILE, models: count });
}
// Under the startup lock: replicas starting together on an empty database create one org.
const first = await exclusive(() => ensureFirstOrg(services));
if (first) process.stdout.write(firstStartBanner(first));

const metrics = metricsFor(env);
metrics?.readiness("control-plane", () => databaseAnswers(services.db, 1_000));
const server = createHttpServer(
  withMetricsRoute(metrics, getRequestListener(createControlPlaneApp(services, metrics).fetch)),
  { log },
);
const url = await listen(server, env.PORT, env.HOST);
log.info("listening", { url });

stopOnSignals(log, async () => {
  await new Promise<void>((done) => {
    server.close(() => done());
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      done();
    }, env.GATEWAY_DRAIN_TIMEOUT_MS).unref();
  });
  await close();
});
