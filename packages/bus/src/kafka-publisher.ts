import type { Logger } from "@gateway/contracts";
import type { EventHeaders } from "./event-bus.ts";
import { HandOnCounter } from "./hand-on-counter.ts";
import type { OpenedJournal } from "./journal.ts";
import { type KafkaSenderOptions, kafkaSender, sendEnd } from "./kafka-send.ts";
import type { Spool, SpoolRecord } from "./spool.ts";

export interface KafkaPublisherOptions {
  /** How records go to the broker (`kafka-send.ts`). */
  send: Omit<KafkaSenderOptions, "down" | "log" | "maxMessageBytes">;
  spool: Spool;
  /** The journal, with what the last process on it left (sent again first). */
  opened: OpenedJournal;
  log: Logger;
  maxMessageBytes: number;
  lingerMs: number;
  retryIntervalMs: number;
}

/**
 * The bus's publishing side. Events gather in memory for `lingerMs`, go to the broker in
 * batches, and when a send fails or times out they are appended to the durable local spool
 * instead. While the spool holds anything, new events join it (in order), and the spool drains
 * oldest segment first once the broker answers again; a spool left by an earlier process drains
 * the same way, and what the journal held of that process is sent again.
 */
export function kafkaPublisher(options: KafkaPublisherOptions) {
  const { spool, log, maxMessageBytes, lingerMs, retryIntervalMs } = options;
  const { journal } = options.opened;
  // what a record's framing (key, headers, batch) takes beside its value
  const maxEventBytes = maxMessageBytes - 1024;
  const sender = kafkaSender({ ...options.send, log, maxMessageBytes, down: () => down });

  /** Events not yet with the broker nor in the spool, oldest first, each with its journal number. */
  const memory: (SpoolRecord & { seq: number })[] = [];
  /** Counts the events that enter `memory` and leave it (with the broker, or in the spool). */
  const counter = new HandOnCounter();
  let down = false;
  let closed = false;
  let running: Promise<void> | null = null;
  let lingerTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;

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
        if (await sender.sendInChunks(segment.records)) {
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
      const delivered = await sender.send(batch);
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
  for (const record of options.opened.leftover)
    enqueue(record.topic, record.key, record.value, record.headers);
  options.opened.dropLeftover();
  if (options.opened.leftover.length > 0)
    log.info("kafka journal: events of the last process sent again", {
      events: options.opened.leftover.length,
    });
  if (spool.pending()) kick();

  return {
    enqueue,
    maxEventBytes,
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
    failures: sender.failures,
    /** Stops publishing: what did not reach the broker waits on disk for the next start. */
    async close() {
      if (lingerTimer) clearTimeout(lingerTimer);
      if (retryTimer) clearTimeout(retryTimer);
      closed = true;
      counter.releaseAll();
      if (running) await running;
      await spoolMemory();
      journal.close();
    },
  };
}
