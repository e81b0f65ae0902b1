import type { DeadLetter, JobQueue, JobStats, RetryPolicy } from "./job-queue.ts";

const defaultPolicy: RetryPolicy = { attempts: 5, backoffMs: 500 };

interface Job {
  name: string;
  payload: unknown;
  jobId: string | undefined;
  attempt: number;
}

interface Handler {
  handler: (payload: unknown) => Promise<void>;
  policy: RetryPolicy;
}

/**
 * The embedded job runner: jobs run on later ticks of this process, several at once, with
 * exponential backoff. Jobs that exhaust their attempts go to `onDeadLetter`. A job added
 * before its name has a handler waits for one, as a BullMQ job waits for a worker: the process
 * may enqueue (the control plane, seeding prices) before the costing worker has started.
 */
export function createInProcessQueue(onDeadLetter: (letter: DeadLetter) => void = () => {}): JobQueue {
  const handlers = new Map<string, Handler>();
  // jobs added for a name no handler takes yet, with their delays, by name
  const unclaimed = new Map<string, { job: Job; delayMs: number }[]>();
  const pendingIds = new Set<string>();
  const running = new Set<Promise<void>>();
  const stats = new Map<string, JobStats>();
  // jobs scheduled and not done, by name
  const depths = new Map<string, number>();
  let closed = false;

  function statsOf(name: string): JobStats {
    let entry = stats.get(name);
    if (!entry) {
      entry = { name, failures: 0, deadLettered: 0 };
      stats.set(name, entry);
    }
    return entry;
  }

  function schedule(job: Job, delayMs: number) {
    const entry = handlers.get(job.name);
    if (!entry) {
      unclaimed.set(job.name, [...(unclaimed.get(job.name) ?? []), { job, delayMs }]);
      return;
    }
    depths.set(job.name, (depths.get(job.name) ?? 0) + 1);
    const run = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => execute(job, entry));
    running.add(run);
    void run.finally(() => {
      running.delete(run);
      depths.set(job.name, (depths.get(job.name) ?? 1) - 1);
    });
  }

  async function execute(job: Job, entry: Handler) {
    if (closed) return;
    try {
      await entry.handler(job.payload);
      if (job.jobId) pendingIds.delete(job.jobId);
    } catch (error) {
      const counts = statsOf(job.name);
      counts.failures++;
      if (job.attempt + 1 >= entry.policy.attempts) {
        counts.deadLettered++;
        if (job.jobId) pendingIds.delete(job.jobId);
        onDeadLetter({ name: job.name, payload: job.payload, error: String(error) });
        return;
      }
      schedule({ ...job, attempt: job.attempt + 1 }, entry.policy.backoffMs * 2 ** job.attempt);
    }
  }

  return {
    async add(name, payload, options = {}) {
      if (options.jobId) {
        if (pendingIds.has(options.jobId)) return;
        pendingIds.add(options.jobId);
      }
      schedule({ name, payload, jobId: options.jobId, attempt: 0 }, options.delayMs ?? 0);
    },
    process(name, handler, policy = defaultPolicy) {
      if (handlers.has(name)) throw new Error(`a worker for ${name} is already registered`);
      handlers.set(name, { handler, policy });
      const waiting = unclaimed.get(name) ?? [];
      unclaimed.delete(name);
      for (const { job, delayMs } of waiting) schedule(job, delayMs);
    },
    // Jobs no handler takes are not waited for: nothing in this process would ever run them.
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    stats: () => [...handlers.keys()].map((name) => ({ ...statsOf(name) })),
    depth: async (name) => (depths.get(name) ?? 0) + (unclaimed.get(name)?.length ?? 0),
    async close() {
      closed = true;
      await Promise.all([...running]);
    },
  };
}
