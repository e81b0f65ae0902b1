import type { EventHeaders } from "./event-bus.ts";
import { encodePayload, isBinaryValue } from "./payload.ts";

/**
 * What a dead-lettered message was: its key and value as read, and the event (as handlers get
 * it, see `decodePayload`) when the value decoded: absent for a JSON value that does not parse.
 */
export interface DeadLetter {
  key: string;
  value: Buffer;
  event?: unknown;
  error: unknown;
}

export interface DeadLettersOptions {
  group: string;
  /** The topic read, as the bus names it (before its name prefix). */
  topic: string;
  /** Publishes an encoded payload on a topic (already prefixed), as the bus does every event. */
  enqueue(topic: string, key: string, value: Buffer, headers?: EventHeaders): void;
  /** The topic's name on the broker. */
  named(topic: string): string;
  onDeadLetter?: (group: string, event: unknown, error: unknown) => void;
}

/**
 * What becomes of a message a group gave up on: the bus's `onDeadLetter` hears of it, and it is
 * published to `<topic>.dlq` (see `KafkaBusOptions.onDeadLetter` for the shape).
 */
export function deadLetters({ group, topic, enqueue, named, onDeadLetter }: DeadLettersOptions) {
  const dlq = named(`${topic}.dlq`);
  return (dead: DeadLetter) => {
    onDeadLetter?.(group, "event" in dead ? dead.event : dead.value.toString("utf8"), dead.error);
    const error = String(dead.error);
    // through the same path as any event, so the spool keeps it while the broker is away;
    // a binary one as it is (in base64 inside JSON, one as large as the bus carries could
    // not be dead-lettered), what went wrong beside it
    if (isBinaryValue(dead.value))
      enqueue(dlq, dead.key, dead.value, { "dead-letter-group": group, "dead-letter-error": error });
    else enqueue(dlq, dead.key, encodePayload({ group, error, value: dead.value.toString("utf8") }));
  };
}
