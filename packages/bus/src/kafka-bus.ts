import { join } from "node:path";
import type { Logger } from "@gateway/contracts";
import { type Admin, Kafka, logLevel, type Producer, type SASLOptions } from "kafkajs";
import { lockDir } from "./dir-lock.ts";
import type { EventBus, EventHeaders } from "./event-bus.ts";
import { HandOnCounter } from "./hand-on-counter.ts";
import { type Journal, openJournal } from "./journal.ts";
import { type BatchCodec, compressionType, defaultBatchCodec } from "./kafka-compression.ts";
import { startGroupConsumer } from "./kafka-consumer.ts";
import { type KafkaReplication, topicReplication } from "./kafka-replication.ts";
import { encodePayload, isBinaryValue } from "./payload.ts";
import { sendPartitioner } from "./send-partitioner.ts";
import { openSpool, type Spool, type SpoolRecord } from "./spool.ts";

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
}

/**
 * Where the send that starts at `from` ends. A send is one record batch on the broker, which must
 * fit the topic's `max.message.bytes`: a record's value counts its bytes, its key and headers
 * (text) 3 UTF-8 bytes per UTF-16 unit at most, plus its framing. Capped at 4 MiB; the first
 * record always goes (enqueue has already dropped any that cannot fit alone).
 */
function sendEnd(records: SpoolRecord[], from: number, maxMessageBytes: number): number {
  const limit = Math.min(4 * 1024 * 1024, maxMessageBytes - 1024);
  let bytes = 0;
  let end = from;
  while (end < records.length) {
    const record = records[end]!;
    bytes += record.value.length + 3 * record.key.length + 64;
    if (record.headers) bytes += headerBytes(record.headers);
    if (end > from && bytes > limit) break;
    end++;
  }
  return end;
}

/** A record's header names and values, text counted at 3 bytes per character, as its key is. */
function headerBytes(headers: EventHeaders): number {
  let bytes = 0;
  for (const name in headers) bytes += 3 * (name.length + headers[name]!.length) + 8;
  return bytes;
}

/**
 * The event bus on Kafka. Publishing never blocks and never throws: events gather in memory
 * for `lingerMs`, go to the broker in batches (each send on one partition, see
 * `sendPartitioner`; the caller's key travels with the event), and when a send fails or times
 * out they are appended to a durable local spool instead. While the spool holds anything, new
 * events join it (in order), and the spool drains oldest segment first once the broker answers
 * again; a spool left by an earlier process drains the same way. Delivery is at least once.
 */
export async function createKafkaBus(options: KafkaBusOptions): Promise<EventBus> {
  const { log } = options;
  const maxMessageBytes = options.maxMessageBytes ?? 128 * 1024 * 1024;
  // what a record's framing (key, headers, batch) takes beside its value
  const maxEventBytes = maxMessageBytes - 1024;
  const sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
  const lingerMs = options.lingerMs ?? 20;
  const compression = compressionType(options.compression ?? defaultBatchCodec);
  const retryIntervalMs = options.retryIntervalMs ?? 1_000;
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
      // the bus retries little on purpose (a failed send is spooled, and consumers are idempotent)
      if (message.startsWith("Limiting retries for the idempotent producer")) return;
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
  const journal: Journal = opened.journal;
  const partitions = sendPartitioner();
  const producer: Producer = kafka.producer({
    createPartitioner: partitions.createPartitioner,
    allowAutoTopicCreation: false,
    // acks from every in-sync copy (kafkajs's default), and no duplicate from a retried request;
    // one request in flight per broker keeps kafkajs's sequence numbers in order (the bus sends
    // one batch at a time anyway)
    idempotent: true,
    maxInFlightRequests: 1,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
  });
  const consumers: Awaited<ReturnType<typeof startGroupConsumer>>[] = [];
  let admin: Promise<Admin> | null = null;
  let publishFailures = 0;
  const readyTopics = new Set<string>();

  /** Events not yet with the broker nor in the spool, oldest first, each with its journal number. */
  const memory: (SpoolRecord & { seq: number })[] = [];
  /** Counts the events that enter `memory` and leave it (with the broker, or in the spool). */
  const counter = new HandOnCounter();
  let connected = false;
  let down = false;
  let closed = false;
  let running: Promise<void> | null = null;
  let lingerTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;

  /** One admin client for the consumers' lag, connected on first use and again after a failure. */
  function connectedAdmin(): Promise<Admin> {
    if (closed) return Promise.reject(new Error("the bus is closed"));
    if (!admin) {
      const client = kafka.admin();
      admin = client.connect().then(() => client);
      admin.catch(() => {
        admin = null;
        void client.disconnect().catch(() => {});
      });
    }
    return admin;
  }

  async function ensureTopic(topic: string) {
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
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.createTopics({
            waitForLeaders: true,
            topics: [
              {
                topic,
                numPartitions: options.partitions ?? 6,
                replicationFactor: replication.replicationFactor,
                configEntries: [
                  { name: "max.message.bytes", value: String(maxMessageBytes) },
                  { name: "min.insync.replicas", value: String(replication.minInsyncReplicas) },
                ],
              },
            ],
          });
          await admin.fetchTopicMetadata({ topics: [topic] });
          break;
        } catch (error) {
          const unknownTopic = (error as { type?: string }).type === "UNKNOWN_TOPIC_OR_PARTITION";
          if (!unknownTopic || attempt === 8) throw error;
          await new Promise((wait) => setTimeout(wait, 200 * attempt));
        }
      }
    } finally {
      await admin.disconnect();
    }
    readyTopics.add(topic);
  }

  async function send(records: SpoolRecord[]): Promise<boolean> {
    const byTopic = new Map<string, SpoolRecord[]>();
    for (const r of records) {
      const list = byTopic.get(r.topic);
      if (list) list.push(r);
      else byTopic.set(r.topic, [r]);
    }
    let timer: NodeJS.Timeout | undefined;
    const attempt = (async () => {
      if (!connected) {
        await producer.connect();
        connected = true;
      }
      for (const topic of byTopic.keys()) await ensureTopic(topic);
      partitions.nextSend();
      await producer.sendBatch({
        compression,
        topicMessages: [...byTopic].map(([topic, rs]) => ({
          topic,
          messages: rs.map((r) => ({ key: r.key, value: r.value, headers: r.headers })),
        })),
      });
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no acknowledgement within ${sendTimeoutMs} ms`)),
        sendTimeoutMs,
      );
    });
    try {
      await Promise.race([attempt, timeout]);
      return true;
    } catch (error) {
      attempt.catch(() => {});
      publishFailures++;
      if (!down) log.warn("kafka unreachable; spooling events to disk", { error });
      // a fresh connection on the next try: kafkajs may hold a dead one
      connected = false;
      await producer.disconnect().catch(() => {});
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  // Only looks: the records leave memory once they are with the broker or on disk, so a failed
  // append (ENOSPC) keeps them for the next attempt instead of losing them.
  function peekBatch(): SpoolRecord[] {
    return memory.slice(0, sendEnd(memory, 0, maxMessageBytes));
  }

  /** Moves everything in memory to the spool, taking it out of memory only once it is there. */
  async function spoolMemory() {
    if (memory.length === 0) return;
    const records = memory.slice();
    await spool.append(records);
    // publish only ever adds at the end, so these are still the first ones
    forget(records.length);
  }

  /** The first `count` events in memory are with the broker or in the spool. */
  function forget(count: number) {
    memory.splice(0, count);
    counter.handOn(count);
    journal.settle(memory[0]?.seq ?? journal.next);
  }

  function wentDown() {
    down = true;
    // a send that close() waited for may fail after it cleared the timer: arming one now would
    // keep the process alive and try the broker again after the bus is gone
    if (closed) return;
    retryTimer ??= setTimeout(() => {
      retryTimer = null;
      down = false;
      kick();
    }, retryIntervalMs);
  }

  async function sendInChunks(records: SpoolRecord[]): Promise<boolean> {
    for (let i = 0; i < records.length; ) {
      const end = sendEnd(records, i, maxMessageBytes);
      if (!(await send(records.slice(i, end)))) return false;
      i = end;
    }
    return true;
  }

  // The only code that touches the producer and the spool, so neither needs locking.
  async function pump() {
    while (!closed) {
      if (down) {
        await spoolMemory();
        return;
      }
      if (spool.pending()) {
        await spoolMemory();
        const segment = await spool.oldest();
        if (!segment) continue;
        if (segment.skipped > 0) {
          log.error("kafka spool: unreadable lines skipped (torn writes)", {
            segment: segment.name,
            skipped: segment.skipped,
          });
        }
        if (await sendInChunks(segment.records)) {
          await spool.remove(segment.name);
          if (!spool.pending()) log.info("kafka spool drained");
        } else {
          // the segment stays; resending its first chunks later duplicates nothing that matters
          wentDown();
        }
        continue;
      }
      if (memory.length === 0) return;
      const batch = peekBatch();
      const delivered = await send(batch);
      if (!delivered) {
        await spool.append(batch);
        wentDown();
      }
      forget(batch.length);
      // Less than a full batch left: it waits for the linger (see `kick`), to gather more. After a
      // failed send the loop goes on instead, and puts the rest on disk at once.
      if (delivered && sendEnd(memory, 0, maxMessageBytes) === memory.length) return;
    }
  }

  function kick() {
    if (running || closed) return;
    running = pump()
      .catch((error: unknown) => {
        log.error("kafka publisher failed; retrying", { error });
        wentDown();
      })
      .finally(() => {
        running = null;
        if (down || closed) return;
        if (spool.pending()) kick();
        else if (memory.length > 0) scheduleKick();
      });
  }

  function scheduleKick() {
    lingerTimer ??= setTimeout(() => {
      lingerTimer = null;
      kick();
    }, lingerMs);
  }

  /** Takes an event's encoded payload (`encodePayload`): it travels as these bytes. */
  function enqueue(topic: string, key: string, value: Buffer, headers?: EventHeaders) {
    if (closed) return;
    if (value.length > maxEventBytes) {
      log.error("event larger than the broker's message limit; dropped", { topic, key, bytes: value.length });
      return;
    }
    const record: SpoolRecord = headers ? { topic, key, value, headers } : { topic, key, value };
    memory.push({ ...record, seq: journal.append(record) });
    counter.take();
    scheduleKick();
  }

  // Send again what an earlier process had published but not handed on (journaled anew first),
  // and drain what it left in the spool.
  for (const record of opened.leftover) enqueue(record.topic, record.key, record.value, record.headers);
  opened.dropLeftover();
  if (opened.leftover.length > 0)
    log.info("kafka journal: events of the last process sent again", { events: opened.leftover.length });
  if (spool.pending()) kick();

  return {
    publish(topic, key, payload, headers) {
      // throws on a payload that is not one (see `EventBus.publish`): a programming error
      enqueue(named(topic), key, encodePayload(payload), headers);
    },
    whenJournaled: (then) => journal.whenWritten(then),
    maxEventBytes,
    async subscribe({ topic, group, handle }) {
      await ensureTopic(named(topic));
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
          name: { group, topic },
          admin: connectedAdmin,
          onDeadLetter: (dead) => {
            options.onDeadLetter?.(
              group,
              "event" in dead ? dead.event : dead.value.toString("utf8"),
              dead.error,
            );
            const error = String(dead.error);
            // through the same path as any event, so the spool keeps it while the broker is away;
            // a binary one as it is (in base64 inside JSON, one as large as the bus carries could
            // not be dead-lettered), what went wrong beside it
            if (isBinaryValue(dead.value))
              enqueue(named(`${topic}.dlq`), dead.key, dead.value, {
                "dead-letter-group": group,
                "dead-letter-error": error,
              });
            else
              enqueue(
                named(`${topic}.dlq`),
                dead.key,
                encodePayload({ group, error, value: dead.value.toString("utf8") }),
              );
          },
          log,
        }),
      );
    },
    consuming: () => consumers.length > 0 && consumers.every((c) => c.partitions() > 0),
    async flush() {
      for (;;) {
        if (closed) return;
        if (lingerTimer) {
          clearTimeout(lingerTimer);
          lingerTimer = null;
        }
        if (running) {
          await running;
          continue;
        }
        // with the broker away, "handed to the transport" means safely on disk
        if (memory.length === 0 && (down || !spool.pending())) return;
        kick();
        if (!running) return;
      }
    },
    handedOn: () => counter.wait(),
    stats: () => ({
      spooledBytes: spool.bytes(),
      publishFailures,
      groups: consumers.map((c) => c.stats),
    }),
    async close() {
      if (lingerTimer) clearTimeout(lingerTimer);
      if (retryTimer) clearTimeout(retryTimer);
      closed = true;
      counter.releaseAll();
      if (running) await running;
      // whatever did not reach the broker waits on disk for the next start
      await spoolMemory();
      journal.close();
      lock.release();
      await Promise.all(consumers.map((c) => c.close()));
      if (admin) await (await admin.catch(() => null))?.disconnect().catch(() => {});
      await producer.disconnect().catch(() => {});
    },
  };
}
