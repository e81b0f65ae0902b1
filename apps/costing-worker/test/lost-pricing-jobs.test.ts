import { createInProcessBus, type EventBus } from "@gateway/bus";
import { callsTopic, silentLogger } from "@gateway/contracts";
import type { DbHandle } from "@gateway/db";
import { callRows, openTestDb } from "@gateway/db/testing";
import { costingJobs, createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CostingWorker, startCostingWorker } from "../src/costing-worker.ts";
import { insertSonnetPrice } from "./support/sonnet-price.ts";

/**
 * The in-process queue, except that every pricing job added is lost, as one is when the Redis
 * primary that took it dies before its replica has it.
 */
function losingPricingJobs(): JobQueue {
  const queue = createInProcessQueue();
  return {
    ...queue,
    add: async (name, payload, options) =>
      name === costingJobs.priceCalls.name ? undefined : queue.add(name, payload, options),
  };
}

describe("calls whose pricing job was lost", () => {
  let handle: DbHandle;
  let bus: EventBus;
  let jobs: JobQueue;
  let worker: CostingWorker | undefined;

  beforeEach(async () => {
    handle = await openTestDb("sqlite");
    await insertSonnetPrice(handle.db);
    bus = createInProcessBus();
    jobs = losingPricingJobs();
  });
  afterEach(async () => {
    await worker?.close();
    await bus.close();
    await jobs.close();
    await handle.close();
  });

  /** A call of claude-sonnet-5 recorded by the worker, its pricing job lost. */
  async function recordWithLostJob(requestId: string) {
    const event = testCallEvent({
      request_id: requestId,
      requested_model: "claude-sonnet-5",
      served_model: "claude-sonnet-5",
      usage: plainUsage(1_000_000, 0),
    });
    bus.publish(callsTopic, event.request_id, event);
    await bus.flush();
  }
  /** The worker, looking for lost jobs every `lostJobSweepMs`. */
  const start = (lostJobSweepMs: number) =>
    startCostingWorker({ db: handle.db, bus, jobs, log: silentLogger, lostJobSweepMs });
  const reasonOf = async (requestId: string) =>
    (await callRows(handle.db, { requestIds: [requestId] }))[0]?.unpricedReason;

  it("stay pending while no sweep comes (the job is what prices a call)", async () => {
    worker = await start(3_600_000);
    await recordWithLostJob("req_lost_waiting");
    expect(await reasonOf("req_lost_waiting")).toBe("pricing_pending");
  });

  it("are priced by a later sweep, without a restart", async () => {
    worker = await start(10);
    await recordWithLostJob("req_lost");
    expect(await reasonOf("req_lost")).toBe("pricing_pending");
    await expect.poll(() => reasonOf("req_lost"), { timeout: 10_000 }).toBeNull();
    const [row] = await callRows(handle.db, { requestIds: ["req_lost"] });
    expect([row?.pricingStatus, row?.priceId]).toEqual(["priced", "price_s5"]);
  });

  it("are priced at the next start", async () => {
    worker = await start(3_600_000);
    await recordWithLostJob("req_lost_restart");
    // the process ends; the next one has a bus and a queue of its own
    await worker.close();
    await Promise.all([bus.close(), jobs.close()]);
    bus = createInProcessBus();
    jobs = losingPricingJobs();
    worker = await start(3_600_000);
    expect(await reasonOf("req_lost_restart")).toBeNull();
  });
});
