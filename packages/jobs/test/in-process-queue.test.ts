import { describe, expect, it } from "vitest";
import { createInProcessQueue, type DeadLetter } from "../src/index.ts";
import { addPriceJobs } from "./support/price-jobs.ts";

describe("in-process job queue", () => {
  it("runs jobs, retries failures with backoff, and dead-letters what keeps failing", async () => {
    const dead: DeadLetter[] = [];
    const queue = createInProcessQueue((letter) => dead.push(letter));
    const done = await addPriceJobs(queue, 5);
    await queue.idle();
    expect(done.sort()).toEqual(["flaky", "ok"]);
    expect(dead).toEqual([{ name: "price", payload: "broken", error: "Error: always" }]);
    // what the metrics read: "flaky" failed twice, "broken" three times and was given up
    expect(queue.stats()).toEqual([{ name: "price", failures: 5, deadLettered: 1 }]);
    expect(await queue.depth("price")).toBe(0);
  });

  it("does not add a job twice while one with the same id is pending", async () => {
    const queue = createInProcessQueue();
    const seen: unknown[] = [];
    queue.process("rollup", async (payload) => void seen.push(payload));
    await queue.add("rollup", 1, { jobId: "hour-10" });
    await queue.add("rollup", 2, { jobId: "hour-10" });
    await queue.idle();
    await queue.add("rollup", 3, { jobId: "hour-10" });
    await queue.idle();
    expect(seen).toEqual([1, 3]);
  });

  it("keeps a job added before its handler until one is registered, as a BullMQ queue does", async () => {
    const queue = createInProcessQueue();
    const seen: unknown[] = [];
    await queue.add("reprice", "early");
    await queue.add("reprice", "delayed", { delayMs: 10 });
    // nothing in this process runs it yet: idle does not wait for it, and it is still counted
    await queue.idle();
    expect(await queue.depth("reprice")).toBe(2);
    queue.process("reprice", async (payload) => void seen.push(payload));
    await queue.idle();
    expect(seen).toEqual(["early", "delayed"]);
    expect(await queue.depth("reprice")).toBe(0);
  });
});
