import type { CallUsage } from "@gateway/contracts";
import type { WireFormat } from "./wire-format.ts";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const count = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0;

/**
 * Provider A usage. `input_tokens` already excludes cache reads and writes. When beta
 * compaction reports `iterations`, the top level leaves the compaction pass out, so the
 * iterations are summed instead.
 */
function fromProviderA(raw: Json): CallUsage {
  const parts =
    Array.isArray(raw.iterations) && raw.iterations.length > 0 ? raw.iterations.filter(isObject) : [raw];
  let input = 0;
  let read = 0;
  let write = 0;
  let write5m = 0;
  let write1h = 0;
  let output = 0;
  for (const part of parts) {
    input += count(part.input_tokens);
    read += count(part.cache_read_input_tokens);
    const partWrite = count(part.cache_creation_input_tokens);
    write += partWrite;
    const split = isObject(part.cache_creation) ? part.cache_creation : null;
    if (split) {
      write5m += count(split.ephemeral_5m_input_tokens);
      write1h += count(split.ephemeral_1h_input_tokens);
    } else {
      // Without the TTL split every write is billed at the 5-minute rate.
      write5m += partWrite;
    }
    output += count(part.output_tokens);
  }
  return {
    input_tokens: input,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    cache_creation_5m_input_tokens: write5m,
    cache_creation_1h_input_tokens: write1h,
    output_tokens: output,
    raw,
  };
}

/**
 * Provider B usage (chat completions and responses). Its prompt count includes cached reads
 * and cache writes, so both are taken out to get uncached input.
 */
function fromProviderB(raw: Json, promptField: string, outputField: string, detailsField: string): CallUsage {
  const details = isObject(raw[detailsField]) ? (raw[detailsField] as Json) : {};
  const prompt = count(raw[promptField]);
  const read = count(details.cached_tokens);
  const write = count(details.cache_write_tokens);
  return {
    input_tokens: Math.max(0, prompt - read - write),
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    cache_creation_5m_input_tokens: write,
    cache_creation_1h_input_tokens: 0,
    output_tokens: count(raw[outputField]),
    raw,
  };
}

/** Normalises a provider usage block; null when `raw` is not a usage object. */
export function normaliseUsage(format: WireFormat, raw: unknown): CallUsage | null {
  if (!isObject(raw)) return null;
  switch (format) {
    case "messages":
      return fromProviderA(raw);
    case "chat_completions":
      return fromProviderB(raw, "prompt_tokens", "completion_tokens", "prompt_tokens_details");
    case "responses":
      return fromProviderB(raw, "input_tokens", "output_tokens", "input_tokens_details");
  }
}

export interface ResponseFacts {
  usage: CallUsage | null;
  /** The provider's id of the response or message (msg_…, chatcmpl-…, resp_…). */
  responseId: string | null;
}

/** Usage and response id from a complete JSON response body; nulls when it is not one. */
export function factsFromJsonBody(format: WireFormat, body: Buffer): ResponseFacts {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { usage: null, responseId: null };
  }
  if (!isObject(parsed)) return { usage: null, responseId: null };
  return {
    usage: normaliseUsage(format, parsed.usage),
    responseId: typeof parsed.id === "string" ? parsed.id : null,
  };
}
