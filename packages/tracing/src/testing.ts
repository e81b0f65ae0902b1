import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import type { Tracer } from "./index.ts";
import { sdkTracer } from "./otel.ts";

export type { ReadableSpan };

/**
 * A real SDK tracer whose spans are kept in memory as they end (for tests): the same code as an
 * app's OTLP tracer, with an in-memory exporter behind a simple (unbatched) processor.
 */
export function memoryTracer(serviceName = "test"): { tracer: Tracer; spans(): ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const tracer = sdkTracer(serviceName, [new SimpleSpanProcessor({ exporter })]);
  return { tracer, spans: () => exporter.getFinishedSpans() };
}
