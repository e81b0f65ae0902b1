import type { Admin, Kafka } from "kafkajs";
import { type KafkaReplication, topicReplication } from "./kafka-replication.ts";

export interface KafkaTopicsOptions extends KafkaReplication {
  /** Partitions of a topic made here. */
  partitions: number;
  /** The topics' `max.message.bytes`. */
  maxMessageBytes: number;
  /** The bus is closing: no admin client is connected any more. */
  closed(): boolean;
}

/**
 * Runs `work` again while the broker it asks answers "unknown topic" (8 tries over ~6 s): a topic
 * just made is listed by one broker before the others, and on 3 brokers a consumer's subscribe
 * that asked another one failed the app's start with it.
 */
export async function untilTopicKnown(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const unknownTopic = (error as { type?: string }).type === "UNKNOWN_TOPIC_OR_PARTITION";
      if (!unknownTopic || attempt === 8) throw error;
      await new Promise((wait) => setTimeout(wait, 200 * attempt));
    }
  }
}

/**
 * The bus's topic admin: it makes the topics it uses when they are missing, and keeps one admin
 * client for the consumers' lag.
 */
export function kafkaTopics(kafka: Kafka, options: KafkaTopicsOptions) {
  const readyTopics = new Set<string>();
  let admin: Promise<Admin> | null = null;

  return {
    /** Makes the topic if it is missing, and waits until the broker lists it. */
    async ensure(topic: string) {
      if (readyTopics.has(topic)) return;
      const admin = kafka.admin();
      await admin.connect();
      try {
        const replication = await topicReplication(admin, options);
        // Right after a topic is made, the broker's metadata may not list it yet: kafkajs's wait
        // for leaders retries only "leader not available", not "unknown topic" (kafkajs#815, seen
        // here with two processes creating topics at once, and on a loaded machine), and a topic
        // that exists already is not waited for at all. So the topic is made (a no-op when it
        // exists), then asked for, until the broker lists it; the producer and consumers that
        // follow refresh their metadata and would otherwise fail on the same "unknown topic".
        await untilTopicKnown(async () => {
          await admin.createTopics({
            waitForLeaders: true,
            topics: [
              {
                topic,
                numPartitions: options.partitions,
                replicationFactor: replication.replicationFactor,
                configEntries: [
                  { name: "max.message.bytes", value: String(options.maxMessageBytes) },
                  { name: "min.insync.replicas", value: String(replication.minInsyncReplicas) },
                ],
              },
            ],
          });
          await admin.fetchTopicMetadata({ topics: [topic] });
        });
      } finally {
        await admin.disconnect();
      }
      readyTopics.add(topic);
    },

    /** One admin client for the consumers' lag, connected on first use and again after a failure. */
    admin(): Promise<Admin> {
      if (options.closed()) return Promise.reject(new Error("the bus is closed"));
      if (!admin) {
        const client = kafka.admin();
        admin = client.connect().then(() => client);
        admin.catch(() => {
          admin = null;
          void client.disconnect().catch(() => {});
        });
      }
      return admin;
    },

    /** Lets the admin client go (once `closed` says so, no other is connected). */
    async close() {
      if (admin) await (await admin.catch(() => null))?.disconnect().catch(() => {});
    },
  };
}
