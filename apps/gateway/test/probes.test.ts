import { createHash } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInProcessBus } from "@gateway/bus";
import { type ConfigCache, configKeys, createInProcessCache, type WorkloadEntry } from "@gateway/cache";
import { createRedisCache } from "@gateway/cache/redis";
import { silentLogger } from "@gateway/contracts";
import { createHttpServer } from "@gateway/runtime";
import { eventually } from "@gateway/testkit";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/gateway.ts";
import { testGatewayConfig } from "./support/gateway-config.ts";

const redisUrl = process.env.GATEWAY_TEST_ENGINES === "1" ? process.env.GATEWAY_TEST_REDIS_URL : undefined;

/** A gateway on a real server over `cache`; `probe(path)` answers status and body. */
async function gatewayOn(cache: ConfigCache, providerBUrl = "http://127.0.0.1:9") {
  const gateway = createGateway({
    cache,
    bus: createInProcessBus(),
    log: silentLogger,
    credentials: () => undefined,
    spillDir: join(tmpdir(), `gw-probes-spill-${process.pid}`),
    config: { ...testGatewayConfig, providerBUrl },
  });
  const server = createHttpServer((req, res) => gateway.handle(req, res), { log: silentLogger });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    gateway,
    base,
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
        const ready = await eventually(async () => {
          const answer = await g.probe("/readyz");
          return answer.status === 200 && answer;
        }, 5_000);
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

describe("gateway drain", () => {
  it("that stops waiting says how far each call still in flight had come", async () => {
    // an upstream that starts a stream and never ends it
    const held: ServerResponse[] = [];
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n');
      held.push(res);
    });
    await new Promise<void>((ready) => upstream.listen(0, "127.0.0.1", ready));
    const cache = createInProcessCache();
    const key = "sk_drain_test";
    await cache.set(configKeys.apiKey(createHash("sha256").update(key).digest("hex")), {
      id: "key_1",
      orgId: "org_1",
    });
    await cache.set(configKeys.defaultProject("org_1"), { id: "proj_1", orgId: "org_1", slug: "default" });
    const workload: WorkloadEntry = {
      id: "wl_1",
      projectId: "proj_1",
      name: "default",
      captureEnabled: false,
      captureSampleRate: 1,
      routeModelId: null,
      routeTrafficPct: 0,
    };
    await cache.set(configKeys.defaultWorkload("proj_1"), workload);
    const g = await gatewayOn(cache, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    try {
      const answer = await request(`${g.base}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "x-gateway-upstream-key": "sk-up",
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "gpt-5.4-mini", stream: true, messages: [] }),
      });
      expect(answer.statusCode).toBe(200);
      // the first frame reached the caller: the call is under way and will not end by itself
      await new Promise((first) => answer.body.once("data", first));
      const drain = await g.gateway.drain(50);
      expect(drain).toMatchObject({ drained: false, inFlight: 1 });
      expect(drain.calls).toEqual([
        {
          request_id: answer.headers["x-gateway-request-id"],
          endpoint: "chat_completions",
          age_ms: expect.any(Number),
          caller_resolved: true,
          upstream_first_byte_ms: expect.any(Number),
          recording: false,
          response: "started",
          client_gone: false,
        },
      ]);
      answer.body.destroy();
    } finally {
      for (const res of held) res.destroy();
      await g.close();
      upstream.closeAllConnections();
      await new Promise((done) => upstream.close(done));
    }
  });
});
