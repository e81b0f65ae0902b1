import { checkEngineSettings, kafkaEnv, postgresEnv, s3Env } from "@gateway/engines";
import { parseEnvWith, probeListenEnv, retentionEnv } from "@gateway/runtime";
import { z } from "zod";

/** The capture writer as a process of its own: Kafka (events in), S3 (objects) and PostgreSQL (index). */
const captureWriterEnvSchema = z
  .object({
    /** `/livez` and `/readyz`. */
    ...probeListenEnv(8091),
    ...kafkaEnv,
    ...postgresEnv,
    ...retentionEnv,
    ...s3Env,
  })
  .superRefine(checkEngineSettings);
export type CaptureWriterEnv = z.infer<typeof captureWriterEnvSchema>;

export const parseCaptureWriterEnv = (source: Record<string, string | undefined>): CaptureWriterEnv =>
  parseEnvWith(captureWriterEnvSchema, source);
