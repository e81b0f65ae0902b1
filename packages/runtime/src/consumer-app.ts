import type { Logger } from "@gateway/contracts";
import { startTracing, type Tracer } from "@gateway/tracing";
import { drainableReadiness, drainSettings, stopServing } from "./drain.ts";
import type { ListenEnv } from "./env.ts";
import { createLogger } from "./logger.ts";
import { type Metrics, metricsFor } from "./metrics.ts";
import { type ReadinessCheck, serveProbes } from "./probes.ts";
import { envOrExit, startOrExit, stopOnSignals } from "./process.ts";

/** A consumer app's own parts, opened by `runConsumerApp` once its env is valid. */
export interface ConsumerParts {
  /** What `/readyz` answers while the app runs. */
  readiness: ReadinessCheck;
  /** Starts consuming; resolves with what stops it, when there is anything to stop. */
  start(tracer: Tracer | null): Promise<{ close(): Promise<void> } | void>;
  /** Closes the adapters, once consuming has stopped. */
  close(): Promise<void>;
}

/**
 * Runs a consumer (the capture writer, the costing worker) as a process of its own: the env
 * parsed (or the process exits saying why), the logger and metrics, the app's adapters, its
 * probes first (alive while it joins its group, ready once `readiness` says so), tracing (off
 * unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads the other OTEL_* settings itself),
 * then consuming, until SIGTERM or SIGINT drains the probes and closes it all.
 */
export async function runConsumerApp<E extends ListenEnv>(app: {
  name: string;
  parseEnv(source: Record<string, string | undefined>): E;
  /** Opens the app's adapters and registers its metrics. */
  open(env: E, log: Logger, metrics: Metrics | null): Promise<ConsumerParts>;
}): Promise<void> {
  const env = envOrExit(app.parseEnv);
  const log = createLogger(app.name, { level: env.LOG_LEVEL });
  const metrics = metricsFor(env);
  // an engine that refuses the app (its certificate, its login) stops it with one line
  const parts = await startOrExit(app.open(env, log, metrics));
  const ready = drainableReadiness(parts.readiness);
  const probes = await serveProbes({
    app: app.name,
    port: env.PORT,
    host: env.HOST,
    log,
    metrics,
    readiness: ready.readiness,
  });
  const tracer = await startTracing(app.name, process.env);
  const consuming = await parts.start(tracer);
  log.info("consuming", { group: app.name });
  stopOnSignals(log, async () => {
    await stopServing(probes, ready, drainSettings(env), log);
    await consuming?.close();
    await parts.close();
    await tracer?.shutdown();
  });
}
