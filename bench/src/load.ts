/** The load: autocannon in this process against `POST /v1/chat/completions`. */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Result } from "autocannon";
import autocannon from "autocannon";

export type ScenarioName = "json" | "sse";

export interface Scenario {
  name: ScenarioName;
  /** The request bodies, sent in turn: one, or with large prompts several that differ throughout. */
  bodies: readonly string[];
}

/** The model every request asks for; peers map it to the mock. */
export const benchModel = "gpt-5.4-mini";

/**
 * The json and sse scenarios, with a prompt of "hello", or of about `promptBytes` of the
 * repository's own TypeScript and Markdown (a coding agent's context: real source, with the quotes
 * and newlines JSON escapes). Large prompts are cut from it one after the other, up to 32 that
 * share no text, and sent in turn: a compressor then meets text as it does in real traffic, not
 * the same prompt again and again (which any codec with a window of a few prompts would make
 * nearly free).
 */
export function scenariosFor(promptBytes: number, rootDir: string): Scenario[] {
  const prompts = promptBytes > 0 ? repoPrompts(promptBytes, rootDir) : ["hello"];
  const bodies = (extra: Record<string, unknown>) =>
    prompts.map((content) =>
      JSON.stringify({ model: benchModel, messages: [{ role: "user", content }], ...extra }),
    );
  return [
    { name: "json", bodies: bodies({}) },
    { name: "sse", bodies: bodies({ stream: true, stream_options: { include_usage: true } }) },
  ];
}

/** Prompts of `bytes` cut from the repository's own TypeScript and Markdown (see `scenariosFor`). */
export function repoPrompts(bytes: number, rootDir: string): string[] {
  return promptsOf(sourceCorpus(rootDir), bytes);
}

/** Up to 32 consecutive, disjoint `bytes`-long cuts of the corpus (at least one). */
function promptsOf(corpus: string, bytes: number): string[] {
  const prompts: string[] = [];
  for (let at = 0; prompts.length < 32 && (at + bytes <= corpus.length || prompts.length === 0); at += bytes)
    prompts.push(corpus.slice(at, at + bytes));
  return prompts;
}

/** The repository's TypeScript and Markdown outside node_modules, in path order. */
function sourceCorpus(rootDir: string): string {
  const files: string[] = [];
  for (const dir of ["apps", "packages", "bench", "docs"])
    for (const entry of readdirSync(join(rootDir, dir), { recursive: true, encoding: "utf8" }))
      if (/\.(ts|md)$/.test(entry) && !/(^|\/)(node_modules|\.out)\//.test(entry))
        files.push(join(rootDir, dir, entry));
  return files
    .sort()
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
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
  /** Names each request's conversation (BENCH_ROUTE). */
  nextConversation?: () => string;
  /** Count a response without the mock's answer in autocannon's `mismatches` (costs a parse per response). */
  checkAnswers?: boolean;
  scenario: Scenario;
  connections: number;
  /** Stop after this long, dropping whatever is in flight then; or after exactly `amount` responses. */
  until: { durationS: number } | { amount: number };
}

/** The request's `x-gateway-conversation`, if the target names conversations (BENCH_ROUTE). */
export function conversationHeader(target: { nextConversation?: () => string }): Record<string, string> {
  return target.nextConversation ? { "x-gateway-conversation": target.nextConversation() } : {};
}

/**
 * autocannon's options for sending `bodies` one after the other, whichever connection asks, each
 * with its conversation if the target names them.
 */
function bodiesInTurn(
  bodies: readonly string[],
  target: Pick<LoadOptions, "nextConversation">,
): Pick<autocannon.Options, "body" | "requests"> {
  if (bodies.length === 1 && !target.nextConversation) return { body: bodies[0]! };
  let next = 0;
  return {
    requests: [
      {
        setupRequest: (request: autocannon.Request) => {
          request.body = bodies[next++ % bodies.length];
          request.headers = { ...request.headers, ...conversationHeader(target) };
          return request;
        },
      },
    ],
  };
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
        ...bodiesInTurn(options.scenario.bodies, options),
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
