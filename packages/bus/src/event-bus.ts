/**
 * The event bus every app publishes to and consumes from. Delivery is at least once, so
 * consumers must be idempotent by the event's natural key (`request_id`).
 */
export interface EventBus {
  /**
   * Never blocks the caller: the event is buffered and sent in batches. `headers` travel beside
   * the payload (Kafka message headers; kept in the spool and journal) and reach the subscribers
   * as they were: the W3C trace context of the call that published it.
   *
   * A payload is binary or JSON. A Node `Buffer` whose first byte is 0x00 (a byte no JSON text
   * starts with) is binary: it travels byte for byte and reaches every subscriber's `handle` as a
   * `Buffer` holding the same bytes (the bus keeps the given Buffer, not a copy: do not change it
   * after publishing). Any other payload travels as its JSON and reaches the subscribers as its
   * parse on Kafka, as the same object in process. A subscriber that may see both tells them
   * apart with `Buffer.isBuffer`.
   *
   * Throws only on a programming error, never for the bus's state: a Buffer payload that is
   * empty or does not start with 0x00, or (where the bus encodes it: on Kafka, in process with a
   * journal) a payload JSON cannot encode (a cycle, a BigInt, `undefined`).
   */
  publish(topic: string, key: string, payload: unknown, headers?: EventHeaders): void;
  /**
   * Runs `then` once every event published so far is in the bus's journal, safe from a kill of
   * the process (at once when it is, or when the bus keeps none). The events of one turn of the
   * event loop are journaled together at its end: a publisher that answers someone only once the
   * event is safe holds its answer until then.
   */
  whenJournaled(then: () => void): void;
  /**
   * The largest payload, in encoded bytes (a binary payload's length, a JSON payload's UTF-8
   * length), that the bus carries (on Kafka, the topic's message limit less room for the record's
   * key, headers and framing; unbounded in process). A larger one is dropped with an error log,
   * so a publisher whose events can grow past it (a call with its capture) cuts them.
   */
  readonly maxEventBytes: number;
  /**
   * True when the subscribers run in this process and get a binary payload as the very Buffer
   * that was published (the embedded bus); false when it crosses a broker (Kafka). A publisher
   * may then leave beside that Buffer what spares a subscriber re-reading it (`rememberFrame`).
   */
  readonly handsOverPayloads: boolean;
  /**
   * Delivers the topic's events to `handle` in batches, shared among every subscriber of the
   * same `group`. A batch whose handler throws is delivered again; after 3 failures its events
   * are delivered one at a time, and an event that fails alone 8 times (backing off, about 50 s
   * in all) is dead-lettered (see
   * the bus's `onDeadLetter`) and skipped, so one poison event cannot stall its group.
   */
  subscribe(subscription: Subscription): Promise<void>;
  /**
   * Whether every subscription is being fed: on Kafka, each holds at least one partition of its
   * topic (a member left without one by a rebalance, or out of its group, is not); in process,
   * always. A consumer's readiness.
   */
  consuming(): boolean;
  /**
   * Resolves once every event published so far has been handed on (delivered to the broker or
   * spooled to disk; in process, handled by every group), and drains whatever is waiting first.
   */
  flush(): Promise<void>;
  /**
   * Resolves once the events published so far have been handed on, as `flush`, but without
   * hurrying them or waiting for the ones published meanwhile: a publisher that keeps a large
   * event in memory at most once at a time waits on it.
   */
  handedOn(): Promise<void>;
  /** What the bus has done so far, for metrics: read when scraped, counted as plain numbers. */
  stats(): BusStats;
  close(): Promise<void>;
}

interface BusStats {
  /** Bytes of events waiting in the disk spool for the broker (always 0 in process). */
  spooledBytes: number;
  /** Sends to the broker that failed or timed out; their events went to the spool. */
  publishFailures: number;
  /** One entry per subscription of this process. */
  groups: GroupStats[];
}

/** A subscription's delivery counts (see `deliver`), and its lag. */
export interface GroupStats {
  group: string;
  topic: string;
  /** Events its handler took (at least once: a redelivered event counts again). */
  handled: number;
  /** Events given up after repeated failures (dead letters). */
  deadLettered: number;
  /** Handler calls that threw; each is retried. */
  failedAttempts: number;
  /**
   * Events published and not yet handled by this member: on Kafka, over the partitions it holds
   * (newest offset minus the group's committed one); in process, those queued.
   */
  lag(): Promise<number>;
}

/** Headers an event carries beside its payload (never part of it). */
export type EventHeaders = Readonly<Record<string, string>>;

export interface Subscription {
  topic: string;
  group: string;
  /**
   * `batch[i]` is an event's payload (a `Buffer` for a binary one, see `EventBus.publish`: it may
   * be a view into a larger buffer, such as the fetched batch, so a handler that keeps it past
   * its call keeps a copy); `headers[i]` are the headers it was published with, if any.
   */
  handle(batch: unknown[], headers: readonly (EventHeaders | undefined)[]): Promise<void>;
}
