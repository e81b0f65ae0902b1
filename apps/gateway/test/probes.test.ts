import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInProcessBus } from "@gateway/bus";
import { type ConfigCache, createInProcessCache, createRedisCache } from "@gateway/cache";
import { createHttpServer, silentLogger } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/gateway.ts";

const redisUrl = process.env.GATEWAY_TEST_ENGINES === "1" ? process.env.GATEWAY_TEST_REDIS_URL : undefined;

/** A gateway on a real server over `cache`; `probe(path)` answers status and body. */
async function gatewayOn(cache: ConfigCache) {
  const gateway = createGateway({
    cache,
    bus: createInProcessBus(),
    log: silentLogger,
    credentials: () => undefined,
    spillDir: join(tmpdir(), `gw-probes-spill-${process.pid}`),
    config: {
      providerAUrl: "http://127.0.0.1:9",
      providerBUrl: "http://127.0.0.1:9",
      maxBodyBytes: 1024,
      answerMemoryBytes: 1024,
      connectTimeoutMs: 1_000,
      firstByteTimeoutMs: 1_000,
      idleTimeoutMs: 1_000,
      accessLog: false,
    },
  });
  const server = createHttpServer((req, res) => gateway.handle(req, res), { log: silentLogger });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    gateway,
    async probe(path: string) {
      const res = await fetch(base + path);
      return { status: res.status, body: (await res.json()) as { status: string } };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await gateway.close();
      await cache.close();
    },
  };
}

describe("gateway probes", () => {
  it("is alive and ready, then not ready from the moment it drains, alive throughout", async () => {
    const g = await gatewayOn(createInProcessCache());
    try {
      expect(await g.probe("/livez")).toEqual({ status: 200, body: { status: "alive" } });
      expect(await g.probe("/readyz")).toEqual({ status: 200, body: { status: "ready" } });
      await g.gateway.drain(0);
      expect(await g.probe("/readyz")).toEqual({ status: 503, body: { status: "draining" } });
      expect(await g.probe("/livez")).toEqual({ status: 200, body: { status: "alive" } });
      // the interface's probe keeps its meaning: the process serves
      expect(await g.probe("/healthz")).toEqual({ status: 200, body: { status: "draining" } });
    } finally {
      await g.close();
    }
  });

  it.skipIf(!redisUrl)(
    "is not ready until its Redis cache has been rebuilt once (GATEWAY_TEST_ENGINES=1)",
    async () => {
      const namespace = `test:probes:${Date.now()}`;
      const reader = await createRedisCache({ url: redisUrl!, log: silentLogger, timeoutMs: 500, namespace });
      const g = await gatewayOn(reader);
      const writer = await createRedisCache({
        url: redisUrl!,
        log: silentLogger,
        timeoutMs: 1_000,
        waitForRedis: true,
        namespace,
      });
      try {
        // Redis answers, but nothing has marked it complete: a key it lacks may yet be valid
        await new Promise((r) => setTimeout(r, 1_500));
        expect(await g.probe("/readyz")).toEqual({ status: 503, body: { status: "syncing" } });
        await writer.keepSynced(async () => writer.set("apikey:x", { id: "x" }));
        const deadline = Date.now() + 5_000;
        let ready = await g.probe("/readyz");
        while (ready.status !== 200 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          ready = await g.probe("/readyz");
        }
        expect(ready).toEqual({ status: 200, body: { status: "ready" } });
      } finally {
        for (const key of await writer.keys()) await writer.delete(key);
        await writer.close();
        await g.close();
      }
    },
    20_000,
  );
});
