import type { Logger } from "@gateway/contracts";
import type { Producer } from "kafkajs";
import type { EventHeaders } from "./event-bus.ts";
import type { SpoolRecord } from "./spool.ts";

/**
 * Where the send that starts at `from` ends. A send is one record batch on the broker, which must
 * fit the topic's `max.message.bytes`: a record's value counts its bytes, its key and headers
 * (text) 3 UTF-8 bytes per UTF-16 unit at most, plus its framing. Capped at 4 MiB; the first
 * record always goes (enqueue has already dropped any that cannot fit alone).
 */
export function sendEnd(records: SpoolRecord[], from: number, maxMessageBytes: number): number {
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

export interface KafkaSenderOptions {
  producer: Producer;
  /** Which partition each send goes to (`sendPartitioner`): told when a send starts. */
  partitions: { nextSend(): void };
  /** Makes a topic before the first send to it. */
  ensureTopic(topic: string): Promise<void>;
  /** The batches' compression (`compressionType`). */
  compression: number;
  sendTimeoutMs: number;
  maxMessageBytes: number;
  log: Logger;
  /** Whether the broker is known to be away already: then a failed send is not warned of again. */
  down(): boolean;
}

/**
 * Sends records to the broker, one record batch per send, each acknowledged within
 * `sendTimeoutMs` or taken as failed (counted; the producer connects afresh for the next).
 */
export function kafkaSender(options: KafkaSenderOptions) {
  const { producer, partitions, compression, sendTimeoutMs, log } = options;
  let connected = false;
  let failures = 0;

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
      for (const topic of byTopic.keys()) await options.ensureTopic(topic);
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
      failures++;
      if (!options.down()) log.warn("kafka unreachable; spooling events to disk", { error });
      // a fresh connection on the next try: kafkajs may hold a dead one
      connected = false;
      await producer.disconnect().catch(() => {});
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    /** Sends records that may not fit one send, in order; false: one did not get there. */
    async sendInChunks(records: SpoolRecord[]): Promise<boolean> {
      for (let i = 0; i < records.length; ) {
        const end = sendEnd(records, i, options.maxMessageBytes);
        if (!(await send(records.slice(i, end)))) return false;
        i = end;
      }
      return true;
    },
    /** Sends that failed since the start. */
    failures: () => failures,
  };
}
