/**
 * What a target adds to one caller's call when nothing else is going on: one client, one
 * keep-alive connection, one request at a time. autocannon rounds latency to whole milliseconds,
 * and a gateway's added latency is a fraction of one, so this times each request itself.
 */
import { Client } from "undici";
import {
  carriesMockAnswer,
  conversationHeader,
  requestHeaders,
  type Scenario,
  type ScenarioName,
} from "./load.ts";
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

/**
 * Requests per target before the next one takes over. The targets take turns in blocks this small
 * (~25-50 ms each) so that they share the machine's moments: a second in which the machine is
 * slower (another process, the host) would otherwise land on whichever target was measured then,
 * and the difference of two p50s measured a second apart moved by tens of microseconds with it.
 */
export const blockRequests = 50;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** One target's client and what its requests took. */
interface Timed {
  target: Target;
  client: Client;
  total: number[];
  firstByte: number[];
  failures: number;
}

/**
 * Each target's one-client figures for `scenario`: `requests` timed requests per target, after
 * the warm-up, the targets taking turns in blocks (each on its own keep-alive connection).
 */
export async function measureOneClient(
  targets: Target[],
  scenario: Scenario,
  round: number,
  requests: number,
): Promise<OneClientMeasurement[]> {
  const timed: Timed[] = targets.map((target) => ({
    target,
    client: new Client(target.baseUrl, { pipelining: 1 }),
    total: [],
    firstByte: [],
    failures: 0,
  }));
  try {
    for (const each of timed) await time(each, scenario, 0, warmUpRequests, false);
    for (let done = 0, block = 0; done < requests; done += blockRequests, block++) {
      const count = Math.min(blockRequests, requests - done);
      // who goes first turns too, so that no target always follows the same one
      for (let i = 0; i < timed.length; i++) {
        await time(timed[(block + i) % timed.length]!, scenario, warmUpRequests + done, count, true);
      }
    }
  } finally {
    await Promise.all(timed.map(({ client }) => client.close()));
  }
  return timed.map(({ target, total, firstByte, failures }) => {
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
  });
}

/** Sends `count` requests one at a time (the scenario's bodies from `from` on), keeping their times if `kept`. */
async function time(timed: Timed, scenario: Scenario, from: number, count: number, kept: boolean) {
  for (let i = from; i < from + count; i++) {
    const started = performance.now();
    const { statusCode, body } = await timed.client.request({
      path: "/v1/chat/completions",
      method: "POST",
      headers: { ...requestHeaders(timed.target), ...conversationHeader(timed.target) },
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
      timed.failures++;
    }
    if (!kept) continue;
    timed.total.push(ended - started);
    timed.firstByte.push(first - started);
  }
}
