import { frameEndInBytes, parseFrame } from "@gateway/providers";

/**
 * Passes a provider-B chat stream through frame by frame, byte for byte, except for the
 * usage-only chunk (an empty `choices` list with a usage object) that the gateway requested on
 * the caller's behalf. Holds back at most one incomplete frame.
 */
export function createUsageChunkFilter() {
  let pending: Buffer = Buffer.alloc(0);

  return {
    /** The complete frames in `chunk` (after what was held back) that the caller should get. */
    push(chunk: Buffer): Buffer | null {
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const kept: Buffer[] = [];
      let start = 0;
      for (let end = frameEndInBytes(data); end.index !== -1; end = frameEndInBytes(data, start)) {
        const frame = data.subarray(start, end.index + end.length);
        if (!isUsageChunk(frame)) kept.push(frame);
        start = end.index + end.length;
      }
      pending = start === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(start));
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

const usageMarker = Buffer.from('"usage"');
const contentChoices = Buffer.from('"choices":[{');

/** One frame: decoded and parsed only when it may be the usage chunk (most carry content). */
function isUsageChunk(frame: Buffer): boolean {
  if (!frame.includes(usageMarker) || frame.includes(contentChoices)) return false;
  try {
    const chunk: unknown = JSON.parse(parseFrame(frame.toString("utf8")).data);
    if (typeof chunk !== "object" || chunk === null) return false;
    const { choices, usage } = chunk as { choices?: unknown; usage?: unknown };
    return Array.isArray(choices) && choices.length === 0 && typeof usage === "object" && usage !== null;
  } catch {
    return false;
  }
}
