/** The load: autocannon in this process against `POST /v1/chat/completions`. */

import type { Result } from "autocannon";
import autocannon from "autocannon";

export type ScenarioName = "json" | "sse";

export interface Scenario {
  name: ScenarioName;
  body: string;
}

/** The model every request asks for; peers map it to the mock. */
export const benchModel = "gpt-5.4-mini";

/**
 * The json and sse scenarios, with a prompt of "hello", or of about `promptBytes` of source code
 * (a coding agent's context: quotes and newlines that JSON escapes, as real prompts carry).
 */
export function scenariosFor(promptBytes: number): Scenario[] {
  const messages = [{ role: "user", content: promptBytes > 0 ? sourceText(promptBytes) : "hello" }];
  return [
    { name: "json", body: JSON.stringify({ model: benchModel, messages }) },
    {
      name: "sse",
      body: JSON.stringify({
        model: benchModel,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      }),
    },
  ];
}

const sourceLines = [
  'import { readFile } from "node:fs/promises";',
  "export async function loadConfig(path: string): Promise<Record<string, string>> {",
  '  const text = await readFile(path, "utf8");',
  '  return Object.fromEntries(text.split("\\n").map((line) => line.split("=")));',
  "}",
  "",
];

/** Numbered lines of TypeScript, `bytes` long (ASCII, so characters and bytes agree). */
function sourceText(bytes: number): string {
  let text = "";
  for (let n = 1; text.length < bytes; n++) text += `// line ${n}\n${sourceLines[n % sourceLines.length]}\n`;
  return text.slice(0, bytes);
}

/**
 * Whether a response body carries the mock's answer: a completion (json) or a stream of chunks
 * ending in `[DONE]` (sse) whose text is 4 to 9 of the mock's lowercase words, the first
 * capitalised, ending in a full stop (packages/testkit/src/mock-text.ts). A target that answers 200
 * with something else (its own error page, an empty stream) has not done the work.
 */
export function carriesMockAnswer(scenario: ScenarioName, body: string): boolean {
  try {
    let text = "";
    if (scenario === "json") {
      text = (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message
        .content;
    } else {
      const data = body
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice("data:".length).trim());
      if (data.pop() !== "[DONE]") return false;
      for (const payload of data) {
        const chunk = JSON.parse(payload) as { choices: { delta?: { content?: string } }[] };
        text += chunk.choices[0]?.delta?.content ?? "";
      }
    }
    return /^[A-Z][a-z]+( [a-z]+){3,8}\.$/.test(text);
  } catch {
    return false;
  }
}

/** Every request's headers: the target's bearer (and its own headers), the caller's upstream key. */
export function requestHeaders(target: { bearer: string; headers?: Record<string, string> }) {
  return {
    authorization: `Bearer ${target.bearer}`,
    "x-gateway-upstream-key": "sk-bench",
    "content-type": "application/json",
    ...target.headers,
  };
}

export interface LoadOptions {
  baseUrl: string;
  /** The gateway's `sk_` key; the minimal proxy passes any bearer through to the mock. */
  bearer: string;
  /** More request headers, e.g. a peer's routing headers. */
  headers?: Record<string, string>;
  /** Count a response without the mock's answer in autocannon's `mismatches` (costs a parse per response). */
  checkAnswers?: boolean;
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
        headers: requestHeaders(options),
        body: options.scenario.body,
        connections: options.connections,
        ...(options.checkAnswers
          ? { verifyBody: (body) => carriesMockAnswer(options.scenario.name, String(body)) }
          : {}),
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
