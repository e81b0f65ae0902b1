import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessBus } from "@gateway/bus";
import { createInProcessCache } from "@gateway/cache";
import { silentLogger } from "@gateway/contracts";
import { callRow, startCostingWorker } from "@gateway/costing-worker";
import { type DbHandle, priceCallsById, recordCalls, seedPrices } from "@gateway/db";
import { callRows, openTestDb } from "@gateway/db/testing";
import { costingJobs, createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { type Json, operatorToken, plainUsage, testCallEvent } from "@gateway/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createControlPlaneApp } from "../src/app.ts";
import { buildServices } from "../src/services/build-services.ts";
import { seedPricesAndQueueRepricing } from "../src/services/price-seed.ts";

const model = "reprice-job-model";
const repriceJob = costingJobs.repriceModel.name;

/**
 * Pricing has one owner: the control plane only queues `costing.reprice-model`, and the costing
 * worker runs it. Here the worker starts late, so what the request itself did can be seen alone.
 */
describe("re-pricing is the costing worker's job, queued by the control plane", () => {
  let handle: DbHandle;
  let jobs: JobQueue;
  let blobsDir: string;
  beforeEach(async () => {
    handle = await openTestDb("sqlite");
    jobs = createInProcessQueue();
    blobsDir = await mkdtemp(join(tmpdir(), "gw-repricing-"));
  });
  afterEach(async () => {
    await jobs.close();
    await handle.close();
    await rm(blobsDir, { recursive: true, force: true });
  });

  /** Two calls of `model` recorded and priced before it has any price: both `no_price`. */
  async function unpricedCalls(): Promise<string[]> {
    const events = [plainUsage(1_000_000, 0), plainUsage(0, 1_000_000)].map((usage) =>
      testCallEvent({ requested_model: model, served_model: model, usage }),
    );
    await recordCalls(handle.db, events.map(callRow));
    const ids = events.map((e) => e.request_id);
    await priceCallsById(handle.db, ids);
    return ids;
  }

  /** Each call's unpriced reason and cost in dollars, in the order of `ids`. */
  async function costs(ids: string[]) {
    const rows = await callRows(handle.db, { requestIds: ids });
    const byId = new Map(
      rows.map((r) => [
        r.requestId,
        [r.unpricedReason, r.customerCostUsd === null ? null : Number(r.customerCostUsd)],
      ]),
    );
    return ids.map((id) => byId.get(id));
  }

  it("POST /operator/v1/prices stores the row and queues its re-pricing; the worker re-prices", async () => {
    const ids = await unpricedCalls();
    expect(await costs(ids)).toEqual([
      ["no_price", null],
      ["no_price", null],
    ]);
    const services = buildServices(
      {
        db: handle.db,
        cache: createInProcessCache(),
        blobs: createFsBlobStore(blobsDir),
        log: silentLogger,
        jobs,
      },
      { operatorToken },
    );
    const res = await createControlPlaneApp(services).request("/operator/v1/prices", {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model,
        effective_from: "2000-01-01T00:00:00Z",
        input_usd_per_mtok: "2",
        cache_write_5m_usd_per_mtok: "0",
        cache_write_1h_usd_per_mtok: "0",
        cache_read_usd_per_mtok: "0",
        output_usd_per_mtok: "10",
      }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ model, repricing: "queued" });
    // the answer came without re-pricing: the calls wait for the job, which no worker ran yet
    expect(await costs(ids)).toEqual([
      ["no_price", null],
      ["no_price", null],
    ]);
    expect(await jobs.depth(repriceJob)).toBe(1);

    const bus = createInProcessBus();
    const worker = await startCostingWorker({ db: handle.db, bus, jobs, log: silentLogger });
    await jobs.idle();
    expect(await costs(ids)).toEqual([
      [null, 2],
      [null, 10],
    ]);
    expect(await jobs.depth(repriceJob)).toBe(0);
    await worker.close();
    await bus.close();
  });

  it("seeding queues re-pricing for the models that gained a row, and nothing on a seeded table", async () => {
    const added: unknown[] = [];
    const recording = { add: async (name: string, payload: unknown) => void added.push([name, payload]) };
    const models = [...new Set(seedPrices.map((p) => p.model))];
    expect((await seedPricesAndQueueRepricing(handle.db, recording)).sort()).toEqual(models.sort());
    expect(added).toHaveLength(models.length);
    expect(added).toEqual(expect.arrayContaining(models.map((m) => [repriceJob, { model: m }])));
    added.length = 0;
    expect(await seedPricesAndQueueRepricing(handle.db, recording)).toEqual([]);
    expect(added).toEqual([]);
  });
});
