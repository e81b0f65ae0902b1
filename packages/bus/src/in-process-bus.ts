import { deliver } from "./deliver.ts";
import type { EventBus, EventHeaders, GroupStats, Subscription } from "./event-bus.ts";
import { HandOnCounter } from "./hand-on-counter.ts";
import type { OpenedJournal } from "./journal.ts";
import { checkPayload, decodePayload, encodePayload } from "./payload.ts";

/** An event waiting for a group, with the headers it was published with. */
interface Pending {
  payload: unknown;
  headers: EventHeaders | undefined;
}

interface GroupQueue {
  subscription: Subscription;
  pending: Pending[];
  /** The journal's number for each pending event, in step with `pending`. */
  seqs: number[];
  counter: HandOnCounter;
  stats: GroupStats;
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
  /** Events a delivery holds at most (512); a group with this many waiting gets them at once. */
  maxBatch?: number;
  /**
   * An event its group's handler failed on, alone, 8 times (after its batch failed 3 times):
   * it is skipped so the group's later events are not held up behind it forever.
   */
  onDeadLetter?: (group: string, event: unknown, error: unknown) => void;
  /** Wait before delivering a failed batch again. */
  retryDelayMs?: number;
  /**
   * Every event is written here, as its encoded payload (`encodePayload`), with the others of its
   * turn, at the turn's end (`whenJournaled`), and leaves once each group has handled it; what an
   * earlier process left is published again by `replayJournal`.
   */
  journal?: OpenedJournal;
}

export interface InProcessBus extends EventBus {
  /**
   * Publishes again what the journal held from an earlier process, then drops its old segments.
   * Call it once every consumer has subscribed: an event with no subscriber goes nowhere.
   */
  replayJournal(): number;
}

/**
 * The embedded bus: the same contract as Kafka, within one process. Events are delivered on a
 * later tick, never inside `publish`, so a slow consumer never delays the response path. Handlers
 * get the published payload itself (the same object, the same Buffer for a binary one); an event
 * replayed from the journal, its decoding (`decodePayload`).
 */
export function createInProcessBus(options: InProcessBusOptions = {}): InProcessBus {
  const groupsByTopic = new Map<string, GroupQueue[]>();
  const journal = options.journal?.journal;
  const lingerMs = options.lingerMs ?? 0;
  const maxBatch = options.maxBatch ?? 512;
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

  /** Delivers what the queue holds: a partial batch left after a delivery waits for the linger, unless `all`. */
  function drain(queue: GroupQueue, all = false): void {
    if (queue.lingering) clearTimeout(queue.lingering);
    queue.lingering = null;
    if (queue.draining || closed) return;
    queue.draining = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      while (queue.pending.length > 0 && !closed) {
        const { group } = queue.subscription;
        const done = await deliver(queue.pending.slice(0, maxBatch), {
          handle: (batch) =>
            queue.subscription.handle(
              batch.map((p) => p.payload),
              batch.map((p) => p.headers),
            ),
          stats: queue.stats,
          retryDelayMs,
          onError: (error) => options.onHandlerError?.(group, error),
          onDeadLetter: (event, error) => options.onDeadLetter?.(group, event.payload, error),
          keepGoing: async () => !closed,
        });
        queue.pending.splice(0, done);
        queue.seqs.splice(0, done);
        queue.counter.handOn(done);
        settleJournal();
        // Under steady load the next partial batch waits for the linger too, as the first did (the
        // Kafka bus's producer does the same): a batch holds a linger's worth of events, not only
        // those that came while the last one was handled (~55 calls at 4,500 a second, not ~270)
        if (!all && lingerMs > 0 && queue.pending.length < maxBatch) break;
      }
      queue.draining = null;
      if (queue.pending.length > 0) schedule(queue);
    });
  }

  /** The journal keeps what some group has yet to handle. */
  function settleJournal() {
    if (!journal) return;
    let below = journal.next;
    for (const queues of groupsByTopic.values())
      for (const queue of queues) if (queue.seqs.length > 0) below = Math.min(below, queue.seqs[0]!);
    journal.settle(below);
  }

  function publish(topic: string, key: string, payload: unknown, headers?: EventHeaders) {
    // a payload that is not one throws (see `EventBus.publish`), whether or not anyone listens
    checkPayload(payload);
    enqueue(topic, key, payload, undefined, headers);
  }

  /** Queues an event for each group, journaled as `value` (its payload's encoding, made when not given). */
  function enqueue(
    topic: string,
    key: string,
    payload: unknown,
    value: Buffer | undefined,
    headers?: EventHeaders,
  ) {
    const queues = groupsByTopic.get(topic);
    if (!queues) return;
    let seq = 0;
    if (journal) {
      const encoded = value ?? encodePayload(payload);
      seq = journal.append(
        headers ? { topic, key, value: encoded, headers } : { topic, key, value: encoded },
      );
    }
    for (const queue of queues) {
      queue.pending.push({ payload, headers });
      queue.seqs.push(seq);
      queue.counter.take();
      schedule(queue);
    }
  }

  return {
    publish,
    whenJournaled: (then) => (journal ? journal.whenWritten(then) : then()),
    maxEventBytes: Number.POSITIVE_INFINITY,
    handsOverPayloads: true,
    replayJournal() {
      const leftover = options.journal?.leftover.splice(0) ?? [];
      let replayed = 0;
      for (const record of leftover) {
        // a record whose head survived a host crash but whose payload did not is skipped, not fatal
        let payload: unknown;
        try {
          payload = decodePayload(record.value);
        } catch (error) {
          options.onDeadLetter?.("journal", record.value.toString("utf8"), error);
          continue;
        }
        // journaled again as the bytes it was read as
        enqueue(record.topic, record.key, payload, record.value, record.headers);
        replayed++;
      }
      options.journal?.dropLeftover();
      return replayed;
    },
    consuming: () => true,
    async subscribe(subscription) {
      const queues = groupsByTopic.get(subscription.topic) ?? [];
      if (queues.some((q) => q.subscription.group === subscription.group)) {
        throw new Error(`group ${subscription.group} already subscribed to ${subscription.topic}`);
      }
      const queue: GroupQueue = {
        subscription,
        pending: [],
        seqs: [],
        counter: new HandOnCounter(),
        stats: {
          group: subscription.group,
          topic: subscription.topic,
          handled: 0,
          deadLettered: 0,
          failedAttempts: 0,
          lag: async () => queue.pending.length,
        },
        draining: null,
        lingering: null,
      };
      queues.push(queue);
      groupsByTopic.set(subscription.topic, queues);
    },
    async flush() {
      for (;;) {
        const busy = [...groupsByTopic.values()].flat().filter((q) => q.draining || q.pending.length > 0);
        if (busy.length === 0 || closed) return;
        for (const queue of busy) drain(queue, true);
        await Promise.all(busy.map((q) => q.draining));
      }
    },
    async handedOn() {
      // closed: what is left stays in the journal for the next start
      if (closed) return;
      await Promise.all([...groupsByTopic.values()].flat().map((q) => q.counter.wait()));
    },
    stats: () => ({
      spooledBytes: 0,
      publishFailures: 0,
      groups: [...groupsByTopic.values()].flat().map((q) => q.stats),
    }),
    async close() {
      closed = true;
      const queues = [...groupsByTopic.values()].flat();
      for (const queue of queues) queue.counter.releaseAll();
      for (const queue of queues) if (queue.lingering) clearTimeout(queue.lingering);
      await Promise.all(queues.map((q) => q.draining));
      // what no group handled stays in the journal for the next start
      settleJournal();
      journal?.close();
    },
  };
}
