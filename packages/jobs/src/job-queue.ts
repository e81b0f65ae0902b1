/**
 * Background jobs (pricing, re-pricing): enqueued by one part, run by a worker, retried
 * with backoff, and parked as dead letters when they keep failing. BullMQ in the distributed
 * deployment; an in-process runner in the embedded one.
 */
export interface JobQueue {
  /** Enqueues `payload` for `name`. A job with the same `jobId` that is still pending is not added twice. */
  add(name: string, payload: unknown, options?: { jobId?: string; delayMs?: number }): Promise<void>;
  /** Runs every job of `name` through `handler`; one worker per name per process. */
  process(name: string, handler: (payload: unknown) => Promise<void>, policy?: RetryPolicy): void;
  /** Resolves when no job is pending or running. */
  idle(): Promise<void>;
  /** For metrics: the names this process works on, with their failures in this process. */
  stats(): JobStats[];
  /** Jobs of `name` not done yet: waiting, delayed for a retry, or running (on BullMQ: in every process). */
  depth(name: string): Promise<number>;
  close(): Promise<void>;
}

/** What a process that only enqueues holds (the control plane): it never runs the jobs. */
export type JobProducer = Pick<JobQueue, "add">;

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

export interface DeadLetter {
  name: string;
  payload: unknown;
  error: string;
}

export interface JobStats {
  name: string;
  /** Attempts that threw in this process; each is retried until the policy's attempts are used up. */
  failures: number;
  /** Jobs that used up their attempts in this process. */
  deadLettered: number;
}
