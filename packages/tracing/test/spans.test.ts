import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { subscribeTraced, type TracedSubscription } from "../src/index.ts";
import { memoryTracer } from "../src/testing.ts";

const incoming = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("spans", () => {
  it("take an incoming traceparent as their parent, and name themselves as the parent of their children", () => {
    const { tracer, spans } = memoryTracer("svc");
    const server = tracer.startSpan(
      "chat m",
      "server",
      { traceparent: incoming, tracestate: "k=v" },
      { a: 1 },
    );
    const client = server.child("chat m", "client", { b: "x", none: null });
    client.end();
    const headers = server.headers();
    server.end("upstream_error");

    const [c, s] = spans();
    expect(s!.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(s!.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(s!.parentSpanContext?.isRemote).toBe(true);
    expect(s!.spanContext().traceState?.get("k")).toBe("v");
    expect(s!.kind).toBe(SpanKind.SERVER);
    expect(s!.status).toEqual({ code: SpanStatusCode.ERROR, message: "upstream_error" });
    expect(s!.resource.attributes["service.name"]).toBe("svc");
    expect(c!.kind).toBe(SpanKind.CLIENT);
    expect(c!.parentSpanContext?.spanId).toBe(s!.spanContext().spanId);
    expect(c!.attributes).toEqual({ b: "x" });
    expect(headers).toEqual({
      traceparent: `00-0af7651916cd43dd8448eb211c80319c-${s!.spanContext().spanId}-01`,
      tracestate: "k=v",
    });
  });

  it("start a new trace when there is no parent or its traceparent is not one", () => {
    const { tracer, spans } = memoryTracer();
    tracer.startSpan("a", "server", undefined).end();
    tracer.startSpan("b", "server", { traceparent: "00-not-a-trace-01" }).end();
    for (const span of spans()) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    }
  });

  it("are not recorded when the caller's traceparent says its trace is not sampled", () => {
    const { tracer, spans } = memoryTracer();
    const span = tracer.startSpan("a", "server", { traceparent: incoming.replace(/-01$/, "-00") });
    span.child("b", "client").end();
    // the decision travels on with the context
    expect(span.headers().traceparent).toMatch(/-00$/);
    span.end();
    expect(spans()).toEqual([]);
  });
});

describe("a traced subscription", () => {
  /** A bus of one subscription, whose batches the test hands in. */
  const bus = () => {
    const subscribed: TracedSubscription[] = [];
    return { subscribed, subscribe: async (s: TracedSubscription) => void subscribed.push(s) };
  };
  const requestIdOf = (event: unknown) => (event as { request_id?: string }).request_id;

  it("handles each event in a span whose parent is the context the event carried", async () => {
    const { tracer, spans } = memoryTracer();
    const call = tracer.startSpan("chat m", "server", undefined);
    const b = bus();
    const handled: unknown[] = [];
    await subscribeTraced(
      b,
      tracer,
      "worker store",
      {
        topic: "calls",
        group: "worker",
        handle: async (batch) => void handled.push(...batch),
      },
      requestIdOf,
    );
    await b.subscribed[0]!.handle([{ request_id: "req_1" }, { other: true }], [call.headers(), undefined]);
    call.end();

    expect(handled).toEqual([{ request_id: "req_1" }, { other: true }]);
    const [joined, orphan] = spans().filter((s) => s.name === "worker store");
    expect(joined!.kind).toBe(SpanKind.CONSUMER);
    expect(joined!.spanContext().traceId).toBe(call.headers().traceparent!.split("-")[1]);
    expect(joined!.parentSpanContext?.spanId).toBe(call.headers().traceparent!.split("-")[2]);
    expect(joined!.attributes).toMatchObject({
      "gateway.request_id": "req_1",
      "messaging.destination.name": "calls",
      "messaging.consumer.group.name": "worker",
      "messaging.batch.message_count": 2,
    });
    expect(orphan!.parentSpanContext).toBeUndefined();
  });

  it("ends its spans in error when the handler fails, naming the error's type only", async () => {
    const { tracer, spans } = memoryTracer();
    const b = bus();
    await subscribeTraced(
      b,
      tracer,
      "worker store",
      {
        topic: "calls",
        group: "worker",
        handle: async () => {
          throw new TypeError("a message that may quote stored data");
        },
      },
      requestIdOf,
    );
    await expect(b.subscribed[0]!.handle([{}], [undefined])).rejects.toThrow(TypeError);
    expect(spans()[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: "TypeError" });
    expect(spans()[0]!.attributes["error.type"]).toBe("TypeError");
  });

  it("is the subscription itself when tracing is off", async () => {
    const b = bus();
    const subscription: TracedSubscription = { topic: "calls", group: "worker", handle: async () => {} };
    await subscribeTraced(b, null, "worker store", subscription, requestIdOf);
    expect(b.subscribed[0]).toBe(subscription);
  });
});
