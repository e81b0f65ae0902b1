import type { Logger } from "@gateway/contracts";
import { readWithin } from "@gateway/runtime";
import type { Admin, Consumer, Kafka, KafkaMessage } from "kafkajs";
import { deliver } from "./deliver.ts";
import type { EventHeaders, GroupStats, Subscription } from "./event-bus.ts";
import { withCoordinator } from "./kafka-coordinator.ts";
import type { DeadLetter } from "./kafka-dead-letters.ts";
import { untilTopicKnown } from "./kafka-topics.ts";
import { decodePayload } from "./payload.ts";

export interface GroupConsumerOptions {
  kafka: Kafka;
  topic: string;
  groupId: string;
  /** Events handed to one `handle` call at most. */
  chunk: number;
  handle: Subscription["handle"];
  /** A message given up on (see `deliver`): it is committed past, so the group moves on. */
  onDeadLetter(dead: DeadLetter): void;
  /** Wait before delivering a failed chunk again. */
  retryDelayMs?: number;
  /** How much a fetch waits for (`ConsumerFetch`); unset: whatever has arrived, at once. */
  fetch?: ConsumerFetch;
  /** The bus's admin client, connected on first use: reads offsets for the lag. */
  admin(): Promise<Admin>;
  /** The subscription's name in the port's terms, for its stats. */
  name: { group: string; topic: string };
  log: Logger;
}

/**
 * A fetch that waits for more: the broker answers once `minBytes` (of compressed batches, over
 * the partitions asked of it) have arrived, or `maxWaitMs` after the fetch, whichever is first.
 * A handler that pays per batch (the capture writer: one object per batch) gets fuller batches
 * at any arrival rate; an event waits at most `maxWaitMs` longer before it is handled.
 */
export interface ConsumerFetch {
  minBytes: number;
  maxWaitMs: number;
}

/** How long a scrape waits on the broker for the offsets of the lag. */
const lagTimeoutMs = 2_000;
/** What one fetch asks of a partition: 4 MiB of compressed batches (see `join`). */
const fetchBytesPerPartition = 4 * 1024 * 1024;

const restartDelayMs = 2_000;

/**
 * One consumer-group member that outlives broker outages: kafkajs retries for minutes before it
 * gives up, and then, rather than kafkajs's own restart of the same object, the consumer is
 * thrown away and a fresh one joins, retrying until the broker answers. Offsets are committed
 * only after `handle` succeeded: a crash redelivers, never skips.
 */
export async function startGroupConsumer(
  options: GroupConsumerOptions,
): Promise<{ partitions(): number; stats: GroupStats; close(): Promise<void> }> {
  const { kafka, topic, groupId, log } = options;
  let current: Consumer | null = null;
  let closed = false;
  // the partitions of `topic` the group's last rebalance gave this member; none while out of it
  let assigned: number[] = [];
  const stats: GroupStats = {
    ...options.name,
    handled: 0,
    deadLettered: 0,
    failedAttempts: 0,
    lag: () => lagOf(assigned),
  };

  /** Over `partitions`: newest offset minus the committed one; NaN when the broker does not answer. */
  async function lagOf(partitions: number[]): Promise<number> {
    if (partitions.length === 0) return 0;
    return readWithin(
      lagTimeoutMs,
      async () => {
        const admin = await options.admin();
        const [newest, [committed]] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId, topics: [topic] }),
        ]);
        let lag = 0;
        for (const partition of partitions) {
          const at = newest.find((p) => p.partition === partition);
          if (!at) continue;
          const done = committed?.partitions.find((p) => p.partition === partition)?.offset ?? "-1";
          // nothing committed yet: the group starts from the oldest offset still kept
          lag += Number(at.high) - Math.max(Number(done), Number(at.low));
        }
        return lag;
      },
      Number.NaN,
    );
  }

  async function join(): Promise<void> {
    const consumer = kafka.consumer({
      groupId,
      // Compressed bytes (the bus compresses its batches): a fetch of a backlog at these sizes is
      // ~10x as much once decoded, all held until its batch is handled. The broker still returns
      // a first batch larger than this whole (KIP-74), so no event is too large to fetch.
      maxBytes: 2 * fetchBytesPerPartition,
      maxBytesPerPartition: fetchBytesPerPartition,
      // Unset: the broker answers as soon as anything has arrived (kafkajs's 1 byte); an idle
      // fetch comes back empty after 500 ms.
      minBytes: options.fetch?.minBytes ?? 1,
      maxWaitTimeInMs: options.fetch?.maxWaitMs ?? 500,
      // a member that died is noticed within 10 s and its partitions handed to the others
      sessionTimeout: 10_000,
      heartbeatInterval: 2_000,
      // how long a rebalance waits for a member that does not rejoin (e.g. one left behind by a crash)
      rebalanceTimeout: 20_000,
      // Ride out a broker outage of a few minutes inside kafkajs (same member, no rejoin): a
      // crash, and with it a fresh member, is the last resort.
      retry: {
        retries: 120,
        initialRetryTime: 300,
        maxRetryTime: 2_000,
        restartOnFailure: async () => false,
      },
    });
    current = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      assigned = payload.memberAssignment[topic] ?? [];
    });
    consumer.on(consumer.events.STOP, () => {
      if (current === consumer) assigned = [];
    });
    consumer.on(consumer.events.CRASH, () => {
      assigned = [];
      // kafkajs may report one crash more than once: only the first one rejoins
      if (closed || current !== consumer) return;
      current = null;
      log.warn("kafka consumer crashed; joining again with a fresh one", { group: groupId });
      void consumer.disconnect().catch(() => {});
      void rejoin();
    });
    await consumer.connect();
    await untilTopicKnown(() => consumer.subscribe({ topic, fromBeginning: true }));
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({
        batch,
        resolveOffset,
        heartbeat: beat,
        commitOffsetsIfNecessary,
        isRunning,
        isStale,
      }) => {
        const heartbeat = () => withCoordinator(beat);
        const commit = (offset: string) =>
          withCoordinator(() =>
            commitOffsetsIfNecessary({
              topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset }] }],
            }),
          );
        for (let i = 0; i < batch.messages.length; i += options.chunk) {
          if (!isRunning() || isStale()) return;
          const messages = batch.messages.slice(i, i + options.chunk);
          const events: { message: KafkaMessage; event: unknown }[] = [];
          for (const message of messages) {
            if (!message.value) continue;
            try {
              // a binary payload as it is, any other parsed from its JSON
              events.push({ message, event: decodePayload(message.value) });
            } catch (error) {
              // no redelivery will ever parse it: holding the partition for it would stall it for good
              stats.deadLettered++;
              deadLetter(message, message.value, undefined, error);
            }
          }
          const done = await deliver(events, {
            handle: (chunk) =>
              options.handle(
                chunk.map((e) => e.event),
                chunk.map((e) => messageHeaders(e.message)),
              ),
            stats,
            retryDelayMs: options.retryDelayMs ?? 200,
            onError: (error) => log.warn("event handler failed", { group: groupId, error }),
            onDeadLetter: ({ message, event }, error) =>
              deadLetter(message, message.value ?? Buffer.alloc(0), event, error),
            keepGoing: async () => {
              // a handler that keeps failing may take a while: stay in the group meanwhile
              await heartbeat();
              return isRunning() && !isStale();
            },
          });
          // Commit what is done; when stopped part way, only up to the first undone event, so
          // it (and whatever follows) is delivered again.
          const last = done === events.length ? messages.at(-1)?.offset : events[done - 1]?.message.offset;
          if (last !== undefined) {
            resolveOffset(last);
            await commit((BigInt(last) + 1n).toString());
          }
          if (done < events.length) return;
          await heartbeat();
        }
      },
    });
  }

  function deadLetter(message: KafkaMessage, value: Buffer, event: unknown, error: unknown) {
    log.error("event dead-lettered", { group: groupId, offset: message.offset, error });
    const dead: DeadLetter = { key: message.key?.toString("utf8") ?? "", value, error };
    if (event !== undefined) dead.event = event;
    options.onDeadLetter(dead);
  }

  async function rejoin() {
    while (!closed) {
      await new Promise((r) => setTimeout(r, restartDelayMs));
      if (closed) return;
      try {
        await join();
        log.info("kafka consumer joined again", { group: groupId });
        return;
      } catch (error) {
        await (current as Consumer | null)?.disconnect().catch(() => {});
        log.warn("kafka consumer could not join yet", { group: groupId, error });
      }
    }
  }

  await join();
  return {
    partitions: () => assigned.length,
    stats,
    async close() {
      closed = true;
      await (current as Consumer | null)?.disconnect().catch(() => {});
    },
  };
}

/** A message's headers as text (kafkajs hands them over as buffers), or undefined when it has none. */
function messageHeaders(message: KafkaMessage): EventHeaders | undefined {
  const raw = message.headers;
  if (!raw) return undefined;
  let headers: Record<string, string> | undefined;
  for (const name in raw) {
    const value = raw[name];
    // a header sent more than once: the first, as W3C trace context reads it
    const first = Array.isArray(value) ? value[0] : value;
    if (first === undefined) continue;
    headers ??= {};
    headers[name] = first.toString();
  }
  return headers;
}
