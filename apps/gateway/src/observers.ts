import type { EventBus } from "@gateway/bus";
import type { ConfigCache } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import type { LimitStore } from "@gateway/limits";
import type { Metrics } from "@gateway/runtime";
import type { Tracer } from "@gateway/tracing";
import { accessLog } from "./access-log.ts";
import type { CallLimits } from "./admission.ts";
import { callEventPublisher } from "./call-event.ts";
import { type CallObserver, type CallObservers, observersByHook } from "./call-observer.ts";
import { TraceObserver } from "./call-trace.ts";
import { gatewayMetrics } from "./metrics.ts";

export interface ObserverParts {
  bus: EventBus;
  cache: ConfigCache;
  log: Logger;
  config: { accessLog: boolean };
  metrics: Metrics | null;
  tracer: Tracer | null;
  limits: LimitStore | null;
  /** The limits stage, which settles what it admitted. */
  callLimits: CallLimits | null;
  inFlight(): number;
}

/**
 * The observers switched on, built once at the gateway's start: the metrics when metrics are on,
 * the spans when a tracer is given, the access log when asked for, the call event always, the
 * limits' settling when limits are on. A new observer is a new file, and a line here.
 */
export function switchedOnObservers(parts: ObserverParts): CallObservers {
  const { bus, cache, log, metrics, limits } = parts;
  const trace = parts.tracer ? new TraceObserver(parts.tracer) : null;
  const observers: (CallObserver | null)[] = [
    metrics ? gatewayMetrics(metrics, { bus, cache, limits, inFlight: parts.inFlight }) : null,
    parts.config.accessLog ? accessLog(log) : null,
    trace,
    callEventPublisher({ bus, log, traceHeaders: trace?.headersOf ?? null }),
    parts.callLimits,
  ];
  return observersByHook(observers.filter((o) => o !== null));
}
