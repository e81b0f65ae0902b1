/**
 * A JSON string's contents from UTF-8 bytes, without decoding them: the bytes of
 * `JSON.stringify(bytes.toString("utf8")).slice(1, -1)` for valid UTF-8, which has no lone
 * surrogates for JSON.stringify to escape. A coding agent's request is JSON holding source code, so
 * its text is full of quotes, backslashes and newlines to escape once more.
 *
 * The bytes are read as Latin-1, one character per byte: JSON.stringify then escapes exactly the
 * bytes JSON needs escaped (the quote, the backslash, the controls below 0x20, all ASCII) and
 * leaves every other character as it is, and writing the result as Latin-1 gives each byte back,
 * the bytes of multi-byte characters included. Both conversions are plain copies of a one-byte
 * string, and V8's JSON.stringify escapes such a string natively: on a coding agent's 100 KB
 * prompt about 210 µs, against 860 through UTF-8 strings and 400 for a byte loop in JavaScript
 * (bench/RESULTS.md, "capture writer").
 *
 * Each byte is escaped on its own, so a large body is escaped in pieces of `pieceBytes` (smaller
 * in tests): escaped, a piece can grow six times (`\u00XX`), and V8's strings stop at 2^29 - 24
 * characters, which a body of ~90 MB of control characters would pass.
 */
export function jsonStringBytes(bytes: Buffer, pieceBytes = 16 * 1024 * 1024): Buffer {
  if (bytes.length <= pieceBytes) return escapePiece(bytes);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += pieceBytes)
    pieces.push(escapePiece(bytes.subarray(at, at + pieceBytes)));
  return Buffer.concat(pieces);
}

function escapePiece(bytes: Buffer): Buffer {
  const quoted = JSON.stringify(bytes.toString("latin1"));
  // nothing escaped: the bytes as they are
  if (quoted.length === bytes.length + 2) return bytes;
  return Buffer.from(quoted, "latin1").subarray(1, -1);
}
