import { createHash, randomUUID } from "node:crypto";
import { type ConfigCache, configKeys, createInProcessCache } from "@gateway/cache";
import { createRedisCache } from "@gateway/cache/redis";
import { silentLogger } from "@gateway/contracts";
import { configSync } from "@gateway/control-plane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Json, startHarness } from "./harness.ts";

const redisUrl = process.env.GATEWAY_TEST_ENGINES === "1" ? process.env.GATEWAY_TEST_REDIS_URL : undefined;

// The rebuild must make the cache equal the live set: entries whose delete never reached the
// cache (a lost write, a restored snapshot) are what it exists to remove.
describe("control-plane config rebuild", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const stale = [
    configKeys.apiKey("revoked-long-ago"),
    configKeys.project("org_gone", "deleted"),
    configKeys.workload("proj_gone", "w"),
  ];

  async function rebuildRemovesStale(cache: ConfigCache) {
    await configSync(cache).syncAll(h.gateway.internals.db);
    const live = new Set(await cache.keys());
    expect(live.size).toBeGreaterThan(0);
    for (const key of stale) await cache.set(key, { id: "stale" });
    await configSync(cache).syncAll(h.gateway.internals.db);
    // read as keys, not get(): a Redis the rebuild has not marked synced answers no read
    const after = new Set(await cache.keys());
    for (const key of stale) expect(after.has(key)).toBe(false);
    expect(after).toEqual(live);
  }

  it("deletes entries that are not live (in-process cache)", async () => {
    await rebuildRemovesStale(h.gateway.cache);
    // the org's starter key still resolves after the sweep
    expect(await h.chat(h.apiKey)).toBe(200);
  });

  it("publishes every key, project and workload with its limits, as the changes did one by one", async () => {
    const admin = `/admin/v1/orgs/${h.orgId}`;
    const customer = `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}`;
    const starter = (await h.cp("GET", `${admin}/api_keys`)).json.api_keys[0].id;
    const main = (await h.cp("GET", `${customer}/workloads`)).json.workloads.find((w: Json) => w.is_default);
    expect((await h.cp("POST", `${customer}/workloads`, { name: "unlimited" })).status).toBe(201);
    await h.cp("PUT", `${admin}/api_keys/${starter}/limits`, { requests_per_minute: 600 });
    await h.cp("PUT", `${admin}/projects/${h.projectId}/limits`, {
      budget: { usd: "12.5", period: "day", applies_to: "all" },
    });
    await h.cp("PUT", `${admin}/projects/${h.projectId}/workloads/${main.id}/limits`, {
      tokens_per_minute: 5000,
    });

    const rebuilt = createInProcessCache();
    await configSync(rebuilt).syncAll(h.gateway.internals.db);
    const limitsAt = async (key: string) =>
      ((await rebuilt.get(key)) as { limits?: unknown } | undefined)?.limits;
    const keyHash = createHash("sha256").update(h.apiKey).digest("hex");
    expect(await limitsAt(configKeys.apiKey(keyHash))).toEqual({ rpm: 600 });
    const budget = { budget: { micros: 12_500_000, period: "day", appliesTo: "all" } };
    expect(await limitsAt(configKeys.project(h.orgId, "default"))).toEqual(budget);
    expect(await limitsAt(configKeys.defaultProject(h.orgId))).toEqual(budget);
    expect(await limitsAt(configKeys.workload(h.projectId, "main"))).toEqual({ tpm: 5000 });
    expect(await limitsAt(configKeys.defaultWorkload(h.projectId))).toEqual({ tpm: 5000 });
    expect(await rebuilt.get(configKeys.workload(h.projectId, "unlimited"))).not.toHaveProperty("limits");
    for (const key of await rebuilt.keys()) {
      expect(await rebuilt.get(key), key).toEqual(await h.gateway.cache.get(key));
    }
  });

  it.skipIf(!redisUrl)(
    "deletes entries that are not live (Redis cache, GATEWAY_TEST_ENGINES=1)",
    async () => {
      const cache = await createRedisCache({
        url: redisUrl!,
        log: silentLogger,
        timeoutMs: 1_000,
        waitForRedis: true,
        // a namespace of its own, with a glob character, so the SCAN pattern's escaping is exercised
        namespace: `test:rebuild:${randomUUID()}[x]`,
      });
      try {
        await rebuildRemovesStale(cache);
      } finally {
        // leave nothing behind in the shared Redis
        for (const key of await cache.keys()) await cache.delete(key);
        await cache.close();
      }
    },
  );
});
