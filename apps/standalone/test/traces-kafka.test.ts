import { callRows } from "@gateway/db/testing";
import { memoryTracer, type ReadableSpan } from "@gateway/tracing/testing";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.ts";
import { callerTrace, tracedChat } from "./support/caller-trace.ts";
import { type KafkaCallPath, startKafkaCallPath } from "./support/kafka-call-path.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

/**
 * The split deployment's path of a call event, in one process so that one in-memory exporter
 * sees every span (`startKafkaCallPath`).
 */
describe.skipIf(!engines)("traces over Kafka (GATEWAY_TEST_ENGINES=1)", () => {
  const { tracer, spans } = memoryTracer("split");
  let path: KafkaCallPath;

  beforeAll(async () => {
    path = await startKafkaCallPath({ tracer });
  });

  afterAll(() => path?.close());

  /** A call with the caller's own `traceparent`; resolves with its request id and the caller's trace. */
  async function tracedCall(url: string) {
    const caller = callerTrace();
    const res = await tracedChat(url, path.apiKey, caller, {
      "x-gateway-upstream-key": "sk-caller-traces-kafka",
    });
    expect(res.status).toBe(200);
    await res.text();
    return { requestId: res.headers.get("x-gateway-request-id")!, ...caller };
  }

  /** The call's span, and the consumers' spans once both have handled its event (off Kafka). */
  async function chainOf(requestId: string) {
    await eventually(async () => {
      const [row] = await callRows(path.db, { requestIds: [requestId] });
      return row;
    }, 30_000);
    return eventually(async () => {
      const mine = spans().filter((s) => s.attributes["gateway.request_id"] === requestId);
      const server = mine.find((s) => s.kind === SpanKind.SERVER);
      const capture = mine.find((s) => s.name === "capture-writer store");
      const costing = mine.find((s) => s.name === "costing-worker price");
      return server && capture && costing ? { server, capture, costing } : undefined;
    }, 30_000);
  }

  const expectJoined = (consumer: ReadableSpan, server: ReadableSpan) => {
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(server.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(consumer.parentSpanContext?.isRemote).toBe(true);
  };

  it("carries the call's trace context in the Kafka message headers to both consumers' spans", async () => {
    const bus = await path.kafkaBus("traces-gateway");
    const gateway = await path.gatewayOn(bus);
    const call = await tracedCall(gateway.url);
    await bus.flush();
    const { server, capture, costing } = await chainOf(call.requestId);
    await gateway.stop();
    await bus.close();

    expect(server.spanContext().traceId).toBe(call.traceId);
    expect(server.parentSpanContext?.spanId).toBe(call.spanId);
    expectJoined(capture, server);
    expectJoined(costing, server);
  }, 60_000);

  it("keeps the trace context of a call spooled while the broker was away", async () => {
    const spoolDir = await path.tempDir();
    // a gateway whose broker never answers: the call's event waits in its spool
    const offline = await path.kafkaBus("traces-gateway-offline", {
      brokers: ["127.0.0.1:1"],
      spoolDir,
      sendTimeoutMs: 300,
      retryIntervalMs: 60_000,
    });
    const gateway = await path.gatewayOn(offline);
    const call = await tracedCall(gateway.url);
    await gateway.stop();
    await offline.flush();
    await offline.close();

    // the next process on the spool reaches the broker and sends what waited
    const restarted = await path.kafkaBus("traces-gateway", { spoolDir });
    path.closeLater(() => restarted.close());
    const { server, capture, costing } = await chainOf(call.requestId);

    expect(server.parentSpanContext?.spanId).toBe(call.spanId);
    expectJoined(capture, server);
    expectJoined(costing, server);
  }, 60_000);
});
