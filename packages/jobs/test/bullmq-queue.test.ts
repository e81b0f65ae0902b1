import { randomBytes } from "node:crypto";
import { silentLogger } from "@gateway/contracts";
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { createBullmqQueue, type DeadLetter, deadLetterQueueName } from "../src/index.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const url = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:56379";

describe.skipIf(!engines)("BullMQ job queue on Redis (GATEWAY_TEST_ENGINES=1)", () => {
  it("runs jobs, retries failures with backoff, dead-letters what keeps failing, and dedupes by id", async () => {
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const dead: DeadLetter[] = [];
    const queue = createBullmqQueue({ url, prefix, log: silentLogger, onDeadLetter: (l) => dead.push(l) });
    const done: unknown[] = [];
    let flaky = 2;
    queue.process(
      "price",
      async (payload) => {
        if (payload === "flaky" && flaky-- > 0) throw new Error("try again");
        if (payload === "broken") throw new Error("always");
        done.push(payload);
      },
      { attempts: 3, backoffMs: 20 },
    );
    await queue.add("price", "ok");
    await queue.add("price", "flaky");
    await queue.add("price", "broken");
    await queue.add("price", "once", { jobId: "req:1", delayMs: 200 });
    await queue.add("price", "once", { jobId: "req:1", delayMs: 200 });
    await queue.idle();
    await new Promise((r) => setTimeout(r, 100));
    expect(done.sort()).toEqual(["flaky", "ok", "once"]);
    expect(dead).toEqual([{ name: "price", payload: "broken", error: "Error: always" }]);
    const parked = new Queue(deadLetterQueueName("price"), { connection: { url }, prefix });
    expect(await parked.count()).toBe(1);
    await parked.close();
    await queue.close();
  }, 30_000);
});
