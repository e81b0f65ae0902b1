import * as zlib from "node:zlib";
import kafkajs from "kafkajs";

// (a CommonJS module whose named exports Node cannot all detect: these two are read off it)
const { CompressionCodecs, CompressionTypes } = kafkajs;

/** How the bus compresses the batches it produces; its consumers read both, and uncompressed ones. */
export type BatchCodec = "zstd" | "gzip";

// Node has zstd from 22.15 and 23.8 (the floor is 22.12): looked up, not imported by name
const zstdCompressSync = zlib.zstdCompressSync as typeof zlib.zstdCompressSync | undefined;
const zstdDecompressSync = zlib.zstdDecompressSync as typeof zlib.zstdDecompressSync | undefined;

/** Whether this Node can write and read zstd batches. */
const zstdAvailable = zstdCompressSync !== undefined && zstdDecompressSync !== undefined;

/**
 * zstd where Node has it, else gzip. A call's event is mostly its bodies, text that compresses
 * several times over, and each byte saved is one that kafkajs neither copies through its nested
 * encoders nor checksums in JavaScript (bench/RESULTS.md, "Kafka batches compressed"). zstd at
 * level 1 compresses a 100 KB prompt in less than half of gzip's time at its fastest level, and
 * a little smaller (bench/RESULTS.md, "zstd"); gzip is what every Node and every Kafka client reads.
 */
export const defaultBatchCodec: BatchCodec = zstdAvailable ? "zstd" : "gzip";

export function compressionType(codec: BatchCodec): number {
  if (codec === "zstd" && !zstdAvailable)
    throw new Error("zstd batch compression needs Node >= 22.15 (or >= 23.8); use gzip");
  return codec === "zstd" ? CompressionTypes.ZSTD : CompressionTypes.GZIP;
}

/*
 * Both codecs at their fastest level (kafkajs's own gzip codec uses zlib's default level, several
 * times slower for a few per cent more), and synchronous on purpose: zlib's asynchronous calls run
 * on libuv's threads, and their memory, freed across threads, stayed with the process (the split
 * gateway held 1.8 GB after a bench with 100 KB prompts, against 0.5 GB this way). Reading accepts
 * any gzip or zstd batch, whoever wrote it.
 */
CompressionCodecs[CompressionTypes.GZIP] = () => ({
  compress: async (encoder: { buffer: Buffer }) => zlib.gzipSync(encoder.buffer, { level: 1 }),
  decompress: async (buffer: Buffer) => zlib.unzipSync(buffer),
});

if (zstdCompressSync && zstdDecompressSync) {
  const level = { params: { [zlib.constants.ZSTD_c_compressionLevel]: 1 } };
  CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: async (encoder: { buffer: Buffer }) => zstdCompressSync(encoder.buffer, level),
    decompress: async (buffer: Buffer) => zstdDecompressSync(buffer),
  });
}
