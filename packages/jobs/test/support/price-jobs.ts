import type { JobQueue } from "../../src/index.ts";

/**
 * The retry contract both queues must keep: a "price" handler that succeeds on "ok", fails twice
 * then succeeds on "flaky", and always fails on "broken"; those three jobs are added. Returns the
 * payloads the handler completed.
 */
export async function addPriceJobs(queue: JobQueue, backoffMs: number): Promise<unknown[]> {
  const done: unknown[] = [];
  let flaky = 2;
  queue.process(
    "price",
    async (payload) => {
      if (payload === "flaky" && flaky-- > 0) throw new Error("try again");
      if (payload === "broken") throw new Error("always");
      done.push(payload);
    },
    { attempts: 3, backoffMs },
  );
  await queue.add("price", "ok");
  await queue.add("price", "flaky");
  await queue.add("price", "broken");
  return done;
}
