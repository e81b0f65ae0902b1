import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// The kafkajs internals that patches/kafkajs@2.2.4.patch rewrites for speed. A wrong checksum or
// varint would be refused by the broker, a wrong grouping would lose or reorder messages; these
// pin them to their definitions first.
const require = createRequire(import.meta.url);
const crc32C = require("kafkajs/src/protocol/recordBatch/crc32C") as (buffer: Buffer) => number;
interface Encoder {
  writeUVarInt(value: number): unknown;
  writeVarInt(value: number): unknown;
  writeInt32(value: number): unknown;
  writeBuffer(value: Buffer): Encoder;
  writeEncoderArray(value: Encoder[]): Encoder;
  buffer: Buffer;
  /** The memory it holds; `buffer` is the part written. */
  buf: Buffer;
}
const Encoder = require("kafkajs/src/protocol/encoder") as new (initialSize?: number) => Encoder;
const Record = require("kafkajs/src/protocol/recordBatch/record/v0") as (record: {
  key: Buffer;
  value: Buffer;
  headers?: Record<string, string>;
}) => Encoder;

interface SocketRequestEntry {
  correlationId: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}
interface RequestQueue {
  push(request: { entry: SocketRequestEntry; expectResponse: boolean; sendRequest(): void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
  /** The timer that re-checks waiting requests, if one is armed. */
  throttleCheckTimeoutId: NodeJS.Timeout | null;
}
const RequestQueue = require("kafkajs/src/network/requestQueue") as new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: Record<"debug" | "info" | "warn" | "error", () => void>;
}) => RequestQueue;

const groupMessagesPerPartition = require("kafkajs/src/producer/groupMessagesPerPartition") as (args: {
  topic: string;
  partitionMetadata: { partitionId: number; leader: number }[];
  messages: { key: string; value: string }[];
  partitioner: (args: { message: { key: string } }) => number;
}) => Record<string, { key: string }[]>;

/** CRC-32C straight from its definition: reflected polynomial 0x82F63B78, one bit at a time. */
function crc32CByBit(buffer: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buffer) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Unsigned LEB128, as Kafka's record format writes lengths and offsets. */
function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value >>> 0;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

describe("kafkajs as patched", () => {
  it("computes CRC-32C: the standard check value and the bitwise definition at every tail length", () => {
    expect(crc32C(Buffer.from("123456789"))).toBe(0xe3069283);
    expect(crc32C(Buffer.alloc(0))).toBe(0);
    const lengths = [...Array.from({ length: 40 }, (_, i) => i), 1000, 1001, 1007, 4096, 65_539];
    for (const length of lengths) {
      const buffer = randomBytes(length);
      expect(crc32C(buffer), `length ${length}`).toBe(crc32CByBit(buffer));
    }
  });

  it("groups a send's messages by partition in their order (also 50k on one partition)", () => {
    const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1 }));
    const messages = Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: "v" }));
    const grouped = groupMessagesPerPartition({
      topic: "t",
      partitionMetadata,
      messages,
      partitioner: ({ message }) => Number(message.key.slice(1)) % 3,
    });
    expect(Object.fromEntries(Object.entries(grouped).map(([p, ms]) => [p, ms.map((m) => m.key)]))).toEqual({
      0: ["k0", "k3", "k6"],
      1: ["k1", "k4", "k7"],
      2: ["k2", "k5", "k8"],
    });
    const many = Array.from({ length: 50_000 }, (_, i) => ({ key: `k${i}`, value: "v" }));
    const one = groupMessagesPerPartition({
      topic: "t",
      partitionMetadata,
      messages: many,
      partitioner: () => 1,
    });
    expect(one[1]!.length).toBe(50_000);
    expect(one[1]![49_999]!.key).toBe("k49999");
    expect(
      groupMessagesPerPartition({ topic: "t", partitionMetadata: [], messages, partitioner: () => 0 }),
    ).toEqual({});
  });

  it("writes varints as LEB128 (zigzag for signed), also across the encoder's buffer growth", () => {
    const values = [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 21, 2 ** 28, 2 ** 31 - 1, 0xffffffff];
    for (const value of values) {
      const encoder = new Encoder(1);
      encoder.writeUVarInt(value);
      expect([...encoder.buffer], `uvarint ${value}`).toEqual(leb128(value));
    }
    const signed = new Encoder(1);
    for (const value of [0, -1, 1, -64, 64, -(2 ** 31)]) signed.writeVarInt(value);
    expect([...signed.buffer]).toEqual([0, 1, 2, 127, 128, 1, 255, 255, 255, 255, 15]);

    // Many varints between fixed-width fields: every byte lands after the one before it.
    const encoder = new Encoder(4);
    const expected: number[] = [];
    for (let i = 0; i < 500; i++) {
      const value = i * 7919;
      encoder.writeUVarInt(value);
      encoder.writeInt32(i);
      expected.push(...leb128(value), ...[...Buffer.from(new Int32Array([i]).buffer)].reverse());
    }
    expect([...encoder.buffer]).toEqual(expected);
  });

  it("allocates what a large value needs, not the next power of two, nor again for what follows it", () => {
    const value = randomBytes(100_000);
    // the batch's body, the batch, each layer of the request: a small head, then the large part
    const layer = new Encoder();
    layer.writeInt32(7);
    layer.writeBuffer(value);
    expect(layer.buffer.equals(Buffer.concat([Buffer.from([0, 0, 0, 7]), value]))).toBe(true);
    expect(layer.buf.length).toBe(4 + value.length);

    // a record is sized to itself, its headers' count (written last, when there are none) included
    const traced: Record<string, string> = {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    };
    for (const headers of [{}, traced]) {
      const record = Record({ key: Buffer.from("req_1"), value, headers });
      expect(record.buf.length - record.buffer.length).toBeLessThanOrEqual(10);
      expect(record.buffer.includes(value)).toBe(true);
    }

    // the records of a batch, before it is compressed: one buffer of their size, their bytes in order
    const records = [value, randomBytes(3), randomBytes(70_000)].map((v) =>
      Record({ key: Buffer.from("k"), value: v }),
    );
    const joined = new Encoder().writeEncoderArray(records);
    expect(joined.buffer.equals(Buffer.concat(records.map((r) => r.buffer)))).toBe(true);
    expect(joined.buf.length).toBe(joined.buffer.length);
  });

  it("arms no timer on a connection with nothing waiting, and still sends what waits out a throttle", async () => {
    const quiet = () => undefined;
    const queue = new RequestQueue({
      maxInFlightRequests: null,
      requestTimeout: 30_000,
      enforceRequestTimeout: false,
      clientId: "test",
      broker: "127.0.0.1:9092",
      logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    });
    const sent: number[] = [];
    const request = (correlationId: number) => {
      const answered = new Promise((resolve, reject) =>
        queue.push({
          entry: { correlationId, resolve, reject },
          expectResponse: true,
          sendRequest: () => sent.push(correlationId),
        }),
      );
      return answered;
    };
    try {
      // unpatched, the answer armed a 1 ms timer whose callback armed the next, for as long as
      // the connection lived
      const first = request(1);
      queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
      await first;
      expect(queue.throttleCheckTimeoutId).toBeNull();

      // a broker's throttle holds the next request back until it lifts, then the timer sends it
      // (long enough that the request is surely made before it lifts, on a busy machine too)
      queue.maybeThrottle(200);
      const second = request(2);
      expect(sent).toEqual([1]);
      expect(queue.throttleCheckTimeoutId).not.toBeNull();
      await expect.poll(() => sent, { timeout: 2_000 }).toEqual([1, 2]);
      queue.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
      await second;
      await expect.poll(() => queue.throttleCheckTimeoutId, { timeout: 2_000 }).toBeNull();
    } finally {
      queue.destroy();
    }
  });
});
