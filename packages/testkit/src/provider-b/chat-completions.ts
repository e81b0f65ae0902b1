import type { OutgoingHttpHeaders } from "node:http";
import { asObject, type JsonObject } from "../json.ts";
import { replyPieces } from "../mock-text.ts";
import { dataFrame, jsonReply, type Reply, sseReply } from "../reply.ts";
import type { Seed } from "../seed.ts";
import { SERVER_ERROR } from "./errors.ts";
import { chatUsage, createdAt, usageCounts } from "./usage.ts";

export interface ChatInput {
  request: JsonObject;
  model: string;
  body: Buffer;
  seed: Seed;
  headers: OutgoingHttpHeaders;
  midstreamError: boolean;
  answerBytes: number | undefined;
}

/** `POST /v1/chat/completions`: a §2.2 completion, or §2.4 chunks when `stream` is true. */
export function chatCompletionsReply(input: ChatInput): Reply {
  const { request, model, body, seed, headers } = input;
  const pieces = replyPieces(seed, input.answerBytes);
  const counts = usageCounts(seed, body, pieces.length, typeof request.reasoning_effort === "string");
  const id = `chatcmpl-${seed.base62("completion-id", 29)}`;
  const created = createdAt(seed);
  const fingerprint = `fp_${seed.hex("fingerprint", 10)}`;

  if (request.stream !== true) {
    return jsonReply(200, headers, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: pieces.join(""), refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: chatUsage(counts),
      service_tier: "default",
      system_fingerprint: fingerprint,
    });
  }

  const options = asObject(request.stream_options);
  const includeUsage = options?.include_usage === true;
  const obfuscate = options?.include_obfuscation !== false;
  let obfuscations = 0;

  // Field order follows §2.4; `usage` is present (as null) only when the client asked for usage.
  const chunk = (choices: unknown[], extra: { usage?: unknown; obfuscate?: boolean }): string => {
    const value: JsonObject = {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      service_tier: "default",
      system_fingerprint: fingerprint,
      choices,
    };
    if (includeUsage) value.usage = extra.usage ?? null;
    if (obfuscate && extra.obfuscate) {
      value.obfuscation = seed.base62(
        `obfuscation-${obfuscations}`,
        seed.int(`obf-len-${obfuscations}`, 1, 12),
      );
      obfuscations++;
    }
    return dataFrame(JSON.stringify(value));
  };
  const choice = (delta: JsonObject, finishReason: string | null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });

  const frames = [
    chunk([choice({ role: "assistant", content: "", refusal: null }, null)], { obfuscate: true }),
  ];
  for (const content of pieces) {
    frames.push(chunk([choice({ content }, null)], { obfuscate: true }));
    if (input.midstreamError) {
      frames.push(dataFrame(JSON.stringify({ error: SERVER_ERROR })));
      return sseReply(headers, frames);
    }
  }
  frames.push(chunk([choice({}, "stop")], {}));
  if (includeUsage) frames.push(chunk([], { usage: chatUsage(counts) }));
  frames.push(dataFrame("[DONE]"));
  return sseReply(headers, frames);
}
