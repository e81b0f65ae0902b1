import { checkEngineSettings, kafkaEnv, redisEnv } from "@gateway/engines";
import { listenEnv, parseEnvWith } from "@gateway/runtime";
import type { z } from "zod";
import { gatewayEnvSchema } from "./config.ts";

/** The gateway as a process of its own: its proxy settings, Redis (config) and Kafka (events). */
const gatewayProcessEnvSchema = gatewayEnvSchema
  .extend({
    ...listenEnv,
    ...redisEnv,
    ...kafkaEnv,
  })
  .superRefine(checkEngineSettings);
export type GatewayProcessEnv = z.infer<typeof gatewayProcessEnvSchema>;

export const parseGatewayEnv = (source: Record<string, string | undefined>): GatewayProcessEnv =>
  parseEnvWith(gatewayProcessEnvSchema, source);
