import { describe, expect, it } from "vitest";
import { factsFromJsonBody, normaliseUsage, SseFactsTracker } from "../src/index.ts";

describe("normaliseUsage", () => {
  it("provider A: input excludes cache; TTL split kept; no split bills all writes at 5m", () => {
    const usage = normaliseUsage("messages", {
      input_tokens: 14,
      cache_creation_input_tokens: 1210,
      cache_read_input_tokens: 7,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 210 },
      output_tokens: 6,
    });
    expect(usage).toMatchObject({
      input_tokens: 14,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 1210,
      cache_creation_5m_input_tokens: 1000,
      cache_creation_1h_input_tokens: 210,
      output_tokens: 6,
    });
    expect(
      normaliseUsage("messages", { input_tokens: 1, cache_creation_input_tokens: 50, output_tokens: 2 }),
    ).toMatchObject({ cache_creation_5m_input_tokens: 50, cache_creation_1h_input_tokens: 0 });
  });

  it("provider A with compaction iterations sums them instead of the top level", () => {
    const usage = normaliseUsage("messages", {
      input_tokens: 10,
      output_tokens: 5,
      iterations: [
        {
          type: "compaction",
          input_tokens: 100,
          output_tokens: 20,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
        {
          type: "message",
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 3,
          cache_creation_input_tokens: 0,
        },
      ],
    });
    expect(usage).toMatchObject({ input_tokens: 110, output_tokens: 25, cache_read_input_tokens: 3 });
  });

  it("provider B chat and responses: cached reads and writes come out of the prompt count", () => {
    expect(
      normaliseUsage("chat_completions", {
        prompt_tokens: 1320,
        completion_tokens: 75,
        total_tokens: 1395,
        prompt_tokens_details: { cached_tokens: 1152, cache_write_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 64 },
      }),
    ).toMatchObject({
      input_tokens: 68,
      cache_read_input_tokens: 1152,
      cache_creation_input_tokens: 100,
      output_tokens: 75,
    });
    expect(
      normaliseUsage("responses", {
        input_tokens: 2048,
        input_tokens_details: { cached_tokens: 1920 },
        output_tokens: 90,
        output_tokens_details: { reasoning_tokens: 64 },
      }),
    ).toMatchObject({
      input_tokens: 128,
      cache_read_input_tokens: 1920,
      cache_creation_input_tokens: 0,
      output_tokens: 90,
    });
  });

  it("is null for anything that is not a usage object", () => {
    expect(normaliseUsage("messages", null)).toBeNull();
    expect(normaliseUsage("chat_completions", [1])).toBeNull();
    expect(factsFromJsonBody("messages", Buffer.from("not json"))).toEqual({ usage: null, responseId: null });
  });
});

/** Feeds `text` to a tracker in pieces of `size` bytes, splitting frames and UTF-8 characters. */
function track(format: ConstructorParameters<typeof SseFactsTracker>[0], text: string, size: number) {
  const tracker = new SseFactsTracker(format);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) tracker.push(bytes.subarray(i, i + size));
  return tracker.finish();
}

const providerAStream = `${[
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5","content":[],"stop_reason":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":1}}}',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Ninety ✓"}}',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":21,"cache_creation_input_tokens":null,"cache_read_input_tokens":1200,"output_tokens":58}}',
  'event: message_stop\ndata: {"type":"message_stop"}',
].join("\n\n")}\n\n`;

describe("SseFactsTracker", () => {
  it.each([1, 7, 64, 100_000])(
    "provider A: cumulative deltas overwrite, never add (chunks of %i bytes)",
    (size) => {
      const facts = track("messages", providerAStream, size);
      expect(facts.responseId).toBe("msg_01");
      expect(facts.usage).toMatchObject({
        input_tokens: 21,
        cache_read_input_tokens: 1200,
        output_tokens: 58,
      });
      expect(facts.sawEnd).toBe(true);
      expect(facts.sawError).toBe(false);
    },
  );

  it("provider A: CRLF framing and an error event", () => {
    const facts = track(
      "messages",
      `${providerAStream.replaceAll("\n", "\r\n")}event: error\r\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\r\n\r\n`,
      5,
    );
    expect(facts.usage?.output_tokens).toBe(58);
    expect(facts.sawError).toBe(true);
  });

  it("provider B chat: usage only from the include_usage chunk", () => {
    const chunk = (extra: string) =>
      `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]${extra}}\n\n`;
    const withUsage = `${chunk(',"usage":null')}${chunk(',"usage":null')}data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":6}}}\n\ndata: [DONE]\n\n`;
    const facts = track("chat_completions", withUsage, 9);
    expect(facts).toMatchObject({ responseId: "chatcmpl-1", sawEnd: true });
    expect(facts.usage).toMatchObject({ input_tokens: 4, cache_read_input_tokens: 6, output_tokens: 4 });
    expect(track("chat_completions", `${chunk("")}data: [DONE]\n\n`, 3).usage).toBeNull();
    expect(
      track("chat_completions", `${chunk("")}data: {"error":{"message":"x","type":"server_error"}}\n\n`, 3)
        .sawError,
    ).toBe(true);
  });

  it.each([1, 2, 5])("provider B chat: a character cut between chunks of %i bytes is read whole", (size) => {
    const text = `data: {"id":"chatcmpl-✓é","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\ndata: [DONE]\n\n`;
    expect(track("chat_completions", text, size)).toMatchObject({ responseId: "chatcmpl-✓é", sawEnd: true });
  });

  it("provider B chat: the response's id from the first frame when no frame read later names it", () => {
    const delta = (id: string) =>
      `data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n`;
    // no usage chunk: the first frame, left unread on the way, is read for its id at the end
    expect(
      track("chat_completions", `${delta("chatcmpl-a")}${delta("chatcmpl-b")}data: [DONE]\n\n`, 4),
    ).toMatchObject({
      responseId: "chatcmpl-a",
      usage: null,
    });
    // and mid-stream, for an error frame that names the response
    const tracker = new SseFactsTracker("chat_completions");
    tracker.push(Buffer.from(delta("chatcmpl-c")));
    expect(tracker.responseId).toBe("chatcmpl-c");
  });

  it("provider B responses: usage from the terminal event, with or without [DONE]", () => {
    const stream = [
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","usage":null}}',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"delta":"97"}',
      'event: response.completed\ndata: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","usage":{"input_tokens":40,"input_tokens_details":{"cached_tokens":8},"output_tokens":5}}}',
    ].join("\n\n");
    for (const text of [`${stream}\n\n`, `${stream}\n\ndata: [DONE]\n\n`]) {
      const facts = track("responses", text, 11);
      expect(facts).toMatchObject({ responseId: "resp_1", sawEnd: true, sawError: false });
      expect(facts.usage).toMatchObject({ input_tokens: 32, cache_read_input_tokens: 8, output_tokens: 5 });
    }
  });
});

describe("SseFactsTracker on text that quotes event names", () => {
  it("provider B responses: a terminal event whose output quotes another event's name still counts", () => {
    const quoted = 'the stream sends \\"response.output_text.delta\\" events';
    const stream = [
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_q","usage":null}}',
      `event: response.completed\ndata: {"type":"response.completed","sequence_number":1,"response":{"id":"resp_q","output":[{"type":"message","content":[{"type":"output_text","text":"${quoted}"}]}],"usage":{"input_tokens":10,"output_tokens":4}}}`,
    ].join("\n\n");
    const facts = track("responses", `${stream}\n\n`, 13);
    expect(facts).toMatchObject({ sawEnd: true, sawError: false });
    expect(facts.usage).toMatchObject({ input_tokens: 10, output_tokens: 4 });
  });

  it("provider B chat: usage written with spaces is still found", () => {
    const text =
      'data: {"id":"c","choices":[{"delta":{"content":"x"}}]}\n\ndata: {"id":"c","choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}\n\ndata: [DONE]\n\n';
    expect(track("chat_completions", text, 6).usage).toMatchObject({ input_tokens: 5, output_tokens: 2 });
  });
});
