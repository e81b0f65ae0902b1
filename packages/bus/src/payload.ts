/**
 * How a payload travels as bytes (see `EventBus.publish`): a Node `Buffer` whose first byte is
 * 0x00, a byte no JSON text starts with, is binary and travels as it is; anything else travels as
 * its UTF-8 JSON. Every record value the bus keeps or sends (journal, spool, Kafka) is these bytes,
 * so one look at the first byte tells the two apart wherever a value is read.
 */
const binaryMarker = 0x00;

/**
 * A payload's bytes: a binary payload itself (not a copy), any other as UTF-8 JSON. Throws on a
 * programming error: a Buffer that is empty or does not start with 0x00, or a payload JSON cannot
 * encode (a cycle, a BigInt, or `undefined`, which has no JSON text).
 */
export function encodePayload(payload: unknown): Buffer {
  if (Buffer.isBuffer(payload)) return checkBinary(payload);
  const json: string | undefined = JSON.stringify(payload);
  if (json === undefined) throw new Error(`an event payload must encode as JSON; got ${typeof payload}`);
  return Buffer.from(json);
}

/**
 * Throws, as `encodePayload` does, on a Buffer that is not a binary payload, without encoding
 * anything: for a bus that hands payloads over as they are (in process, without a journal).
 */
export function checkPayload(payload: unknown): void {
  if (Buffer.isBuffer(payload)) checkBinary(payload);
}

/**
 * The payload a value holds: for a binary value (first byte 0x00), the value itself, else the
 * parse of its UTF-8 text, which throws when it is not JSON.
 */
export function decodePayload(value: Buffer): unknown {
  return isBinaryValue(value) ? value : (JSON.parse(value.toString("utf8")) as unknown);
}

/** Whether a value is a binary payload's bytes rather than JSON text. */
export function isBinaryValue(value: Buffer): boolean {
  return value[0] === binaryMarker;
}

function checkBinary(payload: Buffer): Buffer {
  if (!isBinaryValue(payload)) {
    throw new Error(
      payload.length === 0
        ? "a binary event payload must not be empty: its first byte must be 0x00"
        : `a binary event payload must start with the byte 0x00, not 0x${payload[0]!.toString(16).padStart(2, "0")}`,
    );
  }
  return payload;
}
