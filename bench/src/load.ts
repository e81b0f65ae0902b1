/** The load: autocannon in this process against `POST /v1/chat/completions`. */

import type { Result } from "autocannon";
import autocannon from "autocannon";

export type ScenarioName = "json" | "sse";

export interface Scenario {
  name: ScenarioName;
  body: string;
}

const messages = [{ role: "user", content: "hello" }];

export const scenarios: Scenario[] = [
  { name: "json", body: JSON.stringify({ model: "gpt-5.4-mini", messages }) },
  {
    name: "sse",
    body: JSON.stringify({
      model: "gpt-5.4-mini",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    }),
  },
];

export interface LoadOptions {
  baseUrl: string;
  /** The gateway's `sk_` key; the minimal proxy passes any bearer through to the mock. */
  bearer: string;
  scenario: Scenario;
  connections: number;
  /** Stop after this long, dropping whatever is in flight then; or after exactly `amount` responses. */
  until: { durationS: number } | { amount: number };
}

/**
 * autocannon's own `duration` ends at its next 1 s sampling tick, so a window that finished its
 * requests 6.1 s in reads as 7 s: up to a second of idle counted as load, different for each
 * target. The result's `duration` here is the bench's own clock instead, from autocannon's start
 * to the last response.
 */
export async function runLoad(options: LoadOptions): Promise<Result> {
  let startedAt = performance.now();
  let lastResponseAt = startedAt;
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${options.baseUrl}/v1/chat/completions`,
        method: "POST",
        headers: {
          authorization: `Bearer ${options.bearer}`,
          "x-gateway-upstream-key": "sk-bench",
          "content-type": "application/json",
        },
        body: options.scenario.body,
        connections: options.connections,
        ...("amount" in options.until
          ? { amount: Math.max(options.until.amount, options.connections) }
          : { duration: options.until.durationS }),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.once("start", () => {
      startedAt = performance.now();
    });
    instance.on("response", () => {
      lastResponseAt = performance.now();
    });
  });
  return { ...result, duration: Math.max(lastResponseAt - startedAt, 1) / 1000 };
}
