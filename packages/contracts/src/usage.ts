import { z } from "zod";

/**
 * Token usage in one schema for every wire format, following provider A's convention so that
 * nothing is counted twice: `input_tokens` is uncached input only; prompt tokens are
 * input + cache read + cache write; reasoning/thinking tokens are inside `output_tokens`.
 */
export const callUsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  /** Cache writes, both TTLs together; the split follows when the provider reports it. */
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_creation_5m_input_tokens: z.number().int().nonnegative(),
  cache_creation_1h_input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  /** The provider's own usage block, as it arrived. */
  raw: z.record(z.string(), z.unknown()),
});
export type CallUsage = z.infer<typeof callUsageSchema>;
