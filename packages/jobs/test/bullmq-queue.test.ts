import { randomBytes } from "node:crypto";
import { type Logger, silentLogger } from "@gateway/contracts";
import { localEngines } from "@gateway/testkit";
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { createBullmqQueue, deadLetterQueueName } from "../src/bullmq-queue.ts";
import type { DeadLetter } from "../src/index.ts";
import { addPriceJobs } from "./support/price-jobs.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const url = localEngines().redisUrl;

describe.skipIf(!engines)("BullMQ job queue on Redis (GATEWAY_TEST_ENGINES=1)", () => {
  it("runs jobs, retries failures with backoff, dead-letters what keeps failing, and dedupes by id", async () => {
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const dead: DeadLetter[] = [];
    const queue = createBullmqQueue({ url, prefix, log: silentLogger, onDeadLetter: (l) => dead.push(l) });
    const done = await addPriceJobs(queue, 20);
    await queue.add("price", "once", { jobId: "req:1", delayMs: 200 });
    await queue.add("price", "once", { jobId: "req:1", delayMs: 200 });
    await queue.idle();
    await new Promise((r) => setTimeout(r, 100));
    expect(done.sort()).toEqual(["flaky", "ok", "once"]);
    expect(dead).toEqual([{ name: "price", payload: "broken", error: "Error: always" }]);
    const parked = new Queue(deadLetterQueueName("price"), { connection: { url }, prefix });
    expect(await parked.count()).toBe(1);
    await parked.close();
    // what the metrics read: "flaky" failed twice, "broken" three times and was given up
    expect(queue.stats()).toEqual([{ name: "price", failures: 5, deadLettered: 1 }]);
    expect(await queue.depth("price")).toBe(0);
    await queue.close();
  }, 30_000);

  it("close() waits for a dead-letter write that a failing job started", async () => {
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const dead: DeadLetter[] = [];
    const queue = createBullmqQueue({ url, prefix, log: silentLogger, onDeadLetter: (l) => dead.push(l) });
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    queue.process(
      "slow",
      async () => {
        started();
        await new Promise((r) => setTimeout(r, 200));
        throw new Error("late");
      },
      { attempts: 1, backoffMs: 10 },
    );
    await queue.add("slow", "x");
    await running;
    // the job fails while the worker stops; its dead letter must land before close() resolves
    await queue.close();
    expect(dead).toEqual([{ name: "slow", payload: "x", error: "Error: late" }]);
    const parked = new Queue(deadLetterQueueName("slow"), { connection: { url }, prefix });
    expect(await parked.count()).toBe(1);
    await parked.close();
  }, 30_000);

  it("logs a failed dead-letter write instead of leaving an unhandled rejection", async () => {
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const errors: string[] = [];
    const log: Logger = { ...silentLogger, error: (message) => errors.push(message) };
    const queue = createBullmqQueue({
      url,
      prefix,
      log,
      onDeadLetter: () => {
        throw new Error("the sink is down");
      },
    });
    queue.process(
      "doomed",
      async () => {
        throw new Error("always");
      },
      { attempts: 1, backoffMs: 10 },
    );
    await queue.add("doomed", "x");
    await queue.idle();
    await queue.close();
    expect(errors).toContain("dead-lettering a job failed");
  }, 30_000);
});
