import type { OutgoingHttpHeaders } from "node:http";
import type { JsonObject } from "../json.ts";
import { replyPieces } from "../mock-text.ts";
import { eventFrame, jsonReply, type Reply, sseReply } from "../reply.ts";
import type { Seed } from "../seed.ts";
import { deltaUsage, messageUsage, usageCounts } from "./usage.ts";

export interface MessageInput {
  request: JsonObject;
  model: string;
  body: Buffer;
  seed: Seed;
  headers: OutgoingHttpHeaders;
  midstreamError: boolean;
  answerBytes: number | undefined;
}

const PING = '{"type": "ping"}';
const OVERLOADED = JSON.stringify({
  type: "error",
  error: { type: "overloaded_error", message: "Overloaded" },
});

function event(type: string, payload: JsonObject): string {
  return eventFrame(type, JSON.stringify({ type, ...payload }));
}

/** `POST /v1/messages`: a §1.3 message, or the §1.5 event sequence when `stream` is true. */
export function messagesReply(input: MessageInput): Reply {
  const { request, model, body, seed, headers } = input;
  const pieces = replyPieces(seed, input.answerBytes);
  const counts = usageCounts(seed, body, pieces.length);
  const id = `msg_01${seed.base62("message-id", 22)}`;

  if (request.stream !== true) {
    return jsonReply(200, headers, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text: pieces.join(""), citations: null }],
      stop_reason: "end_turn",
      stop_sequence: null,
      stop_details: null,
      usage: messageUsage(counts, counts.output),
    });
  }

  const frames = [
    event("message_start", {
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: messageUsage(counts, 1),
      },
    }),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    eventFrame("ping", PING),
  ];
  for (const text of pieces) {
    frames.push(event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }));
    if (input.midstreamError) {
      // After the first content frame the stream dies the way an overload mid-stream does.
      frames.push(eventFrame("error", OVERLOADED));
      return sseReply(headers, frames);
    }
  }
  frames.push(
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null, stop_details: null },
      usage: deltaUsage(counts),
    }),
    event("message_stop", {}),
  );
  return sseReply(headers, frames);
}
