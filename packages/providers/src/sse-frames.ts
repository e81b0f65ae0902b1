/**
 * SSE frames end at a blank line. Providers use LF, but CRLF is legal SSE and some servers send
 * it; every reader of a stream must agree on where frames end: at the first `\n\n` or
 * `\r\n\r\n`, whichever comes first. Both searches below look at each line feed once: looking
 * for the other kind of end separately would scan the rest of the text for every frame, which
 * is quadratic in a stream that arrives in one piece.
 */
const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the first frame end at or after `from` starts, and its length; index -1 (length 0) when
 * there is none yet.
 */
export function frameEnd(text: string, from = 0): { index: number; length: number } {
  for (let at = text.indexOf("\n", from); at !== -1; at = text.indexOf("\n", at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next === LF) return { index: at, length: 2 };
    if (next === CR && at > from && text.charCodeAt(at - 1) === CR && text.charCodeAt(at + 2) === LF)
      return { index: at - 1, length: 4 };
  }
  return { index: -1, length: 0 };
}

/** `frameEnd` on bytes, so frames can be cut without decoding them. */
export function frameEndInBytes(bytes: Buffer, from = 0): { index: number; length: number } {
  for (let at = bytes.indexOf(LF, from); at !== -1; at = bytes.indexOf(LF, at + 1)) {
    const next = bytes[at + 1];
    if (next === LF) return { index: at, length: 2 };
    if (next === CR && at > from && bytes[at - 1] === CR && bytes[at + 2] === LF)
      return { index: at - 1, length: 4 };
  }
  return { index: -1, length: 0 };
}

/** Whether `bytes` ends exactly at a frame boundary (nothing of a frame sent without its end). */
export function endsAtFrameBoundary(bytes: Buffer): boolean {
  const n = bytes.length;
  return (
    n >= 2 &&
    bytes[n - 1] === 0x0a &&
    (bytes[n - 2] === 0x0a || (n >= 4 && bytes[n - 2] === 0x0d && bytes[n - 3] === 0x0a))
  );
}

/** A frame's `event:` name (empty when it has none) and its `data:` lines joined. */
export function parseFrame(frame: string): { event: string; data: string } {
  let event = "";
  let data = "";
  // line by line in place (most frames are one `data:` line), not through an array of them
  for (let start = 0; start <= frame.length; ) {
    const lineEnd = frame.indexOf("\n", start);
    const end = lineEnd === -1 ? frame.length : lineEnd;
    const line = frame.slice(start, frame.charCodeAt(end - 1) === CR && end > start ? end - 1 : end);
    if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(line[5] === " " ? 6 : 5);
    else if (line.startsWith("event:")) event = line.slice(line[6] === " " ? 7 : 6).trim();
    start = end + 1;
  }
  return { event, data };
}
