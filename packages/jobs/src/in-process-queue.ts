import type { DeadLetter, JobQueue, JobStats, RetryPolicy } from "./job-queue.ts";

const defaultPolicy: RetryPolicy = { attempts: 5, backoffMs: 500 };

interface Job {
  name: string;
  payload: unknown;
  jobId: string | undefined;
  attempt: number;
}

/**
 * The embedded job runner: jobs run on later ticks of this process, one at a time per name,
 * with exponential backoff. Jobs that exhaust their attempts go to `onDeadLetter`.
 */
export function createInProcessQueue(onDeadLetter: (letter: DeadLetter) => void = () => {}): JobQueue {
  const handlers = new Map<string, { handler: (payload: unknown) => Promise<void>; policy: RetryPolicy }>();
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
    depths.set(job.name, (depths.get(job.name) ?? 0) + 1);
    const run = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => execute(job));
    running.add(run);
    void run.finally(() => {
      running.delete(run);
      depths.set(job.name, (depths.get(job.name) ?? 1) - 1);
    });
  }

  async function execute(job: Job) {
    const entry = handlers.get(job.name);
    if (!entry || closed) return;
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
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    stats: () => [...handlers.keys()].map((name) => ({ ...statsOf(name) })),
    depth: async (name) => depths.get(name) ?? 0,
    async close() {
      closed = true;
      await Promise.all([...running]);
    },
  };
}
