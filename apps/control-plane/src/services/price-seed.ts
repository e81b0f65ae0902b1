import { type Db, seedPriceTable } from "@gateway/db";
import { enqueueReprice, type JobProducer } from "@gateway/jobs";

/**
 * Inserts the seed price rows that are missing and queues re-pricing for each model that gained
 * one: its calls may have been recorded before (`no_price`, or priced at an older row). A start
 * on a table that already holds every seed row inserts nothing and queues nothing.
 */
export async function seedPricesAndQueueRepricing(db: Db, jobs: JobProducer): Promise<string[]> {
  const models = await seedPriceTable(db);
  for (const model of models) await enqueueReprice(jobs, model);
  return models;
}
