import type { EventBus } from "@gateway/bus";
import {
  type CallEvent,
  type CallEventWithBodies,
  callEventRequestId,
  callsTopic,
  keyUsageEventSchema,
  keyUsageTopic,
  type Logger,
  readCallEvents,
  readCallEventsWithBodies,
} from "@gateway/contracts";
import {
  type Db,
  type NewCaptureIndexRow,
  priceCallsById,
  receivedWithin,
  recordCallBatch,
  recordCalls,
  recordKeyUses,
  repriceCallsFor,
} from "@gateway/db";
import { costingJobs, type JobQueue } from "@gateway/jobs";
import type { LimitStore } from "@gateway/limits";
import { subscribeTraced, type Tracer } from "@gateway/tracing";
import { callRow } from "./call-row.ts";
import { startCallsRetention } from "./calls-retention.ts";
import { lostPricingSweep } from "./lost-pricing-sweep.ts";
import { startSpendPublisher } from "./spend-publisher.ts";

export interface CostingWorkerDeps {
  db: Db;
  bus: EventBus;
  jobs: JobQueue;
  log: Logger;
  /** A span per call event, in the trace of the call that published it; null when tracing is off. */
  tracer?: Tracer | null;
  /** Where the gateway's budgets read spend; the worker publishes it there. Null: no budgets. */
  limits?: LimitStore | null;
  /** How often calls whose pricing job was lost are looked for (`lost-pricing-sweep.ts`); default a minute. */
  lostJobSweepMs?: number;
  /** How often the retention job runs (`calls-retention.ts`); default an hour. */
  retentionEveryMs?: number;
  /**
   * The all-in-one process's: writes a batch's captures and returns their index rows, which go in
   * with the batch's call rows, priced at once, in one transaction (`recordCallBatch`). Without
   * it (the split deployment), the capture writer indexes captures on its own and pricing is a job.
   */
  storeCaptures?: (calls: CallEventWithBodies[]) => Promise<NewCaptureIndexRow[]>;
}

export interface CostingWorker {
  /** Stops publishing spend and sweeping for lost jobs (the consumers and jobs stop with the bus and the queue). */
  close(): Promise<void>;
}

/**
 * `gateway.calls.v1` → one call row per request (idempotent by request id) with its hourly
 * rollups, each key's `last_used_at` (the gateway never writes it), and a pricing job for the new
 * rows: costing is asynchronous, so a call reads `unpriced` / `pricing_pending` until it runs.
 * Calls whose pricing job was lost (a crash between insert and enqueue, a Redis failover) are
 * priced at start and found again every minute (`lost-pricing-sweep.ts`).
 * It also runs `costing.reprice-model`, which the control plane queues when a price row is added:
 * pricing and re-pricing happen here only.
 * With `limits`, the spend pricing wrote is published for the budgets after each job, and every
 * budget's spend at start and every minute after (docs/limits.md "How spend is counted").
 * It runs the retention of call rows and rollups (`calls-retention.ts`).
 * With `storeCaptures` (the all-in-one process) it also stores each batch's captures, and prices
 * the new calls in the transaction that inserts them: no pricing job, and a call is never seen
 * `pricing_pending`.
 */
export async function startCostingWorker({
  db,
  bus,
  jobs,
  log,
  tracer,
  limits,
  lostJobSweepMs = 60_000,
  retentionEveryMs = 3_600_000,
  storeCaptures,
}: CostingWorkerDeps): Promise<CostingWorker> {
  const spend = limits ? startSpendPublisher({ db, limits, log }) : null;
  jobs.process(costingJobs.priceCalls.name, async (payload) => {
    const job = costingJobs.priceCalls.payload.parse(payload);
    const within =
      job.received_from && job.received_to
        ? { from: new Date(job.received_from), to: new Date(job.received_to) }
        : undefined;
    await priceCallsById(db, job.request_ids, within);
    await spend?.afterPricing(job.request_ids, within);
  });
  jobs.process(costingJobs.repriceModel.name, async (payload) => {
    const { model } = costingJobs.repriceModel.payload.parse(payload);
    const changed = await repriceCallsFor(db, model);
    log.info("re-priced calls", { model, changed });
    // A model's calls can name any scope of any time; every budget's current spend is the part
    // that matters, and it is bounded by the limits table.
    await spend?.publishBudgets();
  });

  await subscribeTraced(
    bus,
    tracer,
    // the all-in-one's one consumer stores the call and its capture: a span of its own name
    storeCaptures ? "costing-worker store" : "costing-worker price",
    {
      topic: callsTopic,
      group: "costing-worker",
      async handle(batch) {
        if (storeCaptures) {
          const read = readCallEventsWithBodies(batch, log);
          if (read.length === 0) return;
          const events = read.map((r) => r.event);
          const { spentIn } = await recordCallBatch(db, {
            captures: await storeCaptures(read),
            calls: events.map(callRow),
            keyUses: keyUsesOf(events),
          });
          if (spentIn.length > 0) await spend?.afterSpending(spentIn);
          return;
        }
        // (a call's capture is the capture writer's: its bodies are not even decoded here)
        const events = readCallEvents(batch, log, { capture: false });
        if (events.length === 0) return;
        await recordCalls(db, events.map(callRow));
        await recordKeyUses(db, keyUsesOf(events));
        // Every priceable call of the batch, not only the rows this delivery inserted: if enqueueing
        // failed after the insert committed, the redelivered batch must still get its job. Pricing
        // only moves calls that are pending, so a second job changes nothing.
        const toPrice = events.filter((e) => e.usage);
        if (toPrice.length > 0) {
          const within = receivedWithin(toPrice.map((e) => new Date(e.received_at)));
          await jobs.add(costingJobs.priceCalls.name, {
            request_ids: toPrice.map((e) => e.request_id),
            received_from: within.from.toISOString(),
            received_to: within.to.toISOString(),
          });
        }
      },
    },
    callEventRequestId,
  );

  await bus.subscribe({
    topic: keyUsageTopic,
    group: "costing-worker",
    async handle(batch) {
      const uses = [];
      for (const payload of batch) {
        const parsed = keyUsageEventSchema.safeParse(payload);
        if (parsed.success) uses.push({ keyId: parsed.data.api_key_id, at: parsed.data.used_at });
        else log.error("dropping malformed key usage event", { issues: parsed.error.issues.slice(0, 3) });
      }
      await recordKeyUses(db, uses);
    },
  });

  const sweep = lostPricingSweep({
    db,
    log,
    everyMs: lostJobSweepMs,
    afterPricing: async (ids) => spend?.afterPricing(ids),
  });
  await sweep.atStart();
  // after the sweep, so the first publish holds what it priced
  await spend?.publishBudgets();
  sweep.repeat();
  const retention = startCallsRetention(db, log, retentionEveryMs);
  return {
    async close() {
      await retention.close();
      await sweep.close();
      await spend?.close();
    },
  };
}

const keyUsesOf = (events: Pick<CallEvent, "api_key_id" | "received_at">[]) =>
  events.map((e) => ({ keyId: e.api_key_id, at: e.received_at }));
