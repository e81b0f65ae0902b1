import { describe, expect, it } from "vitest";
import { frameEnd, frameEndInBytes, parseFrame } from "../src/index.ts";

describe("frame ends", () => {
  const cases: [text: string, from: number, index: number, length: number][] = [
    ["data: a\n\ndata: b\r\n\r\n", 0, 7, 2],
    ["data: a\r\n\r\ndata: b\n\n", 0, 7, 4],
    // a lone LF before a CRLF blank line is no end of either kind
    ["data: a\n\r\ndata: b\r\n\r\n", 0, 17, 4],
    ["data: a\ndata: b", 0, -1, 0],
    // an end that starts before `from` is not found from there
    ["data: a\r\n\r\n", 8, -1, 0],
    ["data: a\r\n\r\n", 7, 7, 4],
  ];
  it.each(cases)("text and bytes agree: %j from %i", (text, from, index, length) => {
    expect(frameEnd(text, from)).toEqual({ index, length });
    expect(frameEndInBytes(Buffer.from(text), from)).toEqual({ index, length });
  });
});

describe("a frame's fields", () => {
  const cases: [frame: string, event: string, data: string][] = [
    ['data: {"a":1}', "", '{"a":1}'],
    ["data:x", "", "x"],
    ["event: message_delta\ndata: {}", "message_delta", "{}"],
    // CRLF lines, and data over several lines joined by a line feed
    ["event: e\r\ndata: a\r\ndata: b\r", "e", "a\nb"],
    // a CR inside a line is part of it (SSE would end a line there too; no provider sends one, and
    // frames are cut at LF and CRLF only: see `frameEnd`); a last empty line adds nothing
    ["data: a\rb\n", "", "a\rb"],
    [": a comment\nretry: 5", "", ""],
    ["", "", ""],
  ];
  it.each(cases)("%j", (frame, event, data) => {
    expect(parseFrame(frame)).toEqual({ event, data });
  });
});
