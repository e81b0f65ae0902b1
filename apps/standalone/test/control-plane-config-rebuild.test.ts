import { randomUUID } from "node:crypto";
import { type ConfigCache, configKeys, createRedisCache } from "@gateway/cache";
import { silentLogger } from "@gateway/contracts";
import { configSync } from "@gateway/control-plane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

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
