// The secured Redis's smoke check (infra/secure/smoke.sh): who gets in, what the apps' user may
// touch, and the primary SIGKILLed while a client writes and another listens, through Sentinel.
import { execFileSync } from "node:child_process";
import { dependency, env, expectOk, expectRefused, figure, finish, pem } from "./common.mjs";

const Redis = dependency("packages/cache", "ioredis").default;
const primaryPort = Number(env("SECURE_REDIS_PRIMARY_PORT"));
const sentinels = env("SECURE_REDIS_SENTINELS")
  .split(",")
  .map((hp) => ({ host: "127.0.0.1", port: Number(hp.split(":")[1]) }));
const name = env("SECURE_REDIS_MASTER_NAME");
const user = { username: env("SECURE_REDIS_USER"), password: env("SECURE_REDIS_PASSWORD") };
const sentinelPassword = env("SECURE_REDIS_SENTINEL_PASSWORD");
const script = new URL("../redis.sh", import.meta.url).pathname;
const once = {
  lazyConnect: true,
  retryStrategy: () => null,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
};

/** Connects once (no retries), runs `use`, and leaves. */
async function session(options, use = (r) => r.ping()) {
  const redis = new Redis({ host: "127.0.0.1", port: primaryPort, ...once, ...options });
  // a refused handshake or AUTH shows as an "error" event; connect() only says "closed"
  let refusal;
  redis.on("error", (error) => {
    refusal ??= error;
  });
  try {
    await redis.connect().catch((error) => Promise.reject(refusal ?? error));
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
const tls = { ca: pem("ca.crt") };

console.log("redis: who gets in");
await expectOk("TLS + ACL user: the cache's keys, channel and a script", () =>
  session({ tls, ...user }, async (r) => {
    await r.set("gw:config:smoke", "1");
    await r.publish("gw:config:invalidate", "smoke");
    return `eval ${await r.eval("return redis.call('incr', KEYS[1])", 1, "gw:limits:smoke")}`;
  }),
);
await expectOk("mutual TLS with the CA's client certificate", () =>
  session({ tls: { ...tls, cert: pem("client.crt"), key: pem("client.key") }, ...user }),
);
await expectRefused("a wrong password", () => session({ tls, ...user, password: "wrong" }));
await expectRefused("the default user", () => session({ tls, password: user.password }));
await expectRefused("plaintext (no TLS)", () => session({ ...user }));
await expectRefused("TLS trusting the wrong CA", () =>
  session({ tls: { ca: pem("wrong-ca.crt") }, ...user }),
);
await expectRefused("a client certificate of the wrong CA", () =>
  session({ tls: { ...tls, cert: pem("wrong-client.crt"), key: pem("wrong-client.key") }, ...user }),
);
await expectRefused("a key outside gw:*", () => session({ tls, ...user }, (r) => r.set("other", "1")));
await expectRefused("a channel outside gw:*", () =>
  session({ tls, ...user }, (r) => r.publish("other", "1")),
);
await expectRefused("an admin command (CONFIG GET)", () =>
  session({ tls, ...user }, (r) => r.config("GET", "maxmemory-policy")),
);
await expectRefused("a sentinel without its password", () =>
  session({ tls, port: sentinels[0].port }, (r) => r.call("SENTINEL", "MASTERS")),
);

// the way an app would connect: through the sentinels, TLS to them and to the data nodes
const viaSentinels = {
  sentinels,
  name,
  sentinelPassword,
  enableTLSForSentinelMode: true,
  sentinelTLS: tls,
  tls,
  ...user,
};
const primaryNow = () =>
  session({ tls, port: sentinels[1].port, password: sentinelPassword }, (r) =>
    r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).then((a) => a.join(":")),
  );

console.log("redis: the primary SIGKILLed under a writer and a subscriber (through Sentinel)");
const writer = new Redis(viaSentinels);
const subscriber = new Redis(viaSentinels);
for (const r of [writer, subscriber]) r.on("error", () => {});
const heard = [];
subscriber.on("message", (_channel, message) => heard.push(message));
await subscriber.subscribe("gw:config:invalidate");
await expectOk(
  "writes every 50 ms; after the kill: a new primary, writes and pub/sub again",
  async () => {
    const before = await primaryNow();
    let killedAt = 0;
    let promotedAt = 0;
    let writtenAt = 0;
    let failed = 0;
    for (let i = 0; !writtenAt || !promotedAt; i++) {
      if (i === 20) {
        execFileSync(script, ["kill-primary"], { stdio: "ignore" });
        killedAt = performance.now();
      }
      const t0 = performance.now();
      const ok = await Promise.race([
        writer.set("gw:smoke:n", String(i)).then(
          () => true,
          () => false,
        ),
        new Promise((r) => setTimeout(() => r(false), 1_000)),
      ]);
      if (!ok) failed++;
      if (killedAt && ok && t0 > killedAt && !writtenAt && (await writer.role())[0] === "master")
        writtenAt = performance.now();
      if (killedAt && !promotedAt && (await primaryNow().catch(() => before)) !== before)
        promotedAt = performance.now();
      if (performance.now() - (killedAt || t0) > 60_000) throw new Error("no failover within 60 s");
      await new Promise((wait) => setTimeout(wait, 50));
    }
    figure(`sentinels named a new primary ${Math.round(promotedAt - killedAt)} ms after the SIGKILL`);
    figure(
      `first write on the new primary ${Math.round(writtenAt - killedAt)} ms after it (${failed} writes failed)`,
    );
    await writer.publish("gw:config:invalidate", "after-failover");
    for (let t = 0; !heard.includes("after-failover"); t += 50) {
      if (t > 10_000) throw new Error("the subscriber heard nothing after the failover");
      await new Promise((wait) => setTimeout(wait, 50));
    }
    return `${before} -> ${await primaryNow()}`;
  },
  90_000,
);
writer.disconnect();
subscriber.disconnect();

await expectOk("a BullMQ job under gw:jobs, through Sentinel, on the new primary", async () => {
  const { Queue, Worker } = dependency("packages/jobs", "bullmq");
  const connection = { ...viaSentinels, maxRetriesPerRequest: null };
  const queue = new Queue("smoke", { connection, prefix: "gw:jobs" });
  let worker;
  try {
    const done = new Promise((resolve, reject) => {
      worker = new Worker("smoke", async (job) => job.data.n * 2, { connection, prefix: "gw:jobs" });
      worker.on("completed", (_job, result) => resolve(result));
      worker.on("failed", (_job, error) => reject(error));
      worker.on("error", reject);
    });
    await queue.add("double", { n: 21 });
    return `result ${await done}`;
  } finally {
    await worker?.close();
    await queue.close();
  }
});
finish();
