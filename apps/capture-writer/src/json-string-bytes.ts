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
  const pieces = jsonStringPieces(bytes, pieceBytes);
  const [only] = pieces;
  return pieces.length === 1 && Buffer.isBuffer(only) ? only : joinPieces(pieces);
}

/**
 * Bytes to write, as they are made: a Buffer, or a string of one-byte characters (Latin-1) that
 * is written as its bytes. An escaped body stays the string JSON.stringify made until it is
 * written into the segment: turning it into a Buffer of its own first cost a copy and garbage.
 */
export type BytePiece = Buffer | string;

/** `jsonStringBytes` as pieces to write (`joinPieces`), without joining them. */
export function jsonStringPieces(bytes: Buffer, pieceBytes = 16 * 1024 * 1024): BytePiece[] {
  if (bytes.length <= pieceBytes) return [escapePiece(bytes)];
  const pieces: BytePiece[] = [];
  for (let at = 0; at < bytes.length; at += pieceBytes)
    pieces.push(escapePiece(bytes.subarray(at, at + pieceBytes)));
  return pieces;
}

/** The pieces' bytes, one after the other, in one Buffer. */
export function joinPieces(pieces: readonly BytePiece[]): Buffer {
  const out = Buffer.allocUnsafe(pieces.reduce((total, piece) => total + piece.length, 0));
  let at = 0;
  for (const piece of pieces)
    at += typeof piece === "string" ? out.write(piece, at, "latin1") : piece.copy(out, at);
  return out;
}

function escapePiece(bytes: Buffer): BytePiece {
  const quoted = JSON.stringify(bytes.toString("latin1"));
  // nothing escaped: the bytes as they are
  if (quoted.length === bytes.length + 2) return bytes;
  return quoted.slice(1, -1);
}
