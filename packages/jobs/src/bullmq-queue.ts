import type { Logger } from "@gateway/contracts";
import { type Job, Queue, type RedisOptions, Worker } from "bullmq";
import type { DeadLetter, JobQueue, RetryPolicy } from "./job-queue.ts";

export interface BullmqQueueOptions {
  /** A `redis://` URL, or ioredis's options (TLS, an ACL user, Sentinel: see `@gateway/engines`). */
  url: string | RedisOptions;
  log: Logger;
  /** Prefix of BullMQ's Redis keys. */
  prefix?: string;
  /**
   * Retry policy per job name, for jobs added by a process that does not run them (a policy
   * given to `process` in this process wins). Default: 5 attempts, 500 ms doubling.
   */
  policies?: Record<string, RetryPolicy>;
  onDeadLetter?: (letter: DeadLetter) => void;
  concurrency?: number;
}

const defaultPolicy: RetryPolicy = { attempts: 5, backoffMs: 500 };
/** Jobs that used every attempt are copied here (queue `<name>.dead`) for an operator to inspect or replay. */
export const deadLetterQueueName = (name: string) => `${name}.dead`;

/**
 * The job queue on BullMQ: one BullMQ queue per job name, retried with exponential backoff,
 * and a dead-letter queue per name for jobs that keep failing. A `jobId` dedupes while the job
 * is pending (BullMQ refuses a second job with a live id; completed jobs are removed).
 */
export function createBullmqQueue(options: BullmqQueueOptions): JobQueue {
  const prefix = options.prefix ?? "gw-jobs";
  // workers block on Redis; BullMQ requires unlimited retries per request on their connections
  const target = typeof options.url === "string" ? { url: options.url } : options.url;
  const connection = { ...target, maxRetriesPerRequest: null };
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const policies = new Map(Object.entries(options.policies ?? {}));
  // dead-letter writes started by 'failed' events; close() waits for them before closing queues
  const deadLettering = new Set<Promise<void>>();
  // failed attempts and dead letters of this process's workers, by job name
  const failures = new Map<string, { failures: number; deadLettered: number }>();
  let queuesClosed = false;

  const queue = (name: string) => {
    let q = queues.get(name);
    if (!q) {
      // a queue opened after close() would hold a Redis connection that nothing ever closes
      if (queuesClosed) throw new Error(`job queue is closed; cannot open queue ${name}`);
      q = new Queue(name, { connection, prefix });
      q.on("error", (error) => options.log.warn("job queue error", { name, error }));
      queues.set(name, q);
    }
    return q;
  };

  async function deadLetter(name: string, job: Job, error: Error) {
    const letter: DeadLetter = { name, payload: job.data, error: String(error) };
    await queue(deadLetterQueueName(name)).add(name, { ...letter, failedAt: new Date().toISOString() });
    options.onDeadLetter?.(letter);
    options.log.error("job dead-lettered", { name, jobId: job.id, error });
  }

  /** Jobs of a queue not done yet. */
  async function depthOf(q: Queue): Promise<number> {
    const counts = await q.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children");
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  return {
    async add(name, payload, addOptions = {}) {
      const policy = policies.get(name) ?? defaultPolicy;
      await queue(name).add(name, payload, {
        // BullMQ keeps ':' for its own keys
        ...(addOptions.jobId ? { jobId: addOptions.jobId.replaceAll(":", "_") } : {}),
        ...(addOptions.delayMs ? { delay: addOptions.delayMs } : {}),
        attempts: policy.attempts,
        backoff: { type: "exponential", delay: policy.backoffMs },
        removeOnComplete: true,
        removeOnFail: { count: 1_000 },
      });
    },
    process(name, handler, policy) {
      if (workers.some((w) => w.name === name)) throw new Error(`a worker for ${name} is already registered`);
      if (policy) policies.set(name, policy);
      const worker = new Worker(name, async (job: Job) => handler(job.data), {
        connection,
        prefix,
        concurrency: options.concurrency ?? 4,
      });
      const counts = { failures: 0, deadLettered: 0 };
      failures.set(name, counts);
      worker.on("failed", (job, error) => {
        counts.failures++;
        if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
        counts.deadLettered++;
        // an event handler's rejection is unhandled and would end the process: log it instead.
        // The job itself stays in BullMQ's failed set (removeOnFail keeps the last 1,000).
        const write = deadLetter(name, job, error).catch((failure: unknown) =>
          options.log.error("dead-lettering a job failed", {
            name,
            jobId: job.id,
            error,
            failure,
          }),
        );
        deadLettering.add(write);
        void write.finally(() => deadLettering.delete(write));
      });
      worker.on("error", (error) => options.log.warn("job worker error", { name, error }));
      workers.push(worker);
      queue(name);
    },
    async idle() {
      for (;;) {
        let busy = 0;
        for (const [name, q] of queues) if (!name.endsWith(".dead")) busy += await depthOf(q);
        if (busy === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stats: () => [...failures].map(([name, counts]) => ({ name, ...counts })),
    depth: (name) => depthOf(queue(name)),
    async close() {
      // workers first: a job that fails while they stop still starts its dead-letter write
      await Promise.all(workers.map((w) => w.close()));
      while (deadLettering.size > 0) await Promise.all(deadLettering);
      queuesClosed = true;
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
