import type { GeneratedCall, Rates, Tokens } from "./expected-reports.ts";
import { costOf } from "./expected-reports.ts";

/** The reference's section 6 prices for the models the traffic uses, in milli-dollars per Mtok. */
export const referenceRates: Record<string, Rates> = {
  "claude-sonnet-5": [2000n, 2500n, 4000n, 200n, 10000n],
  "gpt-5.4-mini": [750n, 0n, 0n, 75n, 4500n],
  "gpt-5.6-terra": [2000n, 2500n, 2500n, 200n, 12000n],
  "gpt-5.6-sol": [5000n, 6250n, 6250n, 500n, 30000n],
};

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === "object" && v !== null ? (v as Json) : {});
const num = (v: unknown) => (typeof v === "number" ? v : 0);

/** Provider A usage as the reference reads it: input excludes cache; writes split by TTL. */
function providerATokens(start: Json, final: Json): Tokens {
  const split = obj(start.cache_creation);
  const pick = (k: string) => num(final[k] ?? start[k]);
  return {
    input: pick("input_tokens"),
    read: pick("cache_read_input_tokens"),
    write5m: num(split.ephemeral_5m_input_tokens),
    write1h: num(split.ephemeral_1h_input_tokens),
    output: pick("output_tokens"),
  };
}

/** Provider B usage: prompt/input tokens include cached reads and cache writes. */
function providerBTokens(u: Json, prompt: string, completion: string, details: string): Tokens {
  const d = obj(u[details]);
  return {
    input: num(u[prompt]) - num(d.cached_tokens) - num(d.cache_write_tokens),
    read: num(d.cached_tokens),
    write5m: num(d.cache_write_tokens),
    write1h: 0,
    output: num(u[completion]),
  };
}

/** Usage from the bytes the client received, JSON or SSE; null when none was reported. */
export function tokensFromBody(format: "messages" | "chat", stream: boolean, body: string): Tokens | null {
  if (!stream) {
    const parsed = obj(JSON.parse(body));
    if (!parsed.usage) return null;
    const u = obj(parsed.usage);
    return format === "messages"
      ? providerATokens(u, u)
      : providerBTokens(u, "prompt_tokens", "completion_tokens", "prompt_tokens_details");
  }
  const events = body
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => {
      try {
        return obj(JSON.parse(l.slice(6)));
      } catch {
        return {};
      }
    });
  if (format === "messages") {
    const start = events.find((e) => e.type === "message_start");
    if (!start) return null;
    const deltas = events.filter((e) => e.type === "message_delta");
    const startUsage = obj(obj(start.message).usage);
    return providerATokens(startUsage, deltas.length > 0 ? obj(deltas.at(-1)!.usage) : startUsage);
  }
  const withUsage = events.filter((e) => typeof e.usage === "object" && e.usage !== null);
  const last = withUsage.at(-1);
  return last
    ? providerBTokens(obj(last.usage), "prompt_tokens", "completion_tokens", "prompt_tokens_details")
    : null;
}

/** The unpriced reason the decisions document gives for a call, or null when it is priced. */
export function expectedReason(
  c: Pick<GeneratedCall, "tokens" | "status" | "outcome" | "model">,
  endpoint: string,
  stream: boolean,
  rates: Record<string, Rates>,
): string | null {
  if (endpoint === "count_tokens") return "not_billable";
  if (c.tokens) return c.model && rates[c.model] ? null : "no_price";
  if (c.status >= 400) return "error_response";
  if (stream && c.outcome !== "complete") return "incomplete_stream";
  if (stream && endpoint === "chat_completions") return "stream_without_usage";
  return "no_usage";
}

export function pricedCost(c: Pick<GeneratedCall, "tokens" | "model">, rates: Record<string, Rates>) {
  const r = c.model ? rates[c.model] : undefined;
  return c.tokens && r ? costOf(c.tokens, r) : null;
}
