const frameEnd = Buffer.from("\n\n");

/**
 * Passes a provider-B chat stream through frame by frame, byte for byte, except for the
 * usage-only chunk (`"choices":[]` with a usage object) that the gateway requested on the
 * caller's behalf. Holds back at most one incomplete frame.
 */
export function createUsageChunkFilter() {
  let pending: Buffer = Buffer.alloc(0);

  function isUsageChunk(frame: Buffer): boolean {
    const text = frame.toString("utf8");
    return text.startsWith("data: {") && text.includes('"choices":[]') && text.includes('"usage":{');
  }

  return {
    /** The complete frames in `chunk` (after what was held back) that the caller should get. */
    push(chunk: Buffer): Buffer | null {
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const kept: Buffer[] = [];
      let start = 0;
      for (let end = data.indexOf(frameEnd, start); end !== -1; end = data.indexOf(frameEnd, start)) {
        const frame = data.subarray(start, end + frameEnd.length);
        if (!isUsageChunk(frame)) kept.push(frame);
        start = end + frameEnd.length;
      }
      pending = Buffer.from(data.subarray(start));
      if (kept.length === 0) return null;
      return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
    },
    /** Whatever is left when the stream ends: a last frame without its blank line. */
    flush(): Buffer | null {
      const rest = pending;
      pending = Buffer.alloc(0);
      return rest.length > 0 && !isUsageChunk(rest) ? rest : null;
    },
  };
}
