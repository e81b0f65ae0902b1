/**
 * Call events for `pnpm bench:consumers`, built the way the gateway builds them: its own call
 * state, answer recorder, capture headers and event builder (apps/gateway/src), usage read from
 * the answer by the providers' own readers. Every call is captured (request and answer bodies in
 * the event, as at sample rate 1) and priceable (a seeded model, usage present).
 *
 * Two shapes, alternating: a streamed provider-A `messages` call (SSE answer of ~40 text deltas)
 * and a JSON provider-B `chat_completions` call. Requests carry a system prompt and a short
 * conversation, about 3 KB; answers are about 2.5 KB of text (JSON ~3 KB, SSE ~9 KB with its
 * framing). Text is drawn from a word list, so no two events are alike. With `prompts` (a coding
 * agent's context: `BENCH_PROMPT_BYTES`), the last user turn is one of them, in turn.
 */
import { randomBytes, randomInt } from "node:crypto";
import { type CallEventBytes, newId } from "@gateway/contracts";
import { endpointSpecs, factsFromJsonBody, SseFactsTracker } from "@gateway/providers";
import { type AnswerLimits, BodyRecorder } from "../../apps/gateway/src/body-recorder.ts";
import { callEvent } from "../../apps/gateway/src/call-event.ts";
import { type AuthenticatedCall, newCallState } from "../../apps/gateway/src/call-state.ts";
import type { Caller } from "../../apps/gateway/src/resolve-caller.ts";
import type { BenchOrg } from "../src/split-gateway.ts";

const words = (
  "the a of to and in is for that with on as this by be are from or at an it not code file " +
  "function test error value return type import export const async await request response model " +
  "token stream usage budget project workload capture gateway provider cache latency retry " +
  "because should would could when then else while each every before after between during"
).split(" ");

function text(chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = words[randomInt(words.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ");
}

function caller(org: BenchOrg): Caller {
  return {
    apiKey: { id: org.apiKeyId, orgId: org.orgId },
    project: { id: org.projectId, orgId: org.orgId, slug: "default" },
    workload: {
      id: org.workloadId,
      projectId: org.projectId,
      name: "main",
      captureEnabled: true,
      captureSampleRate: 1,
      routeModelId: null,
      routeTrafficPct: 0,
    },
  };
}

function requestBody(
  model: string,
  stream: boolean,
  format: "messages" | "chat_completions",
  prompt: string | undefined,
): Buffer {
  const system = text(1200);
  const turns = [
    { role: "user", content: text(700) },
    { role: "assistant", content: text(500) },
    { role: "user", content: prompt ?? text(400) },
  ];
  const body =
    format === "messages"
      ? { model, max_tokens: 4096, stream, system, messages: turns }
      : { model, stream, messages: [{ role: "system", content: system }, ...turns] };
  return Buffer.from(JSON.stringify(body));
}

const requestHeaders = (format: "messages" | "chat_completions", length: number) => ({
  host: "gateway.internal:8080",
  "user-agent": format === "messages" ? "Anthropic/JS 1.12.0" : "OpenAI/JS 7.57.0",
  accept: "application/json",
  "content-type": "application/json",
  "content-length": String(length),
  ...(format === "messages" ? { "anthropic-version": "2023-06-01", "x-api-key": "sk_…" } : {}),
  authorization: "Bearer sk_…",
  "x-stainless-lang": "js",
  "x-stainless-os": "Linux",
  "x-stainless-runtime": "node",
  "x-stainless-runtime-version": "v24.21.0",
  "x-stainless-retry-count": "0",
});

/** A provider-A SSE answer: message_start, ~40 text deltas, message_delta with usage, message_stop. */
function messagesStream(model: string, id: string): Buffer[] {
  const input = 700 + randomInt(400);
  const frame = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    frame("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: input,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    frame("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
  ];
  for (let i = 0; i < 40; i++)
    frames.push(
      frame("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: ` ${text(60)}` },
      }),
    );
  frames.push(
    frame("content_block_stop", { type: "content_block_stop", index: 0 }),
    frame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 550 + randomInt(200) },
    }),
    frame("message_stop", { type: "message_stop" }),
  );
  // as the network delivers it: a few frames per chunk
  const chunks: Buffer[] = [];
  for (let i = 0; i < frames.length; i += 4) chunks.push(Buffer.from(frames.slice(i, i + 4).join("")));
  return chunks;
}

function chatCompletion(model: string, id: string): Buffer {
  const prompt = 700 + randomInt(400);
  const completion = 550 + randomInt(200);
  return Buffer.from(
    JSON.stringify({
      id,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text(2400), refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
      service_tier: "default",
      system_fingerprint: null,
    }),
  );
}

/** `count` captured, priceable call events of the bench org, framed as the gateway publishes them. */
export function buildCallEvents(
  org: BenchOrg,
  count: number,
  answerLimits: AnswerLimits,
  prompts: readonly string[] = [],
): { requestId: string; frame: Buffer; event: CallEventBytes }[] {
  const who = caller(org);
  const events: { requestId: string; frame: Buffer; event: CallEventBytes }[] = [];
  for (let i = 0; i < count; i++) {
    const streamed = i % 2 === 0;
    const spec = streamed ? endpointSpecs.messages : endpointSpecs.chat_completions;
    const model = streamed ? "claude-sonnet-4-6" : "gpt-5.4-mini";
    const call: AuthenticatedCall = { ...newCallState(newId("request"), spec, "byo"), caller: who };
    const answer = new BodyRecorder(answerLimits, call.requestId);
    call.requestedModel = model;
    call.requested.servedModel = model;
    call.stream = streamed;
    call.tags = { team: "bench", task: `t${i % 16}` };
    const format = spec.wireFormat as "messages" | "chat_completions";
    const prompt = prompts.length > 0 ? prompts[i % prompts.length] : undefined;
    const body = requestBody(model, streamed, format, prompt);
    call.capture = {
      receivedHeaders: requestHeaders(spec.wireFormat as "messages", body.length),
      requestBody: body,
      responseHeaders: {},
    };
    const upstreamId = randomBytes(12).toString("hex");
    call.status = 200;
    call.firstByteMs = 180 + randomInt(400);
    call.upstreamRequestId = streamed ? `req_${upstreamId}` : `req-${upstreamId}`;
    if (streamed) {
      call.capture.responseHeaders = {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "request-id": call.upstreamRequestId,
        "anthropic-organization-id": "bench",
      };
      const facts = new SseFactsTracker("messages");
      for (const chunk of messagesStream(model, `msg_${upstreamId}`)) {
        facts.push(chunk);
        answer.push(chunk);
      }
      const end = facts.finish();
      call.usage = end.usage;
      call.upstreamResponseId = end.responseId;
    } else {
      const json = chatCompletion(model, `chatcmpl-${upstreamId}`);
      call.capture.responseHeaders = {
        "content-type": "application/json",
        "content-length": String(json.length),
        "x-request-id": call.upstreamRequestId,
        "openai-processing-ms": String(call.firstByteMs),
      };
      answer.push(json);
      const facts = factsFromJsonBody("chat_completions", json);
      call.usage = facts.usage;
      call.upstreamResponseId = facts.responseId;
    }
    call.delivered = true;
    call.endedAt = call.startedAt + call.firstByteMs + 900 + randomInt(3000);
    if (!call.usage) throw new Error("a bench call event without usage: its answer was not read");
    const { frame, event } = callEvent(call, answer, Number.POSITIVE_INFINITY);
    answer.release();
    events.push({ requestId: call.requestId, frame, event });
  }
  return events;
}
