import { createServer } from "node:http";
import { createLogger } from "@gateway/contracts";
import { orgs } from "@gateway/db";
import { envOrExit, listen, stopOnSignals } from "@gateway/engines";
import { getRequestListener } from "@hono/node-server";
import { createControlPlaneApp } from "./app.ts";
import { controlPlaneDeps } from "./deps.ts";
import { parseControlPlaneEnv } from "./env.ts";
import { loadCatalogFile } from "./services/catalog.ts";
import { createOrg } from "./services/orgs.ts";

// The control plane as a process of its own (split deployment): `pnpm --filter @gateway/control-plane start`.
const log = createLogger("control-plane");
const env = envOrExit(parseControlPlaneEnv);
const { services, exclusive, close } = await controlPlaneDeps(env, log);
if (env.GATEWAY_CATALOG_FILE) {
  const count = await loadCatalogFile(services, env.GATEWAY_CATALOG_FILE);
  log.info("catalog loaded", { file: env.GATEWAY_CATALOG_FILE, models: count });
}
// Under the startup lock: replicas starting together on an empty database create one org.
await exclusive(async () => {
  const [anyOrg] = await services.db.select({ id: orgs.id }).from(orgs).limit(1);
  if (anyOrg) return;
  // as the standalone server does: printed once, here, and never stored (only the hash is kept)
  const created = await createOrg(services, "default");
  process.stdout.write(
    `\nFirst start: created organisation and its starter API key.\n  org id:  ${created.org.id}\n  api key: ${created.api_key.value}\nKeep the key now; it cannot be shown again.\n\n`,
  );
});

const server = createServer(
  { keepAliveTimeout: 65_000 },
  getRequestListener(createControlPlaneApp(services).fetch),
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
