import { callRows, captureIndexRows } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.ts";
import { type KafkaCallPath, startKafkaCallPath } from "./support/kafka-call-path.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const mib = 1024 * 1024;

/**
 * A call whose event, bodies included, is larger than the broker takes (here a topic limit of
 * 1 MiB; 128 MiB by default) keeps its record: its capture's bodies are cut to fit.
 */
describe.skipIf(!engines)("a call event over Kafka's message limit (GATEWAY_TEST_ENGINES=1)", () => {
  let path: KafkaCallPath;

  beforeAll(async () => {
    path = await startKafkaCallPath({ maxMessageBytes: mib });
  });

  afterAll(() => path?.close());

  it("reaches both consumers with its usage, its capture cut to fit and saying what it left out", async () => {
    const bus = await path.kafkaBus("oversized-gateway");
    path.closeLater(() => bus.close());
    const gateway = await path.gatewayOn(bus);
    path.closeLater(() => gateway.stop());

    const request = Buffer.from(
      JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "é".repeat(mib) }] }),
    );
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${path.apiKey}`,
        "content-type": "application/json",
        "x-gateway-upstream-key": "sk-caller-oversized",
      },
      body: request,
    });
    expect(res.status).toBe(200);
    const answer = Buffer.from(await res.arrayBuffer());
    const requestId = res.headers.get("x-gateway-request-id")!;

    // the costing worker's row: the call, with the usage the upstream reported
    const row = await eventually(async () => {
      const [found] = await callRows(path.db, { requestIds: [requestId] });
      return found;
    }, 30_000);
    expect(row.status).toBe(200);
    expect(row.inputTokens).toBeGreaterThan(0);

    // the capture writer's object: the answer whole, the request's first bytes and their count
    const indexed = await eventually(async () => {
      const [found] = await captureIndexRows(path.db, { requestIds: [requestId] });
      return found;
    }, 30_000);
    const stored = await path.captures.get(indexed.key);
    const envelope = JSON.parse(stored!.toString("utf8"));
    expect(envelope.response_body).toBe(answer.toString("utf8"));
    expect(envelope).not.toHaveProperty("response_body_omitted_bytes");
    expect(envelope.request_body_encoding).toBe("utf8");
    const kept = Buffer.from(envelope.request_body, "utf8");
    expect(kept.length).toBeGreaterThan(mib / 4);
    expect(kept.length).toBeLessThan(request.length);
    expect(request.subarray(0, kept.length).equals(kept)).toBe(true);
    expect(envelope.request_body_omitted_bytes).toBe(request.length - kept.length);
  }, 60_000);
});
