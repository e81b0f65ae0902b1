import { describe, expect, it } from "vitest";
import { readRequestJson } from "../src/request-json.ts";

/** What the gateway read before: the body decoded as UTF-8, parsed whole. */
function reference(body: Buffer) {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const object = value as Record<string, unknown>;
    return {
      model: typeof object.model === "string" ? object.model : null,
      stream: object.stream === true,
      whole: object,
    };
  } catch {
    return null;
  }
}

/** The reading, the same whether or not the caller says it will rewrite the body. */
function read(body: Buffer) {
  const [passed, rewritten] = [false, true].map((r) => {
    const request = readRequestJson(body, { rewritten: r });
    return request && { model: request.model, stream: request.stream, whole: request.whole() };
  });
  expect(rewritten).toEqual(passed);
  return passed;
}

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

describe("a request body read as JSON", () => {
  it.each([
    ["ASCII", bytes('{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}]}')],
    ["non-ASCII content", bytes('{"model":"m","stream":true,"messages":[{"content":"µs → ✓ 日本 😀"}]}')],
    ["a non-ASCII model name", bytes('{"model":"modèle-日本","stream":false}')],
    ["a model name of raw UTF-8 and escapes", bytes('{"model":"é\\u00e9\\u65e5日","x":"ü"}')],
    ["an escaped key", bytes('{"mod\\u0065l":"m","str\\u0065am":true,"c":"ß"}')],
    ["duplicate keys, the last winning", bytes('{"model":"a","model":"b","stream":true,"stream":1,"c":"é"}')],
    ["invalid UTF-8 inside a string", bytes('{"model":"m","c":"', [0xe2, 0x28, 0xa1, 0xff, 0xc0], '"}')],
    ["invalid UTF-8 before a quote", bytes('{"model":"m","c":"', [0xe2], '","stream":true}')],
    ["stream as text", bytes('{"model":"m","stream":"true"}')],
    ["a model that is not a string", bytes('{"model":["é"],"stream":true}')],
  ])("reads %s as the UTF-8 reading does", (_, body) => {
    expect(read(body)).toEqual(reference(body));
    expect(read(body)).not.toBeNull();
  });

  it.each([
    ["a top-level array", bytes('[{"model":"m"}]')],
    ["a string", bytes('"é"')],
    ["null", bytes("null")],
    ["a cut body", bytes('{"model":"é","messages":[')],
    ["a raw newline in a string", bytes('{"model":"m","c":"a\nb"}')],
    ["a byte-order mark", bytes([0xef, 0xbb, 0xbf], '{"model":"m"}')],
    ["non-ASCII outside a string", bytes('{"model":"m"}', [0xc2, 0xa0])],
    ["an invalid escape", bytes('{"model":"m","c":"\\x41é"}')],
    ["empty", bytes("")],
  ])("refuses %s, as the UTF-8 reading does", (_, body) => {
    expect(reference(body)).toBeNull();
    expect(readRequestJson(body)).toBeNull();
  });

  it("agrees with the UTF-8 reading on bodies with random bytes written into them", () => {
    // a deterministic generator: the same bodies on every run
    let seed = 0x2545f491;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const base = bytes(
      '{"model":"gpt-5.4-é","stream":true,"stream_options":{"include_usage":true},',
      '"messages":[{"role":"user","content":"µs → \\"quoted\\" \\u00e9 日本\\n"}],"n":1.5e3}',
    );
    const pool = [0x22, 0x5c, 0x7b, 0x7d, 0x3a, 0x2c, 0x0a, 0x20, 0x61, 0x80, 0xc3, 0xa9, 0xe2, 0xff, 0x00];
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      const body = Buffer.from(base);
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++)
        body[Math.floor(random() * body.length)] = pool[Math.floor(random() * pool.length)]!;
      const expected = reference(body);
      expect(read(body)).toEqual(expected);
      if (expected) accepted++;
    }
    // both kinds were met: bodies still valid after the edits, and bodies no longer valid
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(4_900);
  });

  it("keeps one object for an ASCII body, and parses a non-ASCII one as UTF-8 only when asked", () => {
    const ascii = readRequestJson(bytes('{"model":"m","c":"\\u00e9"}'))!;
    expect(ascii.whole()).toBe(ascii.whole());
    expect(ascii.whole()).toEqual({ model: "m", c: "é" });
    const utf8 = readRequestJson(bytes('{"model":"m","c":"é"}'))!;
    expect(utf8.whole()).toEqual({ model: "m", c: "é" });
    expect(utf8.whole()).toBe(utf8.whole());
  });
});
