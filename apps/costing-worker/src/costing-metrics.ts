import { type Metrics, type Sample, scrapedCounter, scrapedGauge } from "@gateway/contracts";
import { countPricingPending, type Db } from "@gateway/db";
import type { JobQueue, JobStats } from "@gateway/jobs";

/** The costing worker's backlog and job failures (docs/metrics.md), read when scraped. */
export function registerCostingMetrics(metrics: Metrics, { db, jobs }: { db: Db; jobs: JobQueue }): void {
  scrapedGauge(metrics, {
    name: "costing_calls_awaiting_price",
    help: "Calls recorded with usage whose pricing job has not run yet (the whole database: every replica reports the same number; NaN when it does not answer).",
    read: async () => [[{}, await countPricingPending(db).catch(() => Number.NaN)]],
  });
  const byJob = (count: (stats: JobStats) => number) => async () =>
    (await jobs.stats()).map((s): Sample => [{ job: s.name }, count(s)]);
  scrapedGauge(metrics, {
    name: "costing_jobs_waiting",
    help: "Jobs not done yet (waiting, delayed for a retry, or running), by job name; on BullMQ, across every worker.",
    labelNames: ["job"],
    read: byJob((s) => s.depth),
  });
  scrapedCounter(metrics, {
    name: "costing_job_failures_total",
    help: "Job attempts that threw in this process, by job name; each is retried with backoff.",
    labelNames: ["job"],
    read: byJob((s) => s.failures),
  });
  scrapedCounter(metrics, {
    name: "costing_jobs_dead_lettered_total",
    help: "Jobs that used up their attempts in this process, by job name (kept in the dead-letter queue).",
    labelNames: ["job"],
    read: byJob((s) => s.deadLettered),
  });
}
