import { type ChildProcess, spawn } from "node:child_process";
import { silentLogger } from "@gateway/contracts";
import { eventually, freePort } from "@gateway/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigUnavailableError } from "../src/index.ts";
import { createRedisCache } from "../src/redis-cache.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

// A Redis of the test's own (redis-server from Debian, installed by infra/redis.sh), so it can
// be stopped and started without disturbing the shared one.
describe.skipIf(!engines)("redis config cache (GATEWAY_TEST_ENGINES=1)", () => {
  let port: number;
  let server: ChildProcess | null = null;
  const startRedis = async () => {
    server = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", ""], {
      stdio: "ignore",
    });
    const probe = await createRedisCache({
      url: `redis://127.0.0.1:${port}`,
      log: silentLogger,
      timeoutMs: 500,
    });
    await eventually(async () => {
      await probe.set("probe", 1).catch(() => {});
      return (await probe.get("probe")) === 1;
    }, 5_000);
    await probe.close();
  };
  const stopRedis = async () => {
    const s = server!;
    server = null;
    await new Promise((r) => {
      s.once("exit", r);
      s.kill("SIGKILL");
    });
  };
  beforeAll(async () => {
    port = await freePort();
    await startRedis();
  });
  afterAll(async () => {
    if (server) await stopRedis();
  });

  it("invalidates every reader at once, serves known keys while Redis is away and cannot read unknown ones", async () => {
    const url = `redis://127.0.0.1:${port}`;
    const writer = await createRedisCache({ url, log: silentLogger, timeoutMs: 1_000, waitForRedis: true });
    const readers = await Promise.all(
      [1, 2].map(() => createRedisCache({ url, log: silentLogger, timeoutMs: 50, waitForRedis: true })),
    );
    const truth = new Map<string, unknown>([
      ["apikey:a", { id: "a" }],
      ["apikey:b", { id: "b" }],
    ]);
    await writer.keepSynced(async () => {
      for (const [k, v] of truth) await writer.set(k, v);
    });
    for (const r of readers) expect(await r.get("apikey:a")).toEqual({ id: "a" });

    const revoked = Date.now();
    truth.delete("apikey:a");
    await writer.delete("apikey:a");
    for (const r of readers) await eventually(async () => (await r.get("apikey:a")) === undefined, 2_000);
    console.log(`redis invalidation: both readers refused a deleted key within ${Date.now() - revoked} ms`);

    const reader = readers[0]!;
    expect(await reader.get("apikey:b")).toEqual({ id: "b" });
    expect(await reader.get("apikey:b", { freshOnly: true })).toEqual({ id: "b" });
    await stopRedis();
    let slowest = 0;
    for (let i = 0; i < 200; i++) {
      const t = Date.now();
      expect(await reader.get("apikey:b")).toEqual({ id: "b" });
      // not "unknown": with Redis away the reader cannot tell, and says so
      await expect(reader.get("apikey:never-seen")).rejects.toBeInstanceOf(ConfigUnavailableError);
      slowest = Math.max(slowest, Date.now() - t);
    }
    expect(slowest).toBeLessThanOrEqual(50 + 20);
    console.log(
      `redis down: 400 reads, known key served, unknown one unavailable, slowest ${slowest} ms (timeout 50 ms)`,
    );
    // a reader with the source of truth at hand is refused the copy kept through the outage (once
    // the lost subscription is noticed), without waiting
    const refused = () =>
      reader.get("apikey:b", { freshOnly: true }).then(
        () => false,
        (error) => error instanceof ConfigUnavailableError,
      );
    await eventually(refused, 1_000);
    const asked = Date.now();
    expect(await refused()).toBe(true);
    expect(Date.now() - asked).toBeLessThanOrEqual(20);

    // a write while Redis is away reaches every reader once Redis is back (and rebuilt: it restarted empty)
    truth.set("apikey:c", { id: "c" });
    await writer.set("apikey:c", { id: "c" });
    await startRedis();
    // until Redis is back and rebuilt, the reader cannot read a key it never had
    await eventually(
      async () => (await readers[1]!.get("apikey:c").catch(() => undefined)) !== undefined,
      5_000,
    );
    expect(await readers[1]!.get("apikey:c")).toEqual({ id: "c" });
    expect(await readers[1]!.get("apikey:b")).toEqual({ id: "b" });
    expect(await readers[1]!.get("apikey:a")).toBeUndefined();
    await Promise.all([writer.close(), ...readers.map((r) => r.close())]);
  }, 30_000);

  /**
   * A writer, a reader whose copy is revalidated only after a minute (so only an invalidation can
   * bring it a new value), and an admin connection to disturb Redis with.
   */
  async function writerAndReader(writerTimeoutMs: number) {
    const url = `redis://127.0.0.1:${port}`;
    const log = silentLogger;
    const writer = await createRedisCache({ url, log, timeoutMs: writerTimeoutMs, waitForRedis: true });
    const reader = await createRedisCache({
      url,
      log,
      timeoutMs: 500,
      waitForRedis: true,
      revalidateAfterMs: 60_000,
    });
    const admin = new Redis(url);
    const close = async () => {
      admin.disconnect();
      await Promise.all([writer.close(), reader.close()]);
    };
    return { writer, reader, admin, close };
  }

  it("waits longer for a key it has no copy of, and fails a read it cannot answer as unavailable", async () => {
    const { writer, admin, close } = await writerAndReader(1_000);
    const url = `redis://127.0.0.1:${port}`;
    const reader = await createRedisCache({ url, log: silentLogger, timeoutMs: 50, missTimeoutMs: 1_000 });
    try {
      await writer.keepSynced(async () => {
        await writer.set("cold:known", 1);
        await writer.set("cold:new", 2);
      });
      await eventually(async () => (await reader.get("cold:known").catch(() => undefined)) === 1, 5_000);
      // Redis answers every read 300 ms late: past the short timeout, within the long one
      await admin.call("CLIENT", "PAUSE", "300", "ALL");
      const [known, fresh] = await Promise.all([reader.get("cold:known"), reader.get("cold:new")]);
      // the copy answers at once; the key with no copy waits for Redis instead of being refused
      expect(known).toBe(1);
      expect(fresh).toBe(2);
      // a Redis that never answers: the read fails as unavailable, not as "no such key"
      await admin.call("CLIENT", "PAUSE", "1500", "ALL");
      const started = Date.now();
      await expect(reader.get("cold:never")).rejects.toBeInstanceOf(ConfigUnavailableError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    } finally {
      await reader.close();
      await close();
    }
  }, 15_000);

  it("retries a write that timed out on a live connection without waiting for a reconnect", async () => {
    const { writer, reader, admin, close } = await writerAndReader(100);
    try {
      await writer.keepSynced(async () => writer.set("slow:k", 1));
      expect(await reader.get("slow:k")).toBe(1);
      // Redis holds writes for 500 ms: the SET times out (and lands later) but the connection
      // stays up, so no reconnect ever replays the PUBLISH that the reader needs
      await admin.call("CLIENT", "PAUSE", "500", "WRITE");
      await writer.set("slow:k", 2);
      await eventually(async () => (await reader.get("slow:k")) === 2, 3_000);
    } finally {
      await close();
    }
  }, 10_000);

  it("reads through Redis while its subscriber is lost, so a missed invalidation is not served", async () => {
    const { writer, reader, admin, close } = await writerAndReader(500);
    try {
      await writer.keepSynced(async () => writer.set("gap:k", 1));
      expect(await reader.get("gap:k")).toBe(1);
      // drop every subscriber; they reconnect about 100 ms later, and the delete below falls in
      // that gap, so its invalidation never reaches the reader
      await admin.call("CLIENT", "KILL", "TYPE", "pubsub");
      await new Promise((r) => setTimeout(r, 10));
      await writer.delete("gap:k");
      expect(await reader.get("gap:k")).toBeUndefined();
    } finally {
      await close();
    }
  }, 10_000);
});
