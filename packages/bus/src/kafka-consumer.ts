import type { Logger } from "@gateway/contracts";
import type { Consumer, Kafka } from "kafkajs";

export interface GroupConsumerOptions {
  kafka: Kafka;
  topic: string;
  groupId: string;
  maxMessageBytes: number;
  /** Events handed to one `handle` call at most. */
  chunk: number;
  handle(batch: unknown[]): Promise<void>;
  log: Logger;
}

const restartDelayMs = 2_000;

/**
 * One consumer-group member that outlives broker outages: kafkajs retries for minutes before it
 * gives up, and then, rather than kafkajs's own restart of the same object, the consumer is
 * thrown away and a fresh one joins, retrying until the broker answers. Offsets are committed
 * only after `handle` succeeded: a crash redelivers, never skips.
 */
export async function startGroupConsumer(options: GroupConsumerOptions): Promise<{ close(): Promise<void> }> {
  const { kafka, topic, groupId, log } = options;
  let current: Consumer | null = null;
  let closed = false;

  async function join(): Promise<void> {
    const consumer = kafka.consumer({
      groupId,
      maxBytes: options.maxMessageBytes * 2,
      maxBytesPerPartition: options.maxMessageBytes,
      maxWaitTimeInMs: 500,
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
    consumer.on(consumer.events.CRASH, () => {
      // kafkajs may report one crash more than once: only the first one rejoins
      if (closed || current !== consumer) return;
      current = null;
      log.warn("kafka consumer crashed; joining again with a fresh one", { group: groupId });
      void consumer.disconnect().catch(() => {});
      void rejoin();
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (let i = 0; i < batch.messages.length; i += options.chunk) {
          if (!isRunning() || isStale()) return;
          const messages = batch.messages.slice(i, i + options.chunk);
          const payloads = messages.map((m) =>
            m.value ? (JSON.parse(m.value.toString("utf8")) as unknown) : null,
          );
          await options.handle(payloads.filter((p) => p !== null));
          const last = messages.at(-1)!.offset;
          resolveOffset(last);
          await consumer.commitOffsets([
            { topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() },
          ]);
          await heartbeat();
        }
      },
    });
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
        log.warn("kafka consumer could not join yet", { group: groupId, error: String(error) });
      }
    }
  }

  await join();
  return {
    async close() {
      closed = true;
      await (current as Consumer | null)?.disconnect().catch(() => {});
    },
  };
}
