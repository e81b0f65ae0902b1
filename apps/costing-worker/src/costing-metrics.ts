import { countPricingPending, type Db } from "@gateway/db";
import type { JobQueue, JobStats } from "@gateway/jobs";
import { type Metrics, readWithin, type Sample, scrapedCounter, scrapedGauge } from "@gateway/runtime";

/** Longest a scrape waits on the database or Redis for a count; past it the count reads NaN. */
const readTimeoutMs = 2_000;

/** The costing worker's backlog and job failures (docs/metrics.md), read when scraped. */
export function registerCostingMetrics(metrics: Metrics, { db, jobs }: { db: Db; jobs: JobQueue }): void {
  scrapedGauge(metrics, {
    name: "costing_calls_awaiting_price",
    help: "Calls recorded with usage whose pricing job has not run yet (the whole database: every replica reports the same number; NaN when it does not answer within 2 s).",
    read: async () => [[{}, await readWithin(readTimeoutMs, () => countPricingPending(db), Number.NaN)]],
  });
  scrapedGauge(metrics, {
    name: "costing_jobs_waiting",
    help: "Jobs not done yet (waiting, delayed for a retry, or running), by job name; on BullMQ, across every worker (NaN when Redis does not answer within 2 s).",
    labelNames: ["job"],
    read: () =>
      Promise.all(
        jobs
          .stats()
          .map(
            async ({ name }): Promise<Sample> => [
              { job: name },
              await readWithin(readTimeoutMs, () => jobs.depth(name), Number.NaN),
            ],
          ),
      ),
  });
  const byJob = (count: (stats: JobStats) => number) => () =>
    jobs.stats().map((s): Sample => [{ job: s.name }, count(s)]);
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
