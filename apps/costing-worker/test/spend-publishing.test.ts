import { createInProcessBus, type EventBus } from "@gateway/bus";
import { type CallEvent, callsTopic, type Logger, type SpendTotal, silentLogger } from "@gateway/contracts";
import { type Db, type DbHandle, writeLimits } from "@gateway/db";
import { callRows, openTestDb } from "@gateway/db/testing";
import { createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { createInProcessLimits, type LimitStore } from "@gateway/limits";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CostingWorker, startCostingWorker } from "../src/costing-worker.ts";
import { startSpendPublisher } from "../src/spend-publisher.ts";
import { insertSonnetPrice } from "./support/sonnet-price.ts";

/** The in-process store, with every publish recorded and the next ones made to fail on demand. */
function recordingLimits() {
  const store = createInProcessLimits();
  const published: SpendTotal[][] = [];
  let failures = 0;
  const limitStore: LimitStore = {
    ...store,
    async publishSpend(totals) {
      if (failures > 0) {
        failures--;
        throw new Error("redis away");
      }
      published.push([...totals]);
      await store.publishSpend(totals);
    },
  };
  return { limitStore, published, failNext: (n: number) => (failures = n) };
}

function errorLog() {
  const errors: string[] = [];
  const log: Logger = { ...silentLogger, error: (message) => errors.push(message) };
  return { log, errors };
}

/** A managed claude-sonnet-5 call of now (so it counts in today's spend) of key k1, project p1. */
const callEvent = (overrides: Partial<CallEvent> = {}) =>
  testCallEvent({
    project_id: "p1",
    workload_id: "w1",
    api_key_id: "k1",
    endpoint: "messages",
    provider_label: "provider_a",
    mode: "managed",
    requested_model: "claude-sonnet-5",
    served_model: "claude-sonnet-5",
    usage: plainUsage(1_000_000, 33),
    ...overrides,
  });

const projectP1 = { scope: "project", id: "p1" } as const;
const dayTotal = (totals: SpendTotal[], scope: string, id: string) =>
  totals.find((t) => t.scope === scope && t.scopeId === id && t.period === "day");

describe("the costing worker publishes spend for the budgets", () => {
  let handle: DbHandle;
  let db: Db;
  let bus: EventBus;
  let jobs: JobQueue;
  let worker: CostingWorker;
  const limitStore = recordingLimits();
  const { log, errors } = errorLog();

  const callRow = async (requestId: string) => (await callRows(db, { requestIds: [requestId] }))[0];

  async function price(event: CallEvent) {
    bus.publish(callsTopic, event.request_id, event);
    await bus.flush();
    await jobs.idle();
  }

  beforeAll(async () => {
    handle = await openTestDb("sqlite");
    db = handle.db;
    // a call costs $2.00033: the project's $1 budget is spent by the first one
    await insertSonnetPrice(db);
    await writeLimits(
      db,
      { scope: "project", scopeId: "p1", orgId: "org_1" },
      { budget: { usd: "1", period: "day", applies_to: "managed" } },
    );
    await writeLimits(
      db,
      { scope: "api_key", scopeId: "k2", orgId: "org_1" },
      { budget: { usd: "100", period: "month", applies_to: "all" } },
    );
    bus = createInProcessBus();
    jobs = createInProcessQueue();
    worker = await startCostingWorker({ db, bus, jobs, log, limits: limitStore.limitStore });
  });
  afterAll(async () => {
    await worker.close();
    await bus.close();
    await jobs.close();
    await handle.close();
  });

  it("publishes every budget at start", () => {
    expect(limitStore.published).toHaveLength(1);
    expect(limitStore.published[0]!.map((t) => [t.scope, t.scopeId, t.period, t.allMicros])).toEqual([
      ["api_key", "k2", "day", 0],
      ["api_key", "k2", "month", 0],
      ["project", "p1", "day", 0],
      ["project", "p1", "month", 0],
    ]);
  });

  it("publishes the totals of a priced call's scopes that have a budget, and the budget then holds", async () => {
    const budget = { micros: 1_000_000, period: "day", appliesTo: "managed" } as const;
    const admit = () =>
      limitStore.limitStore.admit({
        requestId: "req_probe",
        scopes: [{ ...projectP1, limits: { budget } }],
        managed: true,
      });
    expect((await admit()).ok).toBe(true);
    await price(callEvent());
    const last = limitStore.published.at(-1)!;
    // the call's key k1 and workload w1 have no budget: the gateway reads no total of theirs
    expect(last.map((t) => `${t.scope}:${t.scopeId}:${t.period}`)).toEqual([
      "project:p1:day",
      "project:p1:month",
    ]);
    // $2 for the input, 33 × $10 per million for the output, floored to whole micros
    expect(dayTotal(last, "project", "p1")).toMatchObject({ managedMicros: 2_000_330, allMicros: 2_000_330 });
    const refused = await admit();
    expect(refused.ok || refused.refusal.limit).toBe("budget");
  });

  it("logs a failed publish, never fails the job, and publishes those scopes with the next batch", async () => {
    const before = limitStore.published.length;
    limitStore.failNext(1);
    const failed = callEvent({ api_key_id: "k2", workload_id: "w2", mode: "byo" });
    await price(failed);
    expect(errors).toEqual(["publishing spend failed; retried with the next batch"]);
    expect((await callRow(failed.request_id))?.pricingStatus).toBe("priced");
    expect(limitStore.published).toHaveLength(before);

    await price(callEvent({ api_key_id: "k3", workload_id: "w3" }));
    const retried = limitStore.published.at(-1)!;
    // the failed batch's budgeted scopes (k2, p1) with the next one's (p1 again); w2, k3, w3 have none
    expect(retried.map((t) => `${t.scope}:${t.scopeId}:${t.period}`)).toEqual([
      "api_key:k2:day",
      "api_key:k2:month",
      "project:p1:day",
      "project:p1:month",
    ]);
    expect(dayTotal(retried, "api_key", "k2")).toMatchObject({ managedMicros: 0, allMicros: 2_000_330 });
  });

  it("stores the limit that refused a call", async () => {
    const refused = callEvent({
      status: 429,
      usage: null,
      refused_by: { scope: "project", limit: "budget" },
    });
    await price(refused);
    expect((await callRow(refused.request_id))?.refusedBy).toBe("project.budget");
    const others = (await callRows(db)).filter((c) => c.requestId !== refused.request_id);
    expect(others.map((c) => c.refusedBy)).toEqual([null, null, null]);
  });

  it("publishes every budget again on its period, into a store that lost them", async () => {
    const emptied = recordingLimits();
    const publisher = startSpendPublisher({ db, limits: emptied.limitStore, log }, 20);
    // at start, then again on its period (waited for, not timed: a loaded machine runs late)
    await expect.poll(() => emptied.published.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await publisher.close();
    expect(dayTotal(emptied.published[0]!, "project", "p1")?.managedMicros).toBe(2 * 2_000_330);
  });

  it("stores how a routed call's arm was chosen; null for a call no route applied to, or an event from before", async () => {
    const routed = { route: "gateway", usage: null, project_id: "p-routed" } as const;
    const events = [
      callEvent({ ...routed, arm_source: "affinity" }),
      callEvent({ ...routed, arm_source: "draw" }),
      callEvent({ ...routed, arm_source: null }),
      callEvent({ ...routed }),
    ];
    for (const event of events) await price(event);
    const stored = await Promise.all(events.map(async (e) => (await callRow(e.request_id))?.armSource));
    expect(stored).toEqual(["affinity", "draw", null, null]);
  });
});
