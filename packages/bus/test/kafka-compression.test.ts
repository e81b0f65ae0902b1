import { randomBytes } from "node:crypto";
import * as zlib from "node:zlib";
import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import "../src/kafka-compression.ts";

const { CompressionCodecs, CompressionTypes } = kafkajs;

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

// (a Node without zstd, >= 22.13 but < 22.15, has only gzip here)
const types = [
  ["gzip", CompressionTypes.GZIP],
  ...("zstdCompressSync" in zlib ? ([["zstd", CompressionTypes.ZSTD]] as const) : []),
] as const;

describe("the bus's batch codecs", () => {
  // Decompression's output buffer is sized from the input (four times it): a batch that shrank
  // more takes more of them.
  const batches = {
    empty: Buffer.alloc(0),
    "text that shrinks ~4x": Buffer.from(
      Array.from({ length: 4_000 }, (_, i) => `line ${i}: const value = "${i * 7919}";\n`).join(""),
    ),
    "random bytes that do not shrink": randomBytes(300_000),
    "zeros that shrink a thousandfold": Buffer.alloc(2_000_000),
  };
  for (const [name, type] of types) {
    it(`${name}: gives back every batch as it was`, async () => {
      const codec = (CompressionCodecs[type] as () => Codec)();
      for (const [what, batch] of Object.entries(batches)) {
        const compressed = await codec.compress({ buffer: batch });
        expect((await codec.decompress(compressed)).equals(batch), what).toBe(true);
      }
    });
  }
});
