import { gzipSync, unzipSync } from "node:zlib";
import kafkajs from "kafkajs";

// (a CommonJS module whose named exports Node cannot all detect: these two are read off it)
const { CompressionCodecs, CompressionTypes } = kafkajs;

/**
 * The compression of every batch the bus produces: gzip, the one codec every Kafka client reads
 * and Node's zlib carries, at level 1. A call's event is mostly its bodies (text that compresses
 * several times over), and each byte saved is one that kafkajs neither copies through its nested
 * encoders nor checksums in JavaScript (bench/RESULTS.md, "Kafka batches compressed"). kafkajs's
 * own gzip codec compresses at zlib's default level, several times slower for little more; this
 * one replaces it (reading is unchanged: any gzip batch, whoever wrote it).
 *
 * Synchronous on purpose: zlib's asynchronous calls run on libuv's threads, and their memory,
 * freed across threads, stayed with the process (the split gateway held 1.8 GB after a bench with
 * 100 KB prompts, against 0.5 GB this way). A batch takes ~0.1-0.2 ms to compress.
 */
export const batchCompression = CompressionTypes.GZIP;

CompressionCodecs[CompressionTypes.GZIP] = () => ({
  compress: async (encoder: { buffer: Buffer }) => gzipSync(encoder.buffer, { level: 1 }),
  decompress: async (buffer: Buffer) => unzipSync(buffer),
});
