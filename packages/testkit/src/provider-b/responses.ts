import type { OutgoingHttpHeaders } from "node:http";
import { asObject, type JsonObject } from "../json.ts";
import { replyPieces } from "../mock-text.ts";
import { dataFrame, eventFrame, jsonReply, type Reply, sseReply } from "../reply.ts";
import type { Seed } from "../seed.ts";
import { SERVER_ERROR } from "./errors.ts";
import { createdAt, responseUsage, usageCounts } from "./usage.ts";

export interface ResponsesInput {
  request: JsonObject;
  model: string;
  body: Buffer;
  seed: Seed;
  headers: OutgoingHttpHeaders;
  midstreamError: boolean;
  answerBytes: number | undefined;
  /** Whether to end streams with `data: [DONE]`, which the public API may or may not send (§3.4). */
  doneSentinel: boolean;
}

interface ResponseState {
  status: "in_progress" | "completed" | "failed";
  completedAt: number | null;
  error: { code: string; message: string } | null;
  output: unknown[];
  usage: unknown;
}

/** The request's value for `key`, or the API's default when the client left it out. */
function echo(request: JsonObject, key: string, fallback: unknown): unknown {
  return request[key] ?? fallback;
}

/** `POST /v1/responses`: a §3.2 response (no `output_text`), or the §3.4 event stream. */
export function responsesReply(input: ResponsesInput): Reply {
  const { request, model, body, seed, headers } = input;
  const reasoningParam = asObject(request.reasoning);
  const pieces = replyPieces(seed, input.answerBytes);
  const text = pieces.join("");
  const counts = usageCounts(seed, body, pieces.length, reasoningParam !== undefined);
  const id = `resp_${seed.hex("response-id", 48)}`;
  const created = createdAt(seed);
  const messageId = `msg_${seed.hex("message-id", 48)}`;

  // Field order follows the §3.2 example.
  const response = (state: ResponseState): JsonObject => ({
    id,
    object: "response",
    created_at: created,
    status: state.status,
    completed_at: state.completedAt,
    background: echo(request, "background", false),
    error: state.error,
    incomplete_details: null,
    instructions: echo(request, "instructions", null),
    max_output_tokens: echo(request, "max_output_tokens", null),
    model,
    output: state.output,
    parallel_tool_calls: echo(request, "parallel_tool_calls", true),
    previous_response_id: echo(request, "previous_response_id", null),
    prompt_cache_key: echo(request, "prompt_cache_key", null),
    reasoning: { effort: reasoningParam?.effort ?? null, summary: reasoningParam?.summary ?? null },
    service_tier: "default",
    store: echo(request, "store", true),
    temperature: echo(request, "temperature", 1),
    text: echo(request, "text", { format: { type: "text" }, verbosity: "medium" }),
    tool_choice: echo(request, "tool_choice", "auto"),
    tools: echo(request, "tools", []),
    top_logprobs: echo(request, "top_logprobs", 0),
    top_p: echo(request, "top_p", 1),
    truncation: echo(request, "truncation", "disabled"),
    usage: state.usage,
    user: echo(request, "user", null),
    metadata: echo(request, "metadata", {}),
  });

  // A reasoning item appears only when the request asks for reasoning, as with real models.
  const reasoningItem: JsonObject | undefined = reasoningParam && {
    id: `rs_${seed.hex("reasoning-id", 48)}`,
    type: "reasoning",
    summary: [],
  };
  const include = Array.isArray(request.include) ? request.include : [];
  if (reasoningItem && include.includes("reasoning.encrypted_content")) {
    reasoningItem.encrypted_content = `gAAAAB${seed.base62("reasoning-content", 120)}`;
  }
  const completedAt = created + seed.int("duration", 1, 30);
  const usage = responseUsage(counts);

  if (request.stream !== true) {
    const message = {
      id: messageId,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    };
    const output = reasoningItem ? [reasoningItem, message] : [message];
    return jsonReply(
      200,
      headers,
      response({ status: "completed", completedAt, error: null, output, usage }),
    );
  }

  const obfuscate = asObject(request.stream_options)?.include_obfuscation !== false;
  const frames: string[] = [];
  const emit = (type: string, payload: JsonObject): void => {
    frames.push(eventFrame(type, JSON.stringify({ type, sequence_number: frames.length, ...payload })));
  };
  const finish = (): Reply => {
    if (input.doneSentinel) frames.push(dataFrame("[DONE]"));
    return sseReply(headers, frames);
  };
  const inProgress: ResponseState = {
    status: "in_progress",
    completedAt: null,
    error: null,
    output: [],
    usage: null,
  };

  emit("response.created", { response: response(inProgress) });
  emit("response.in_progress", { response: response(inProgress) });
  const outputIndex = reasoningItem ? 1 : 0;
  if (reasoningItem) {
    emit("response.output_item.added", { output_index: 0, item: reasoningItem });
    emit("response.output_item.done", { output_index: 0, item: reasoningItem });
  }
  emit("response.output_item.added", {
    output_index: outputIndex,
    item: { id: messageId, type: "message", status: "in_progress", role: "assistant", content: [] },
  });
  const at = { item_id: messageId, output_index: outputIndex, content_index: 0 };
  emit("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } });
  for (const [index, delta] of pieces.entries()) {
    const obfuscation = obfuscate
      ? { obfuscation: seed.base62(`obfuscation-${index}`, seed.int(`obf-len-${index}`, 1, 12)) }
      : {};
    emit("response.output_text.delta", { ...at, delta, logprobs: [], ...obfuscation });
    if (input.midstreamError) {
      // The live API nests the error (§3.4), then closes the response with `response.failed`.
      const { message, type } = SERVER_ERROR;
      emit("error", { error: { type, code: "server_error", message, param: null } });
      const error = { code: "server_error", message };
      emit("response.failed", { response: response({ ...inProgress, status: "failed", error, output: [] }) });
      return finish();
    }
  }
  emit("response.output_text.done", { ...at, text, logprobs: [] });
  const part = { type: "output_text", text, annotations: [] };
  emit("response.content_part.done", { ...at, part });
  const message = { id: messageId, type: "message", status: "completed", role: "assistant", content: [part] };
  emit("response.output_item.done", { output_index: outputIndex, item: message });
  const output = reasoningItem ? [reasoningItem, message] : [message];
  emit("response.completed", {
    response: response({ status: "completed", completedAt, error: null, output, usage }),
  });
  return finish();
}
