import { bodyTokens } from "../mock-text.ts";
import type { Seed } from "../seed.ts";

export interface UsageCounts {
  /** Includes `cached` and `cacheWrite`, as B's prompt/input token counts do. */
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
  /** Part of `output`. */
  reasoning: number;
}

/**
 * Cache and reasoning counts are non-zero (reasoning only when the request asks for reasoning) so
 * that a gateway mixing up the fields gets a visibly wrong cost.
 */
export function usageCounts(seed: Seed, body: Buffer, pieces: number, reasoning: boolean): UsageCounts {
  const cached = seed.int("cached", 64, 2048);
  const cacheWrite = seed.int("cache-write", 1, 512);
  const reasoningTokens = reasoning ? seed.int("reasoning", 16, 256) : 0;
  return {
    input: bodyTokens(body) + cached + cacheWrite,
    cached,
    cacheWrite,
    output: pieces + reasoningTokens + seed.int("output-extra", 0, 32),
    reasoning: reasoningTokens,
  };
}

/** Chat Completions `usage` (§2.2). */
export function chatUsage(counts: UsageCounts): Record<string, unknown> {
  return {
    prompt_tokens: counts.input,
    completion_tokens: counts.output,
    total_tokens: counts.input + counts.output,
    prompt_tokens_details: {
      cached_tokens: counts.cached,
      cache_write_tokens: counts.cacheWrite,
      audio_tokens: 0,
    },
    completion_tokens_details: {
      reasoning_tokens: counts.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** Responses API `usage` (§3.3). */
export function responseUsage(counts: UsageCounts): Record<string, unknown> {
  return {
    input_tokens: counts.input,
    input_tokens_details: { cached_tokens: counts.cached, cache_write_tokens: counts.cacheWrite },
    output_tokens: counts.output,
    output_tokens_details: { reasoning_tokens: counts.reasoning },
    total_tokens: counts.input + counts.output,
  };
}

/** Unix seconds, spread over a few weeks before this code was written; never the wall clock. */
export function createdAt(seed: Seed): number {
  return seed.int("created", 1_790_000_000, 1_795_000_000);
}
