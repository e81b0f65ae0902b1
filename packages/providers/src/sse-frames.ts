/**
 * SSE frames end at a blank line. Providers use LF, but CRLF is legal SSE and some servers send
 * it; every reader of a stream must agree on where frames end.
 */
export function frameEnd(text: string, from = 0): { index: number; length: number } {
  const lf = text.indexOf("\n\n", from);
  const crlf = text.indexOf("\r\n\r\n", from);
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { index: crlf, length: 4 };
  return { index: lf, length: 2 };
}

const lf = Buffer.from("\n\n");
const crlf = Buffer.from("\r\n\r\n");

/** `frameEnd` on bytes, so frames can be cut without decoding them. */
export function frameEndInBytes(bytes: Buffer, from = 0): { index: number; length: number } {
  const a = bytes.indexOf(lf, from);
  const b = bytes.indexOf(crlf, from);
  if (b !== -1 && (a === -1 || b < a)) return { index: b, length: 4 };
  return { index: a, length: 2 };
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
  for (const raw of frame.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(line[5] === " " ? 6 : 5);
    else if (line.startsWith("event:")) event = line.slice(line[6] === " " ? 7 : 6).trim();
  }
  return { event, data };
}
