import {
  createHttpServer,
  createLogger,
  credentialsWithFiles,
  drainSettings,
  envOrExit,
  listen,
  metricsFor,
  startOrExit,
  stopOnSignals,
  stopServing,
  withMetricsRoute,
} from "@gateway/runtime";
import { startTracing } from "@gateway/tracing";
import { gatewayConfigFromEnv } from "./config.ts";
import { gatewayDeps } from "./deps.ts";
import { parseGatewayEnv } from "./env.ts";
import { createGateway } from "./gateway.ts";

// The gateway as a process of its own (split deployment): `pnpm --filter @gateway/gateway start`.
const env = envOrExit(parseGatewayEnv);
const log = createLogger("gateway", { level: env.LOG_LEVEL });
// an engine that refuses the app (its certificate, its login) stops it with one line
const deps = await startOrExit(gatewayDeps(env, log));
const metrics = metricsFor(env);
// off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads the other OTEL_* settings itself
const tracer = await startTracing("gateway", process.env);
const gateway = createGateway({
  ...deps,
  log,
  metrics,
  config: gatewayConfigFromEnv(env),
  // operator credentials of managed deployments, by the env var name the catalog names (each also
  // as <NAME>_FILE, read on first use)
  credentials: credentialsWithFiles((name) => process.env[name]),
  tracer,
});
const server = createHttpServer(
  withMetricsRoute(metrics, (req, res) => gateway.handle(req, res)),
  { log },
);
const url = await listen(server, env.PORT, env.HOST);
log.info("listening", { url });

stopOnSignals(log, async () => {
  await stopServing(server, gateway, drainSettings(env), log);
  // events the broker has not taken stay in the spool and leave with the next start
  await deps.bus.flush();
  await deps.bus.close();
  await gateway.close();
  await deps.cache.close();
  await deps.limits.close();
  await tracer?.shutdown();
});
