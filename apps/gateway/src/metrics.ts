import type { EventBus } from "@gateway/bus";
import type { ConfigCache } from "@gateway/cache";
import type { LimitStore } from "@gateway/limits";
import { durationBuckets, type Metrics, scrapedCounter, scrapedGauge } from "@gateway/runtime";
import { Counter, Histogram } from "prom-client";
import type { CallObserver } from "./call-observer.ts";
import { armOf, elapsedMs } from "./call-state.ts";

/**
 * The gateway's metrics (docs/metrics.md): an observer that counts each call as it ends; the
 * rest are read when scraped. Labels hold only values from fixed lists: never a key,
 * a model name, an org or anything a caller chooses. About 2 µs of CPU per call (bench/RESULTS.md).
 */
export function gatewayMetrics(
  metrics: Metrics,
  parts: { bus: EventBus; cache: ConfigCache; limits: LimitStore | null; inFlight(): number },
): CallObserver {
  const registers = [metrics.registry];
  const requests = new Counter({
    name: "gateway_requests_total",
    help: "Calls to the model endpoints, by endpoint, mode, route (primary, gateway, fallback), provider and status class (none: the caller left before a status).",
    labelNames: ["endpoint", "mode", "route", "provider", "status_class"],
    registers,
  });
  const duration = new Histogram({
    name: "gateway_request_duration_seconds",
    help: "From a call's arrival to its end (a stream's end, not its first byte), by endpoint and stream.",
    labelNames: ["endpoint", "stream"],
    buckets: durationBuckets,
    registers,
  });
  const firstByte = new Histogram({
    name: "gateway_upstream_first_byte_seconds",
    help: "From a call's arrival to the upstream's response head, by provider.",
    labelNames: ["provider"],
    buckets: durationBuckets,
    registers,
  });
  const streamOutcomes = new Counter({
    name: "gateway_stream_outcomes_total",
    help: "How streamed calls ended: complete, truncated, upstream_error, client_aborted.",
    labelNames: ["outcome"],
    registers,
  });
  const fallbacks = new Counter({
    name: "gateway_fallbacks_total",
    help: "Routed calls served by the workload's original model instead, by reason (timeout, error).",
    labelNames: ["reason"],
    registers,
  });
  const refusals = new Counter({
    name: "gateway_limit_refusals_total",
    help: "Calls refused with 429 by a limit, by the scope it is set on (api_key, project, workload) and the limit (requests_per_minute, tokens_per_minute, max_concurrent, budget).",
    labelNames: ["scope", "limit"],
    registers,
  });
  const limits = parts.limits;
  if (limits) {
    scrapedGauge(metrics, {
      name: "gateway_limits_local_fallback",
      help: "1 while Redis is away and this replica counts limits alone, against its share (the limit divided by the replicas it last saw); 0 otherwise.",
      read: () => [[{}, limits.counting() === "local_fallback" ? 1 : 0]],
    });
  }
  scrapedGauge(metrics, {
    name: "gateway_in_flight_requests",
    help: "Requests being served now, streams included.",
    read: () => [[{}, parts.inFlight()]],
  });
  scrapedGauge(metrics, {
    name: "gateway_event_spool_bytes",
    help: "Bytes of call events waiting on disk for Kafka (0 in the standalone process, which has no broker).",
    read: () => [[{}, parts.bus.stats().spooledBytes]],
  });
  scrapedCounter(metrics, {
    name: "gateway_event_publish_failures_total",
    help: "Sends of events to Kafka that failed or timed out; their events went to the spool.",
    read: () => [[{}, parts.bus.stats().publishFailures]],
  });
  scrapedCounter(metrics, {
    name: "gateway_config_cache_lookups_total",
    help: "Config reads by how they were answered: local (this process's copy), store (Redis), stale (the copy, Redis not answering), unavailable (the read failed).",
    labelNames: ["result"],
    read: () => Object.entries(parts.cache.lookups()).map(([result, n]) => [{ result }, n]),
  });

  return {
    ended(call) {
      const endpoint = call.spec.endpoint;
      const arm = armOf(call);
      const statusClass = call.status === 0 ? "none" : `${Math.floor(call.status / 100)}xx`;
      requests.inc({
        endpoint,
        mode: arm.mode,
        route: arm.route,
        provider: arm.providerLabel,
        status_class: statusClass,
      });
      duration.observe({ endpoint, stream: call.stream ? "true" : "false" }, elapsedMs(call) / 1000);
      if (call.firstByteMs !== null)
        firstByte.observe({ provider: arm.providerLabel }, call.firstByteMs / 1000);
      if (call.stream) streamOutcomes.inc({ outcome: call.outcome });
      if (call.fallbackReason) fallbacks.inc({ reason: call.fallbackReason });
      if (call.refusedBy) refusals.inc(call.refusedBy);
    },
  };
}
