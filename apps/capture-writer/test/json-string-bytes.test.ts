import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jsonStringBytes } from "../src/json-string-bytes.ts";

/** What the escaper stands for: JSON.stringify of the text, without its quotes, as UTF-8. */
const byDefinition = (text: string) => Buffer.from(JSON.stringify(text).slice(1, -1));

/** Text of every kind a body holds: ASCII, all controls, quotes, backslashes, 2-, 3- and 4-byte characters. */
function randomText(length: number): string {
  const pool = [
    () => String.fromCharCode(randomInt(0x20, 0x7f)),
    () => String.fromCharCode(randomInt(0, 0x20)),
    () => (randomInt(2) ? '"' : "\\"),
    () => String.fromCharCode(0x7f),
    () => String.fromCharCode(randomInt(0x80, 0x800)),
    () => String.fromCharCode(randomInt(0x800, 0xd800)),
    () => String.fromCharCode(randomInt(0xe000, 0x10000)),
    () => String.fromCodePoint(randomInt(0x10000, 0x110000)),
    () => (randomInt(2) ? "\u2028" : "\u2029"),
  ];
  let text = "";
  while (text.length < length) text += pool[randomInt(pool.length)]!();
  return text;
}

describe("jsonStringBytes", () => {
  it("escapes UTF-8 bytes exactly as JSON.stringify escapes their text", () => {
    for (let code = 0; code < 0x80; code++) {
      const text = String.fromCharCode(code);
      expect(jsonStringBytes(Buffer.from(text)), `U+${code.toString(16)}`).toEqual(byDefinition(text));
    }
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(randomInt(0, 300));
      expect(jsonStringBytes(Buffer.from(text))).toEqual(byDefinition(text));
    }
    // a request as a coding agent sends it: JSON whose strings hold source code
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the quoted source holds a template literal
    const source = 'const a = "x\\ty";\n\tif (b) return `${c}`; // — µ →\r\n';
    const request = JSON.stringify({ model: "m", messages: [{ role: "user", content: source.repeat(500) }] });
    expect(jsonStringBytes(Buffer.from(request))).toEqual(byDefinition(request));
  });

  it("gives back the bytes themselves when nothing needs escaping", () => {
    const plain = Buffer.from("plain text, ünïcödé and 🙂 too");
    expect(jsonStringBytes(plain)).toBe(plain);
    const empty = Buffer.alloc(0);
    expect(jsonStringBytes(empty)).toBe(empty);
  });

  it("copies every byte past 0x7f through as it is, escaping only the ASCII it must", () => {
    // (the capture writer stores invalid UTF-8 as base64 and never escapes it; this pins that the
    // escaper itself copies such bytes through, each of the 256 on its own and all in a row)
    const every = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    const expected = Buffer.concat([...every].map((byte) => byOneByte(byte)));
    expect(jsonStringBytes(every)).toEqual(expected);
    for (const byte of every) expect(jsonStringBytes(Buffer.from([byte]))).toEqual(byOneByte(byte));
  });

  it("escapes a body in pieces the same as whole (a large one is escaped piece by piece)", () => {
    const request = Buffer.from(JSON.stringify({ content: randomText(5_000) }));
    const whole = jsonStringBytes(request);
    for (const pieceBytes of [1, 7, 1_000, request.length - 1])
      expect(jsonStringBytes(request, pieceBytes)).toEqual(whole);
  });
});

/** One byte escaped by JSON's rules: a quote, a backslash or a control below 0x20, else itself. */
function byOneByte(byte: number): Buffer {
  const short: Record<number, string> = { 34: '"', 92: "\\", 8: "b", 12: "f", 10: "n", 13: "r", 9: "t" };
  if (short[byte] !== undefined) return Buffer.from(`\\${short[byte]}`);
  if (byte < 0x20) return Buffer.from(`\\u00${byte.toString(16).padStart(2, "0")}`);
  return Buffer.from([byte]);
}
