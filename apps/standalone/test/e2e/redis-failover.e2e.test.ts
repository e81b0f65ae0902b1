import { scrape } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SplitDeployment, startSplitDeployment } from "./deployments.ts";
import { expectSharedRate } from "./limit-scenarios.ts";
import { type AppProcess, infra } from "./processes.ts";
import { type SentinelRedisEngines, sentinelRedisEngines } from "./redis-failover-engines.ts";
import { expectRepricedOnPriceChange } from "./repricing.ts";
import { createApiKey, createTestOrg, revokeApiKey, type TestOrg } from "./scenarios.ts";
import { chatBody, gatewayCall, sleep, within } from "./traffic.ts";

const secure = process.env.GATEWAY_TEST_SECURE_ENGINES === "1";
if (!secure) {
  console.log(
    "redis failover e2e skipped: set GATEWAY_TEST_SECURE_ENGINES=1 with the shared PostgreSQL and S3 running " +
      "(the test starts its own Kafka, and Redis behind Sentinel with infra/secure/redis.sh; .ci/run does this)",
  );
}

/**
 * Known keys on both gateways, one call every `intervalMs` per gateway until `stop()`: how many
 * were answered 200, what else came back, and the longest any call waited.
 */
function timedTraffic(gateways: string[], key: string, intervalMs = 50) {
  let stopped = false;
  let answered = 0;
  let longestMs = 0;
  const failures: string[] = [];
  const loops = gateways.map(async (gateway) => {
    for (let n = 0; !stopped; n++) {
      const reply = await gatewayCall(gateway, key, "/v1/chat/completions", chatBody(n)).catch(
        (error: unknown) => ({ status: 0, text: String(error), ms: 0 }),
      );
      if (reply.status === 200) answered++;
      else failures.push(`${gateway}: ${reply.status} ${reply.text.slice(0, 200)}`);
      longestMs = Math.max(longestMs, reply.ms);
      await sleep(intervalMs);
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return { answered, failures, longestMs };
    },
  };
}

/** How long after `since` (epoch ms) the app's config cache logged that Redis answered again. */
function backOnRedis(app: AppProcess, since: number): number | undefined {
  for (const line of app.output().split("\n")) {
    const at = Date.parse(/"time":"([^"]+)"/.exec(line)?.[1] ?? "");
    if (at >= since && line.includes('"message":"redis is back"')) return at - since;
  }
  return undefined;
}

// The split deployment with every app on Redis through Sentinel (TLS, an ACL user): the primary
// is SIGKILLed under traffic, and every Redis use of every app must follow the new primary, no
// app restarted: the config cache and its invalidations, the limits, the costing jobs on BullMQ.
describe.skipIf(!secure)(
  "end to end: Redis primary SIGKILLed, Sentinel failover (GATEWAY_TEST_SECURE_ENGINES=1)",
  () => {
    let d: SplitDeployment<SentinelRedisEngines>;
    let org: TestOrg;
    beforeAll(async () => {
      d = await startSplitDeployment({ engines: sentinelRedisEngines });
      org = await createTestOrg(d);
    }, 240_000);
    afterAll(() => d?.close(), 120_000);

    const redis = (command: string, args: string[] = []) =>
      infra("secure/redis", command, d.engines.redisEnv, args);
    let doomed: { id: string; value: string };

    it("keeps answering known keys on both gateways, none waiting over 1 s, while the primary is killed and replaced", async () => {
      // a second key both gateways hold before the kill, revoked after it (the next test)
      doomed = await createApiKey(d, org);
      for (const g of d.gateways)
        expect((await gatewayCall(g, doomed.value, "/v1/chat/completions", chatBody(0))).status).toBe(200);
      const traffic = timedTraffic(d.gateways, org.apiKey);
      await sleep(3_000);
      const old = await redis("primary");
      await redis("kill-primary");
      // the script's last step is the SIGKILL
      const killed = Date.now();
      // failed over once the sentinels name another primary and it takes a write as the apps' user
      const failoverMs = await within(
        30_000,
        async () => {
          const now = await redis("primary").catch(() => old);
          if (now === old) return undefined;
          const wrote = await redis("cli", [now.split(":")[1]!, "set", "gw:failover-probe", "1"]).catch(
            (error: unknown) => String(error),
          );
          return wrote === "OK" ? Date.now() - killed : undefined;
        },
        100,
      );
      // the traffic goes on past the failover, onto the new primary
      await sleep(5_000);
      const { answered, failures, longestMs } = await traffic.stop();
      const back = (["gateway1", "gateway2", "controlPlane"] as const).map((app) =>
        backOnRedis(d.apps[app], killed),
      );
      console.log(
        `redis primary ${old} SIGKILLed under traffic: ${answered} calls answered, ${failures.length} not, ` +
          `longest wait ${longestMs.toFixed(0)} ms; new primary ${await redis("primary")} serving ${failoverMs} ms ` +
          `after the kill; gateways and control plane back on Redis after ${back.join(", ")} ms`,
      );
      if (failures.length > 0) d.dumpLogs();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(100);
      expect(longestMs).toBeLessThan(1_000);
      expect(back.every((ms) => ms !== undefined)).toBe(true);
    }, 120_000);

    it("after the failover, refuses a revoked key on both gateways within 2 s and admits a key created after it on both", async () => {
      const refusedAfter = await revokeApiKey(d, org, doomed);
      const fresh = await createApiKey(d, org);
      const admitted = await Promise.all(
        d.gateways.map(
          async (g) => (await gatewayCall(g, fresh.value, "/v1/chat/completions", chatBody(1))).status,
        ),
      );
      console.log(
        `after the redis failover: a revoked key refused by the gateways after ${refusedAfter.join(", ")} ms; ` +
          `a key created after it answered ${admitted.join(", ")}`,
      );
      expect(admitted).toEqual(d.gateways.map(() => 200));
    });

    it("after the failover, counts a rate limit across both gateways again", async () => {
      // both gateways count in Redis again, neither alone (`gateway_limits_local_fallback`; a
      // command that timed out on a loaded machine leaves one alone for a second)
      await within(10_000, async () => {
        const seen = await Promise.all(d.gateways.map(scrape));
        return seen.every((m) => m.value("gateway_limits_local_fallback") === 0) ? true : undefined;
      });
      await expectSharedRate(d, org, "after the redis failover", "rpm-after-failover");
    }, 120_000);

    it("after the failover, runs the costing jobs (pricing, and re-pricing on a price change)", async () => {
      await expectRepricedOnPriceChange(d);
      // every call so far is priced, those of the traffic across the kill too: no pricing job was
      // left behind on the old primary
      await within(30_000, async () => {
        const costing = await scrape(d.probeUrl("costingWorker"));
        const waiting = costing.value("costing_jobs_waiting", { job: "costing.price-calls" });
        return costing.value("costing_calls_awaiting_price") === 0 && waiting === 0 ? true : undefined;
      });
    }, 90_000);
  },
);
