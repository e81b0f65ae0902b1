import { checkEngineSettings, kafkaEnv, postgresEnv, s3Env } from "@gateway/engines";
import { parseEnvWith, probeListenEnv, retentionEnv } from "@gateway/runtime";
import { z } from "zod";

/**
 * How long a fetch of `gateway.calls.v1` waits for more events (docs/capacity.md, "Captures in
 * segments"): a handled batch is one object per org and day, so at a steady arrival rate a fetch
 * that returned at once would make small segments. A capture is listed at most the wait later.
 */
const captureFetchEnv = {
  /**
   * The broker answers once this many bytes of compressed batches have arrived (over the
   * partitions this writer holds), at most the bus's fetch size (8 MiB); 1: as soon as any has.
   */
  GATEWAY_CAPTURE_FETCH_MIN_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(8 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** ... or this long after the fetch. Well under the group's 10 s session. */
  GATEWAY_CAPTURE_FETCH_MAX_WAIT_MS: z.coerce.number().int().min(10).max(5_000).default(1_000),
};

/** The capture writer as a process of its own: Kafka (events in), S3 (objects) and PostgreSQL (index). */
const captureWriterEnvSchema = z
  .object({
    /** `/livez` and `/readyz`. */
    ...probeListenEnv(8091),
    ...kafkaEnv,
    ...captureFetchEnv,
    ...postgresEnv,
    ...retentionEnv,
    ...s3Env,
  })
  .superRefine(checkEngineSettings);
export type CaptureWriterEnv = z.infer<typeof captureWriterEnvSchema>;

export const parseCaptureWriterEnv = (source: Record<string, string | undefined>): CaptureWriterEnv =>
  parseEnvWith(captureWriterEnvSchema, source);
