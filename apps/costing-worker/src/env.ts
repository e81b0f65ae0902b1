import { checkEngineSettings, kafkaEnv, postgresEnv, redisEnv } from "@gateway/engines";
import { parseEnvWith, probeListenEnv, retentionEnv } from "@gateway/runtime";
import { z } from "zod";

/** The costing worker as a process of its own: Kafka (events in), PostgreSQL (rows), Redis (BullMQ jobs). */
const costingWorkerEnvSchema = z
  .object({
    /** `/livez` and `/readyz`. */
    ...probeListenEnv(8092),
    ...kafkaEnv,
    ...postgresEnv,
    ...retentionEnv,
    ...redisEnv,
  })
  .superRefine(checkEngineSettings);
export type CostingWorkerEnv = z.infer<typeof costingWorkerEnvSchema>;

export const parseCostingWorkerEnv = (source: Record<string, string | undefined>): CostingWorkerEnv =>
  parseEnvWith(costingWorkerEnvSchema, source);
