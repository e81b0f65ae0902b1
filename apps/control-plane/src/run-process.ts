import {
  createLogger,
  drainSettings,
  envOrExit,
  metricsFor,
  startOrExit,
  stopOnSignals,
} from "@gateway/runtime";
import { controlPlaneDeps } from "./deps.ts";
import { parseControlPlaneEnv } from "./env.ts";
import { firstStartBanner } from "./services/orgs.ts";
import { serveControlPlane } from "./start.ts";

// The control plane as a process of its own (split deployment): `pnpm --filter @gateway/control-plane start`.
const env = envOrExit(parseControlPlaneEnv);
const log = createLogger("control-plane", { level: env.LOG_LEVEL });
// an engine that refuses the app (its certificate, its login) stops it with one line
const deps = await startOrExit(controlPlaneDeps(env, log));
const served = await serveControlPlane(deps, {
  port: env.PORT,
  host: env.HOST,
  log,
  metrics: metricsFor(env),
  catalogFile: env.GATEWAY_CATALOG_FILE,
  drain: drainSettings(env),
});
if (served.firstStart) process.stdout.write(firstStartBanner(served.firstStart));

stopOnSignals(log, async () => {
  await served.stop();
  await deps.close();
});
