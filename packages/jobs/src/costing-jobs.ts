import { z } from "zod";
import type { JobProducer } from "./job-queue.ts";

/**
 * Costing's jobs, defined once for whoever enqueues them (the costing worker, pricing the calls it
 * records; the control plane, re-pricing a model once a price row for it is added) and for the
 * costing worker that runs them, which validates every payload before it acts on it.
 */
export const costingJobs = {
  priceCalls: {
    name: "costing.price-calls",
    payload: z.object({
      request_ids: z.array(z.string()).min(1),
      /** The calls' earliest and latest `received_at`: PostgreSQL then reads only those days' partitions. */
      received_from: z.iso.datetime().optional(),
      received_to: z.iso.datetime().optional(),
    }),
  },
  repriceModel: { name: "costing.reprice-model", payload: z.object({ model: z.string().min(1) }) },
} as const;

/**
 * Enqueues re-pricing of every call served by `model`, after a price row for it was committed.
 * No job id: a second job for the same model while one runs must still run, since the running
 * one may have read the prices before the new row.
 */
export function enqueueReprice(jobs: JobProducer, model: string): Promise<void> {
  return jobs.add(costingJobs.repriceModel.name, costingJobs.repriceModel.payload.parse({ model }));
}
