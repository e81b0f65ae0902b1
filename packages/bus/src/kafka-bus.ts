import { join } from "node:path";
import type { Logger } from "@gateway/contracts";
import { Kafka, logLevel, type Producer, type SASLOptions } from "kafkajs";
import { lockDir } from "./dir-lock.ts";
import type { EventBus } from "./event-bus.ts";
import { openJournal } from "./journal.ts";
import { type BatchCodec, compressionType, defaultBatchCodec } from "./kafka-compression.ts";
import { type ConsumerFetch, startGroupConsumer } from "./kafka-consumer.ts";
import { deadLetters } from "./kafka-dead-letters.ts";
import { kafkaPublisher } from "./kafka-publisher.ts";
import type { KafkaReplication } from "./kafka-replication.ts";
import { kafkaTopics } from "./kafka-topics.ts";
import { encodePayload } from "./payload.ts";
import { sendPartitioner } from "./send-partitioner.ts";
import { openSpool, type Spool } from "./spool.ts";

export interface KafkaBusOptions extends KafkaReplication {
  brokers: string[];
  clientId: string;
  /** TLS to the brokers: `true` trusts the system's CAs; PEM text for a private CA and mutual TLS. */
  tls?: true | { ca?: string; cert?: string; key?: string };
  /** SASL authentication (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512), over TLS unless the cluster has none. */
  sasl?: Extract<SASLOptions, { mechanism: "plain" | "scram-sha-256" | "scram-sha-512" }>;
  /**
   * Where events wait on local disk while the broker is away, one directory per process. Its
   * `journal/` holds every event from `publish` until the broker (or the spool) has it, so that
   * a process killed outright loses none: the next process on the directory sends them again.
   */
  spoolDir: string;
  log: Logger;
  /** Partitions of a topic this bus creates (it creates the topics it uses when they are missing). */
  partitions?: number;
  /** Largest message the broker accepts; a bigger event can never be delivered and is dropped with an error. */
  maxMessageBytes?: number;
  /** A send that has not been acknowledged by then is spooled (and may also arrive: consumers are idempotent). */
  sendTimeoutMs?: number;
  /**
   * How long events gather before a send, also between sends under load: kafkajs and the broker
   * pay per request, so a batch of ~100 events costs each of them a fraction of a batch of ~20.
   */
  lingerMs?: number;
  /**
   * How the batches it sends are compressed (`defaultBatchCodec`: zstd where Node has it, else
   * gzip). Its consumers read either.
   */
  compression?: BatchCodec;
  /** While the broker is away: how often to try again. */
  retryIntervalMs?: number;
  /** Events handed to one consumer `handle` call at most. */
  maxHandlerBatch?: number;
  /**
   * Prepended to every topic and consumer group name, so deployments (or test runs) can share
   * one cluster without reading each other's events. Empty by default.
   */
  namePrefix?: string;
  /**
   * An event a group's handler failed on, alone, 8 times (after its chunk failed 3 times), or a
   * message that is neither binary nor JSON (`event` is then its raw text). `event` is the
   * payload as handlers get it: a `Buffer` for a binary one. It is skipped, so it cannot stall its
   * partition, and also published to the topic `<topic>.dlq` as the JSON
   * `{"group", "error", "value": the message's text}`, or a binary message as it is, with the
   * headers `dead-letter-group` and `dead-letter-error`.
   */
  onDeadLetter?: (group: string, event: unknown, error: unknown) => void;
  /** Wait before delivering a failed chunk to a consumer again. */
  handlerRetryDelayMs?: number;
  /**
   * What every consumer of this bus waits for before a fetch returns (`ConsumerFetch`): for a
   * process whose one subscription pays per batch. Unset: whatever has arrived, at once.
   */
  consumerFetch?: ConsumerFetch;
}

/**
 * The event bus on Kafka. Publishing never blocks and never throws: events gather in memory
 * for `lingerMs`, go to the broker in batches (each send on one partition, see
 * `sendPartitioner`; the caller's key travels with the event), and when a send fails or times
 * out they are appended to a durable local spool instead. While the spool holds anything, new
 * events join it (in order), and the spool drains oldest segment first once the broker answers
 * again; a spool left by an earlier process drains the same way (`kafka-publisher.ts`). Delivery
 * is at least once.
 */
export async function createKafkaBus(options: KafkaBusOptions): Promise<EventBus> {
  const { log } = options;
  const maxMessageBytes = options.maxMessageBytes ?? 128 * 1024 * 1024;
  const sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
  const compression = compressionType(options.compression ?? defaultBatchCodec);
  const named = (name: string) => `${options.namePrefix ?? ""}${name}`;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.tls ? { ssl: options.tls } : {}),
    ...(options.sasl ? { sasl: options.sasl } : {}),
    connectionTimeout: 1_000,
    requestTimeout: sendTimeoutMs,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...rest } = entry.log;
      log.warn(`kafka: ${message}`, { namespace: entry.namespace, error: rest.error });
    },
  });
  // one process per spool dir: the spool and the journal in it are written by one process only
  const lock = lockDir(options.spoolDir);
  if (lock.stale)
    log.warn("the last process on this spool dir did not stop cleanly", { pid: lock.stale.pid });
  const spool: Spool = await openSpool(options.spoolDir);
  const opened = openJournal(join(options.spoolDir, "journal"), {
    onError: (message, error) => log.error(message, { error }),
  });
  const partitions = sendPartitioner();
  const producer: Producer = kafka.producer({
    createPartitioner: partitions.createPartitioner,
    allowAutoTopicCreation: false,
    // acks from every in-sync copy (kafkajs's default: acks=-1). Not kafkajs's idempotent
    // producer: across a broker restart it answered "out of order sequence number" and one event
    // of 845 never arrived (the 30 s Kafka outage test). A send the bus gives up on goes to the
    // spool and is sent again; a duplicate is absorbed by the consumers, idempotent by request id.
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
  });
  let closed = false;
  const topics = kafkaTopics(kafka, {
    partitions: options.partitions ?? 6,
    maxMessageBytes,
    replicationFactor: options.replicationFactor,
    minInsyncReplicas: options.minInsyncReplicas,
    closed: () => closed,
  });
  const publisher = kafkaPublisher({
    send: { producer, partitions, ensureTopic: topics.ensure, compression, sendTimeoutMs },
    spool,
    opened,
    log,
    maxMessageBytes,
    lingerMs: options.lingerMs ?? 20,
    retryIntervalMs: options.retryIntervalMs ?? 1_000,
  });
  const { enqueue } = publisher;
  const consumers: Awaited<ReturnType<typeof startGroupConsumer>>[] = [];

  return {
    publish(topic, key, payload, headers) {
      // throws on a payload that is not one (see `EventBus.publish`): a programming error
      enqueue(named(topic), key, encodePayload(payload), headers);
    },
    whenJournaled: (then) => opened.journal.whenWritten(then),
    maxEventBytes: publisher.maxEventBytes,
    handsOverPayloads: false,
    async subscribe({ topic, group, handle }) {
      await topics.ensure(named(topic));
      consumers.push(
        await startGroupConsumer({
          kafka,
          topic: named(topic),
          // Kafka balances a group over all its members' topics at once, so one group id per
          // (group, topic) pair: the port's groups are per topic, as in the in-process bus.
          groupId: named(`${group}.${topic}`),
          chunk: options.maxHandlerBatch ?? 256,
          handle,
          retryDelayMs: options.handlerRetryDelayMs,
          fetch: options.consumerFetch,
          name: { group, topic },
          admin: topics.admin,
          onDeadLetter: deadLetters({ group, topic, enqueue, named, onDeadLetter: options.onDeadLetter }),
          log,
        }),
      );
    },
    consuming: () => consumers.length > 0 && consumers.every((c) => c.partitions() > 0),
    flush: () => publisher.flush(),
    handedOn: () => publisher.handedOn(),
    stats: () => ({
      spooledBytes: spool.bytes(),
      publishFailures: publisher.failures(),
      groups: consumers.map((c) => c.stats),
    }),
    async close() {
      closed = true;
      await publisher.close();
      lock.release();
      await Promise.all(consumers.map((c) => c.close()));
      await topics.close();
      await producer.disconnect().catch(() => {});
    },
  };
}
