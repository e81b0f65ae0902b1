import type { CallInsert, Db } from "../../src/index.ts";
import {
  indexCaptures,
  insertApiKey,
  insertOrg,
  insertPrice,
  insertProjectWithDefaultWorkload,
  insertWorkload,
  inTransaction,
  priceCallsById,
  recordCalls,
  replaceCatalogModel,
  writeLimits,
  writeWorkloadChanges,
} from "../../src/index.ts";

/** The window the reports are asked about: three UTC days, edges inside hours (rollups and raw rows both read). */
export const reportWindow = {
  projectId: "proj_1",
  start: new Date("2026-11-23T22:30:00.000Z"),
  end: new Date("2026-11-25T13:15:00.000Z"),
};
export const reportNow = new Date("2026-11-25T13:15:00.000Z");

const models = ["claude-sonnet-4-5", "gpt-5.4", "no-price-model"] as const;
const routes = ["primary", "gateway", "fallback"] as const;

/** A call of the generated workload: `i` picks its time, workload, model, route, outcome and usage. */
export function generatedCall(i: number): CallInsert {
  // every 37 minutes from just before the window to past its end: both edge hours and whole hours
  const at = new Date(Date.UTC(2026, 10, 23, 21, 0) + i * 37 * 60_000 + (i % 7) * 1_001);
  const model = models[i % 3]!;
  const route = routes[i % 5 === 0 ? 2 : i % 2]!;
  const status = i % 11 === 0 ? 502 : i % 13 === 0 ? 429 : 200;
  const refused = i % 17 === 0 ? (i % 2 === 0 ? "project.budget" : "workload.requests_per_minute") : null;
  const usage = status === 200 && i % 9 !== 4;
  return {
    requestId: `req_${String(i).padStart(4, "0")}`,
    orgId: "org_1",
    projectId: "proj_1",
    workloadId: i % 4 === 0 ? "wl_x" : "wl_main",
    apiKeyId: i % 3 === 0 ? "key_2" : "key_1",
    receivedAt: at,
    endpoint: "messages",
    providerLabel: i % 6 === 0 ? "managed" : model.startsWith("gpt") ? "provider_b" : "provider_a",
    mode: i % 6 === 0 ? "managed" : "byo",
    route,
    requestedModel: model,
    servedModel: i % 23 === 0 ? null : model,
    stream: i % 2 === 0,
    status: refused ? 429 : status,
    firstByteMs: 10 + (i % 5),
    totalMs: 100 + i,
    streamOutcome: i % 19 === 0 ? "truncated" : "complete",
    errorType: status >= 400 ? "upstream_error" : null,
    refusedBy: refused,
    fallbackReason: route === "fallback" ? (i % 10 === 0 ? "timeout" : "error") : null,
    upstreamRequestId: `up_${i % 50}`,
    upstreamResponseId: `msg_${i}`,
    tags: { team: i % 2 === 0 ? "a" : "b" },
    usageRaw: usage ? { input_tokens: i } : null,
    inputTokens: usage ? 1_000 + i * 37 : null,
    cacheReadInputTokens: usage ? (i % 4) * 501 : null,
    cacheCreationInputTokens: usage ? (i % 5) * 97 + (i % 3) * 13 : null,
    cacheCreation5mInputTokens: usage ? (i % 5) * 97 : null,
    cacheCreation1hInputTokens: usage ? (i % 3) * 13 : null,
    outputTokens: usage ? 7 + i * 3 : null,
    pricingStatus: "unpriced",
    unpricedReason: usage ? "pricing_pending" : "error_response",
    priceId: null,
    pricedAt: null,
    uncachedInputUsd: null,
    cacheWriteUsd: null,
    cacheReadUsd: null,
    outputUsd: null,
    customerCostUsd: null,
  };
}

export const reportCallCount = 120;

/**
 * One org, a project with two workloads (one routed to a catalog model), two keys with limits,
 * prices (one superseded inside the window), 120 calls over three UTC days recorded in three
 * batches (one delivered twice), priced, then re-priced; and capture index rows.
 */
export async function seedReportStore(db: Db): Promise<void> {
  await insertOrg(db, { id: "org_1", name: "o" });
  for (const id of ["key_1", "key_2"])
    await insertApiKey(db, { id, orgId: "org_1", name: id, keyHash: `h_${id}`, obfuscatedValue: "sk_…" });
  await insertProjectWithDefaultWorkload(
    db,
    { id: "proj_1", orgId: "org_1", slug: "shop", name: "Shop", isDefault: true },
    { id: "wl_main", name: "main" },
  );
  // ids in creation order: a store that makes both in one millisecond lists them by id
  await insertWorkload(db, { id: "wl_x", projectId: "proj_1", name: "batch", captureEnabled: true });
  await replaceCatalogModel(db, "cat-small", {
    displayName: "Small",
    active: true,
    deployments: [
      {
        providerLabel: "managed",
        wireFormat: "messages",
        baseUrl: "http://127.0.0.1:1",
        upstreamModel: "small-1",
        credentialEnv: "SMALL_KEY",
        priority: 0,
      },
    ],
  });
  await inTransaction(db, (tx) =>
    writeWorkloadChanges(tx, "wl_x", { routeModelId: "cat-small", routeTrafficPct: 33.5 }),
  );
  const budget = { usd: "0.05", period: "day", applies_to: "all" } as const;
  await writeLimits(db, { scope: "project", scopeId: "proj_1", orgId: "org_1" }, { budget });
  await writeLimits(db, { scope: "api_key", scopeId: "key_2", orgId: "org_1" }, { requests_per_minute: 60 });
  await writeLimits(
    db,
    { scope: "workload", scopeId: "wl_x", orgId: "org_1" },
    { budget: { usd: "12.345678", period: "month", applies_to: "managed" } },
  );
  const price = (id: string, model: string, from: string, rates: string[]) =>
    insertPrice(db, {
      id,
      model,
      effectiveFrom: new Date(from),
      inputUsdPerMtok: rates[0]!,
      cacheWrite5mUsdPerMtok: rates[1]!,
      cacheWrite1hUsdPerMtok: rates[2]!,
      cacheReadUsdPerMtok: rates[3]!,
      outputUsdPerMtok: rates[4]!,
    });
  await price("price_a", "claude-sonnet-4-5", "2000-01-01T00:00:00Z", [
    "3.00",
    "3.75",
    "6.00",
    "0.30",
    "15.00",
  ]);
  await price("price_b", "gpt-5.4", "2000-01-01T00:00:00Z", ["2.50", "0", "0", "0.25", "15.00"]);
  const calls = Array.from({ length: reportCallCount }, (_, i) => generatedCall(i));
  for (const batch of [calls.slice(0, 50), calls.slice(40, 90), calls.slice(90)]) {
    const ids = await recordCalls(db, batch);
    await priceCallsById(db, ids);
  }
  // a newer price inside the window, and the re-pricing its row queues
  await price("price_a2", "claude-sonnet-4-5", "2026-11-24T12:00:00Z", [
    "2.999999",
    "3.5",
    "6",
    "0.000001",
    "14.5",
  ]);
  const { repriceCallsFor } = await import("../../src/index.ts");
  await repriceCallsFor(db, "claude-sonnet-4-5");
  await indexCaptures(
    db,
    calls.slice(0, 5).map((c, i) => ({
      requestId: c.requestId,
      orgId: "org_1",
      projectId: "proj_1",
      workloadId: c.workloadId,
      apiKeyId: c.apiKeyId,
      key: `captures/${c.requestId}.jsonl`,
      size: 100 + i,
      uploadedAt: new Date(c.receivedAt.getTime() + 5_000),
      receivedAt: c.receivedAt,
    })),
  );
}
