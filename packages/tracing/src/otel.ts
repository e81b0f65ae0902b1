import {
  type Attributes,
  defaultTextMapGetter,
  defaultTextMapSetter,
  SpanKind as OtelSpanKind,
  type Tracer as OtelTracer,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { SpanAttributes, SpanKind, TraceHeaders, Tracer, TraceSpan } from "./index.ts";

// Loaded only when tracing is on (see `startTracing`): this is the one module that imports the SDK.

const kinds: Record<SpanKind, OtelSpanKind> = {
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  consumer: OtelSpanKind.CONSUMER,
  internal: OtelSpanKind.INTERNAL,
};

const propagator = new W3CTraceContextPropagator();

/** The OTLP (HTTP/protobuf) tracer of an app, spans batched; endpoint and headers from `OTEL_EXPORTER_OTLP_*`. */
export function otlpTracer(serviceName: string, env: Readonly<Record<string, string | undefined>>): Tracer {
  return sdkTracer(
    serviceName,
    [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
    samplerFrom(env),
  );
}

/**
 * A tracer on the SDK with these processors. No global is registered: every span's parent is
 * passed explicitly, so nothing depends on a context manager or on who else uses the API.
 */
export function sdkTracer(serviceName: string, spanProcessors: SpanProcessor[], sampler?: Sampler): Tracer {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the app's own name, as the spec says
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, spanProcessors, ...(sampler ? { sampler } : {}) });
  const tracer = provider.getTracer("@gateway/tracing");
  return {
    startSpan(name, kind, parent, attributes) {
      const context = parent ? propagator.extract(ROOT_CONTEXT, parent, defaultTextMapGetter) : ROOT_CONTEXT;
      return wrap(
        tracer,
        tracer.startSpan(name, { kind: kinds[kind], attributes: defined(attributes) }, context),
      );
    },
    shutdown: () => provider.shutdown(),
  };
}

function wrap(tracer: OtelTracer, span: Span): TraceSpan {
  let headers: TraceHeaders | null = null;
  return {
    headers() {
      if (!headers) {
        const carrier: Record<string, string> = {};
        propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
        headers = carrier;
      }
      return headers;
    },
    child(name, kind, attributes) {
      const context = trace.setSpan(ROOT_CONTEXT, span);
      return wrap(
        tracer,
        tracer.startSpan(name, { kind: kinds[kind], attributes: defined(attributes) }, context),
      );
    },
    setAttributes(attributes) {
      for (const key in attributes) {
        const value = attributes[key];
        if (value != null) span.setAttribute(key, value);
      }
    },
    updateName(name) {
      span.updateName(name);
    },
    end(error) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end();
    },
  };
}

// for...in, not Object.entries: this runs for every span, and the arrays showed in the profile
function defined(attributes: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value != null) out[key] = value;
  }
  return out;
}

/**
 * `OTEL_TRACES_SAMPLER` (and `_ARG`) as the spec defines them; unset, every trace a caller did
 * not decline is kept (`parentbased_always_on`): a caller's `traceparent` decides for its calls.
 */
function samplerFrom(env: Readonly<Record<string, string | undefined>>): Sampler | undefined {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const traceIdRatio = () => new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1);
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return traceIdRatio();
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: traceIdRatio() });
    default:
      return undefined;
  }
}
