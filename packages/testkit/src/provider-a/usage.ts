import { bodyTokens } from "../mock-text.ts";
import type { Seed } from "../seed.ts";

export interface UsageCounts {
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
}

/**
 * All cache fields are non-zero and distinct on purpose: a gateway that swaps or drops one of them
 * gets a visibly wrong total.
 */
export function usageCounts(seed: Seed, body: Buffer, pieces: number): UsageCounts {
  return {
    input: bodyTokens(body),
    cacheRead: seed.int("cache-read", 100, 4096),
    cacheWrite5m: seed.int("cache-write-5m", 10, 2048),
    cacheWrite1h: seed.int("cache-write-1h", 1, 512),
    output: pieces + seed.int("output-extra", 2, 64),
  };
}

/** The `usage` object of a message (§1.3), in the provider's key order. */
export function messageUsage(counts: UsageCounts, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: counts.input,
    cache_creation_input_tokens: counts.cacheWrite5m + counts.cacheWrite1h,
    cache_read_input_tokens: counts.cacheRead,
    cache_creation: {
      ephemeral_5m_input_tokens: counts.cacheWrite5m,
      ephemeral_1h_input_tokens: counts.cacheWrite1h,
    },
    output_tokens: outputTokens,
    service_tier: "standard",
    inference_geo: "global",
  };
}

/** `message_delta.usage`: cumulative totals for the whole message, not increments. */
export function deltaUsage(counts: UsageCounts): Record<string, unknown> {
  return {
    input_tokens: counts.input,
    cache_creation_input_tokens: counts.cacheWrite5m + counts.cacheWrite1h,
    cache_read_input_tokens: counts.cacheRead,
    output_tokens: counts.output,
  };
}
