import * as zlib from "node:zlib";
import kafkajs from "kafkajs";

// (a CommonJS module whose named exports Node cannot all detect: these two are read off it)
const { CompressionCodecs, CompressionTypes } = kafkajs;

/** How the bus compresses the batches it produces; its consumers read both, and uncompressed ones. */
export type BatchCodec = "zstd" | "gzip";

// Node has zstd from 22.15 and 23.8 (the floor is 22.13): looked up, not assumed
const { zstdCompressSync, zstdDecompressSync } = zlib as Partial<typeof zlib>;
const zstd =
  zstdCompressSync && zstdDecompressSync
    ? { compress: zstdCompressSync, decompress: zstdDecompressSync }
    : null;

/**
 * zstd where Node has it, else gzip. A call's event is mostly its bodies, text that compresses
 * several times over, and each byte saved is one that kafkajs neither copies through its nested
 * encoders nor checksums in JavaScript (bench/RESULTS.md, "Kafka batches compressed"). zstd at
 * level 1 compresses a 100 KB prompt in less than half of gzip's time at its fastest level, and
 * a little smaller (bench/RESULTS.md, "real prompts, zstd batches"); gzip is what every Node and every Kafka client reads.
 */
export const defaultBatchCodec: BatchCodec = zstd ? "zstd" : "gzip";

export function compressionType(codec: BatchCodec): number {
  if (codec === "zstd" && !zstd)
    throw new Error(
      `zstd batch compression needs Node >= 22.15 (23.x: >= 23.8), this is ${process.version}: set GATEWAY_KAFKA_COMPRESSION=gzip`,
    );
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
  compress: async ({ buffer }: { buffer: Buffer }) => zlib.gzipSync(buffer, { level: 1 }),
  decompress: async (buffer: Buffer) => zlib.unzipSync(buffer, { chunkSize: decompressedChunk(buffer) }),
});

if (zstd) {
  const level = { [zlib.constants.ZSTD_c_compressionLevel]: 1 };
  CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: async ({ buffer }: { buffer: Buffer }) => zstd.compress(buffer, { params: level }),
    decompress: async (buffer: Buffer) => zstd.decompress(buffer, { chunkSize: decompressedChunk(buffer) }),
  });
}

/*
 * The buffer a decompression fills, sized to what the batch will likely need: zlib's default of
 * 16 KB made a batch of 100 KB events a few hundred round trips into the codec and a join of their
 * chunks (~30 % of a 100 KB event's decompression). Text shrinks ~3-4x, so four times the input;
 * more output takes another chunk, as before. Compression keeps the default: sized from its input
 * (half of it), the gateway's CPU per 100 KB call did not fall (1,137-1,260 µs against 1,147-1,200
 * in an A/B; presumably its larger buffers count against V8's external memory).
 */
const decompressedChunk = (input: Buffer) =>
  Math.min(16 * 1024 * 1024, Math.max(16 * 1024, input.length * 4));
