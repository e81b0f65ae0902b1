import { z } from "zod";

export const keyUsageTopic = "gateway.key-usage.v1";

/**
 * `gateway.key-usage.v1`: a gateway validated this key on a request that produced no call event
 * (refused for an unknown project or workload, or a model list). Calls carry the key already;
 * together they keep `last_used_at` on every use the gateway sees.
 */
export const keyUsageEventSchema = z.object({
  schema: z.literal(keyUsageTopic),
  api_key_id: z.string(),
  used_at: z.iso.datetime(),
});
export type KeyUsageEvent = z.infer<typeof keyUsageEventSchema>;
