/**
 * What a target adds to one caller's call when nothing else is going on: one client, one
 * keep-alive connection, one request at a time. autocannon rounds latency to whole milliseconds,
 * and a gateway's added latency is a fraction of one, so this times each request itself.
 */
import { Client } from "undici";
import { carriesMockAnswer, requestHeaders, type Scenario, type ScenarioName } from "./load.ts";
import type { Target, TargetName } from "./measure.ts";

export interface OneClientMeasurement {
  round: number;
  scenario: ScenarioName;
  target: TargetName;
  requests: number;
  /** From sending the request to the last byte of the answer. */
  p50Ms: number;
  p99Ms: number;
  /** From sending the request to the first byte of the body: an SSE stream's first frame. */
  firstByteP50Ms: number;
  /** Answers that were not a 200 with the mock's answer, warm-up included. */
  failures: number;
}

/** Discarded requests first: JIT, the connection, the target's caches. */
const warmUpRequests = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function measureOneClient(
  target: Target,
  scenario: Scenario,
  round: number,
  requests: number,
): Promise<OneClientMeasurement> {
  const client = new Client(target.baseUrl, { pipelining: 1 });
  const total: number[] = [];
  const firstByte: number[] = [];
  let failures = 0;
  try {
    for (let i = 0; i < warmUpRequests + requests; i++) {
      const started = performance.now();
      const { statusCode, body } = await client.request({
        path: "/v1/chat/completions",
        method: "POST",
        headers: requestHeaders(target),
        body: scenario.bodies[i % scenario.bodies.length],
      });
      let first = Number.NaN;
      const chunks: Buffer[] = [];
      for await (const chunk of body) {
        if (Number.isNaN(first)) first = performance.now();
        chunks.push(chunk as Buffer);
      }
      const ended = performance.now();
      // checked after the clock stopped: the parse is the bench's work, not the target's
      if (statusCode !== 200 || !carriesMockAnswer(scenario.name, Buffer.concat(chunks).toString())) {
        failures++;
      }
      if (i < warmUpRequests) continue;
      total.push(ended - started);
      firstByte.push(first - started);
    }
  } finally {
    await client.close();
  }
  total.sort((a, b) => a - b);
  firstByte.sort((a, b) => a - b);
  return {
    round,
    scenario: scenario.name,
    target: target.name,
    requests,
    p50Ms: percentile(total, 50),
    p99Ms: percentile(total, 99),
    firstByteP50Ms: percentile(firstByte, 50),
    failures,
  };
}
