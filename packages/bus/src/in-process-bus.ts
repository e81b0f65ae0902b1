import { deliver } from "./deliver.ts";
import type { EventBus, Subscription } from "./event-bus.ts";

const maxBatch = 512;

interface GroupQueue {
  subscription: Subscription;
  pending: unknown[];
  draining: Promise<void> | null;
  lingering: NodeJS.Timeout | null;
}

export interface InProcessBusOptions {
  onHandlerError?: (group: string, error: unknown) => void;
  /**
   * How long the first event of a batch may wait for others (like a Kafka producer's linger).
   * Consumers pay per batch (one insert, one transaction), so under load a short wait makes
   * their work per event much smaller; a full batch goes at once.
   */
  lingerMs?: number;
  /**
   * An event its group's handler failed on, alone, 3 times (after its batch failed 3 times):
   * it is skipped so the group's later events are not held up behind it forever.
   */
  onDeadLetter?: (group: string, event: unknown, error: unknown) => void;
  /** Wait before delivering a failed batch again. */
  retryDelayMs?: number;
}

/**
 * The embedded bus: the same contract as Kafka, within one process. Events are delivered on a
 * later tick, never inside `publish`, so a slow consumer never delays the response path.
 */
export function createInProcessBus(options: InProcessBusOptions = {}): EventBus {
  const groupsByTopic = new Map<string, GroupQueue[]>();
  const lingerMs = options.lingerMs ?? 0;
  const retryDelayMs = options.retryDelayMs ?? 200;
  let closed = false;

  function schedule(queue: GroupQueue): void {
    if (queue.draining || closed) return;
    if (lingerMs === 0 || queue.pending.length >= maxBatch) {
      drain(queue);
      return;
    }
    queue.lingering ??= setTimeout(() => drain(queue), lingerMs);
  }

  function drain(queue: GroupQueue): void {
    if (queue.lingering) clearTimeout(queue.lingering);
    queue.lingering = null;
    if (queue.draining || closed) return;
    queue.draining = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      while (queue.pending.length > 0 && !closed) {
        const { group } = queue.subscription;
        const done = await deliver(queue.pending.slice(0, maxBatch), {
          handle: (batch) => queue.subscription.handle(batch),
          retryDelayMs,
          onError: (error) => options.onHandlerError?.(group, error),
          onDeadLetter: (event, error) => options.onDeadLetter?.(group, event, error),
          keepGoing: async () => !closed,
        });
        queue.pending.splice(0, done);
      }
      queue.draining = null;
    });
  }

  return {
    publish(topic, _key, payload) {
      for (const queue of groupsByTopic.get(topic) ?? []) {
        queue.pending.push(payload);
        schedule(queue);
      }
    },
    async subscribe(subscription) {
      const queues = groupsByTopic.get(subscription.topic) ?? [];
      if (queues.some((q) => q.subscription.group === subscription.group)) {
        throw new Error(`group ${subscription.group} already subscribed to ${subscription.topic}`);
      }
      queues.push({ subscription, pending: [], draining: null, lingering: null });
      groupsByTopic.set(subscription.topic, queues);
    },
    async flush() {
      for (;;) {
        const busy = [...groupsByTopic.values()].flat().filter((q) => q.draining || q.pending.length > 0);
        if (busy.length === 0 || closed) return;
        for (const queue of busy) drain(queue);
        await Promise.all(busy.map((q) => q.draining));
      }
    },
    async close() {
      closed = true;
      const queues = [...groupsByTopic.values()].flat();
      for (const queue of queues) if (queue.lingering) clearTimeout(queue.lingering);
      await Promise.all(queues.map((q) => q.draining));
    },
  };
}
