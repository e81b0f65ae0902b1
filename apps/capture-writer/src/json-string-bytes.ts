/**
 * A JSON string's contents from UTF-8 bytes, without making the bytes a string first: the bytes
 * of `JSON.stringify(bytes.toString("utf8")).slice(1, -1)` for valid UTF-8, which has no lone
 * surrogates for JSON.stringify to escape. A coding agent's request is JSON holding source code,
 * so its text is full of quotes, backslashes and newlines; escaping it as bytes takes less than
 * half the time of decoding, stringifying and encoding it again, and leaves no 100 KB strings
 * behind for the collector (bench/RESULTS.md, "capture writer").
 */

/** Per byte: 0 copied as it is, 1 a two-character escape, 2 `\u00XX` (the other control characters). */
const escapeKind = new Uint8Array(256);
/** The character after the backslash of a two-character escape. */
const shortEscape = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) escapeKind[byte] = 2;
for (const [byte, char] of [
  [0x22, '"'],
  [0x5c, "\\"],
  [0x08, "b"],
  [0x0c, "f"],
  [0x0a, "n"],
  [0x0d, "r"],
  [0x09, "t"],
] as const) {
  escapeKind[byte] = 1;
  shortEscape[byte] = char.charCodeAt(0);
}
const hexDigits = Buffer.from("0123456789abcdef", "latin1");

/** The escaped bytes (`bytes` itself when nothing needs escaping). */
export function jsonStringBytes(bytes: Buffer): Buffer {
  let extra = 0;
  for (let i = 0; i < bytes.length; i++) {
    const kind = escapeKind[bytes[i]!]!;
    if (kind !== 0) extra += kind === 1 ? 1 : 5;
  }
  if (extra === 0) return bytes;
  const out = Buffer.allocUnsafe(bytes.length + extra);
  let at = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    const kind = escapeKind[byte]!;
    if (kind === 0) {
      out[at++] = byte;
    } else {
      out[at++] = 0x5c;
      if (kind === 1) {
        out[at++] = shortEscape[byte]!;
      } else {
        out[at++] = 0x75; // u00XX
        out[at++] = 0x30;
        out[at++] = 0x30;
        out[at++] = hexDigits[byte >> 4]!;
        out[at++] = hexDigits[byte & 0x0f]!;
      }
    }
  }
  return out;
}
