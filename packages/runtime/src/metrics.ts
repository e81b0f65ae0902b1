import type { RequestListener, ServerResponse } from "node:http";
import { Counter, collectDefaultMetrics, Gauge, type LabelValues, Registry } from "prom-client";
import { z } from "zod";

/**
 * For every app's env schema: `GATEWAY_METRICS=false` turns `/metrics` off (404) and with it
 * every measurement on the request path. On by default; docs/metrics.md lists every metric.
 */
export const metricsEnv = {
  GATEWAY_METRICS: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
};

/** The buckets of every duration histogram, in seconds: 5 ms to 10 min (a long generation). */
export const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600];

/**
 * One process's metrics: Node's default process metrics (CPU, memory, event loop lag, GC,
 * handles) and `app_ready`, plus what each app registers in it. The standalone process shares
 * one registry among its apps and serves it on its one port.
 */
export interface Metrics {
  registry: Registry;
  /**
   * Reports an app's readiness as `app_ready{app}` (1 or 0), read when scraped: a probe that
   * flaps shows as changes of it.
   */
  readiness(app: string, ready: () => boolean | Promise<boolean>): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const probes = new Map<string, () => boolean | Promise<boolean>>();
  const metrics: Metrics = { registry, readiness: (app, ready) => void probes.set(app, ready) };
  scrapedGauge(metrics, {
    name: "app_ready",
    help: "1 while the app's /readyz answers 200, else 0, by app.",
    labelNames: ["app"],
    read: () =>
      Promise.all(
        [...probes].map(async ([app, ready]): Promise<Sample> => {
          const up = await Promise.resolve()
            .then(ready)
            .catch(() => false);
          return [{ app }, up ? 1 : 0];
        }),
      ),
  });
  return metrics;
}

/** The process's metrics, or null when `GATEWAY_METRICS` turned them off. */
export function metricsFor(env: { GATEWAY_METRICS: boolean }): Metrics | null {
  return env.GATEWAY_METRICS ? createMetrics() : null;
}

/**
 * `listener` with `GET /metrics` answered first, on the app's own port (keep the path off the
 * public side of a load balancer); without metrics, `listener` itself.
 */
export function withMetricsRoute(metrics: Metrics | null, listener: RequestListener): RequestListener {
  if (!metrics) return listener;
  return (req, res) => {
    if (req.method === "GET" && req.url === "/metrics") return serveMetrics(metrics, res);
    listener(req, res);
  };
}

/**
 * Answers `GET /metrics` in Prometheus's text format. The scraped metrics never fail it (see
 * `scrapedConfig`); a 500 says no more than that, since anyone who reaches the port may read it.
 */
function serveMetrics(metrics: Metrics, res: ServerResponse): void {
  metrics.registry.metrics().then(
    (text) => {
      res.writeHead(200, {
        "content-type": metrics.registry.contentType,
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
    },
    () => {
      const text = "metrics collection failed\n";
      res.writeHead(500, { "content-type": "text/plain", "content-length": Buffer.byteLength(text) });
      res.end(text);
    },
  );
}

/** Label values and the number a metric has for them. */
export type Sample = [labels: LabelValues<string>, value: number];

interface ScrapedMetric {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** Read when scraped: the parts keep plain numbers, so the request path pays no metric call. */
  read(): Sample[] | Promise<Sample[]>;
}

/** A counter whose value a part already counts (a bus's failed sends, a cache's reads). */
export function scrapedCounter(metrics: Metrics, metric: ScrapedMetric): void {
  new Counter(
    scrapedConfig<Counter>(metrics, metric, (counter, [labels, value]) => counter.inc(labels, value)),
  );
}

/** A gauge read from a part when scraped (requests in flight, spool bytes, consumer lag). */
export function scrapedGauge(metrics: Metrics, metric: ScrapedMetric): void {
  new Gauge(scrapedConfig<Gauge>(metrics, metric, (gauge, [labels, value]) => gauge.set(labels, value)));
}

function scrapedConfig<M extends Counter | Gauge>(
  metrics: Metrics,
  metric: ScrapedMetric,
  put: (into: M, sample: Sample) => void,
) {
  return {
    name: metric.name,
    help: metric.help,
    labelNames: metric.labelNames ?? [],
    registers: [metrics.registry],
    async collect(this: M) {
      // A part that cannot be read keeps its last values for this scrape, and the rest still
      // answer: a reset would show a counter going back to 0 (a restart, to rate()).
      const samples = await Promise.resolve()
        .then(() => metric.read())
        .catch(() => null);
      if (!samples) return;
      this.reset();
      for (const sample of samples) put(this, sample);
    },
  };
}

/**
 * `work`'s value, or `fallback` once `ms` have passed or when it fails: a scrape must answer within
 * Prometheus's timeout while the store it reads from hangs.
 */
export async function readWithin<T>(ms: number, work: () => Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work().catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
