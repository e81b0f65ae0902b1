/**
 * Tracing as the apps see it: a tracer that starts spans, and spans that start children and
 * name themselves as a parent in W3C trace-context headers. Nothing here imports OpenTelemetry:
 * the SDK is loaded by `startTracing` only when tracing is on, so an app with tracing off loads
 * none of it and its hot path pays one null check (`tracer` / `span` is null).
 */

/** W3C trace-context headers (`traceparent`, and `tracestate` when there is one). */
export type TraceHeaders = Readonly<Record<string, string>>;

/** Headers a parent context may be read from: an incoming request's, or an event's. */
export type ParentHeaders = Readonly<Record<string, string | string[] | undefined>>;

export type SpanKind = "server" | "client" | "consumer" | "internal";

/** Attribute values; null and undefined are left out (OpenTelemetry has no null). */
export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

export interface TraceSpan {
  /** This span as the parent of work elsewhere: the headers an event or a request carries. */
  headers(): TraceHeaders;
  /** A span whose parent is this one. */
  child(name: string, kind: SpanKind, attributes?: SpanAttributes): TraceSpan;
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
  /** Ends the span; with `error`, its status is ERROR with that description. Once only. */
  end(error?: string): void;
}

export interface Tracer {
  /**
   * A span whose parent is the context `parent` carries (an incoming `traceparent`, an event's
   * headers); a new trace when it carries none or an invalid one.
   */
  startSpan(
    name: string,
    kind: SpanKind,
    parent: ParentHeaders | undefined,
    attributes?: SpanAttributes,
  ): TraceSpan;
  /** Exports what is still pending, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Tracing is on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not
 * `true`, the standard switch to turn the SDK off).
 */
export function tracingEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED?.trim() !== "true";
}

/**
 * The app's tracer, exporting over OTLP (the exporter reads the standard `OTEL_EXPORTER_OTLP_*`
 * settings), or null when tracing is off; the SDK is imported only when it is on.
 */
export async function startTracing(
  serviceName: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Tracer | null> {
  if (!tracingEnabled(env)) return null;
  const { otlpTracer } = await import("./otel.ts");
  return otlpTracer(serviceName, env);
}

export { subscribeTraced, type TracedSubscription } from "./event-spans.ts";
