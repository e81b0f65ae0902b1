import { StringDecoder } from "node:string_decoder";
import { frameEnd, parseFrame } from "./sse-frames.ts";
import { normaliseUsage, type ResponseFacts } from "./usage.ts";
import type { WireFormat } from "./wire-format.ts";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface StreamFacts extends ResponseFacts {
  /** The stream carried the provider's own error event. */
  sawError: boolean;
  /** The stream reached its format's terminal event. */
  sawEnd: boolean;
}

/**
 * Reads usage from an SSE stream as its bytes pass, without holding the stream: only the
 * unfinished tail is kept, and only the few frames that can carry usage are parsed. A class, not
 * closures: one object per stream (the tracker is made for every streamed call).
 */
export class SseFactsTracker {
  readonly #format: WireFormat;
  // Made for the first chunk that ends inside a character (and used from then on, for what it
  // holds back): a chunk that ends with an ASCII byte (an SSE chunk nearly always ends with a line
  // feed) decodes the same on its own.
  #decoder: StringDecoder | null = null;
  #tail = "";
  #rawUsage: Json | null = null;
  #responseId: string | null = null;
  #sawError = false;
  #sawEnd = false;
  // The first frame's data, when it could not matter and was not parsed: the response's id is read
  // from it only if no frame parsed later names the response (the usage chunk and the terminal
  // events name the same one as the first frame), which spares a parse on most streams. So a first
  // frame with an empty id (Azure's filter results) gives way to a real one; a stream whose first
  // frame names none, and nothing parsed later either, has none (before, the first frame to name
  // one was searched for).
  #firstData: string | null = null;

  constructor(format: WireFormat) {
    this.#format = format;
  }

  push(chunk: Buffer) {
    // Only the new text (and the three characters before it that a boundary may span) is
    // searched: a large frame arriving in many chunks is not rescanned from its start each time.
    const searchFrom = Math.max(0, this.#tail.length - 3);
    const tail = this.#tail + this.#decode(chunk);
    // each frame is sliced off the text, and what follows the last one is kept once per chunk
    // (not the rest of the text copied after every frame)
    let start = 0;
    for (let end = frameEnd(tail, searchFrom); end.index !== -1; end = frameEnd(tail, start)) {
      this.#onFrame(tail.slice(start, end.index));
      start = end.index + end.length;
    }
    this.#tail = start > 0 ? tail.slice(start) : tail;
  }

  /** Whether the terminal event has passed so far (before `finish`). */
  get ended() {
    return this.#sawEnd;
  }

  get erred() {
    return this.#sawError;
  }

  /** The provider's id of the response, once a frame has named it. */
  get responseId() {
    return this.#knownResponseId();
  }

  finish(): StreamFacts {
    if (this.#decoder) this.#tail += this.#decoder.end();
    if (this.#tail.trim() !== "") this.#onFrame(this.#tail);
    this.#tail = "";
    return {
      usage: normaliseUsage(this.#format, this.#rawUsage),
      responseId: this.#knownResponseId(),
      sawError: this.#sawError,
      sawEnd: this.#sawEnd,
    };
  }

  #decode(chunk: Buffer): string {
    if (this.#decoder === null && (chunk.length === 0 || chunk[chunk.length - 1]! < 0x80))
      return chunk.toString("utf8");
    this.#decoder ??= new StringDecoder("utf8");
    return this.#decoder.write(chunk);
  }

  #onFrame(frame: string) {
    const { event: name, data } = parseFrame(frame);
    if (name === "error") this.#sawError = true;
    if (data === "[DONE]") {
      this.#sawEnd = true;
      return;
    }
    if (data === "") return;
    if (!mayMatter(this.#format, name, data)) {
      if (this.#responseId === null && this.#firstData === null) this.#firstData = data;
      return;
    }
    this.#read(data);
  }

  /** The response's id, from the first frame when no frame parsed since has named it. */
  #knownResponseId(): string | null {
    if (this.#responseId === null && this.#firstData !== null) this.#read(this.#firstData);
    this.#firstData = null;
    return this.#responseId;
  }

  #read(data: string) {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (!isObject(event)) return;
    if (event.type === "error" || isObject(event.error)) this.#sawError = true;
    switch (this.#format) {
      case "messages":
        return this.#onProviderAEvent(event);
      case "chat_completions":
        if (typeof event.id === "string") this.#responseId ??= event.id;
        if (isObject(event.usage)) this.#rawUsage = event.usage;
        return;
      case "responses":
        return this.#onResponsesEvent(event);
    }
  }

  // Provider A stream counts are cumulative: message_start gives the input side, and each
  // message_delta overwrites every field it carries. Summing deltas would double count.
  #onProviderAEvent(event: Json) {
    if (event.type === "message_start" && isObject(event.message)) {
      if (typeof event.message.id === "string") this.#responseId = event.message.id;
      if (isObject(event.message.usage)) this.#rawUsage = { ...event.message.usage };
    } else if (event.type === "message_delta" && isObject(event.usage)) {
      const merged: Json = { ...(this.#rawUsage ?? {}) };
      for (const [field, value] of Object.entries(event.usage)) if (value !== null) merged[field] = value;
      this.#rawUsage = merged;
    } else if (event.type === "message_stop") {
      this.#sawEnd = true;
    }
  }

  #onResponsesEvent(event: Json) {
    const response = isObject(event.response) ? event.response : null;
    if (response && typeof response.id === "string") this.#responseId ??= response.id;
    if (typeof event.type === "string" && terminalResponsesEvents.has(event.type)) {
      this.#sawEnd = true;
      if (response && isObject(response.usage)) this.#rawUsage = response.usage;
    }
  }
}

const terminalResponsesEvents = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
  "response.done",
]);

/**
 * Cheap test before JSON.parse: most frames are content deltas that cannot carry usage. Named
 * events are told apart by their name, never by searching their data, which may quote anything.
 */
function mayMatter(format: WireFormat, event: string, data: string): boolean {
  switch (format) {
    case "messages":
      return (
        event === "message_start" ||
        event === "message_delta" ||
        event === "message_stop" ||
        event === "error"
      );
    case "chat_completions":
      // Unnamed frames: the usage chunk has an empty choices list; errors have no choices at all.
      return /"usage"\s*:\s*\{/.test(data) || !data.includes('"choices"');
    case "responses":
      return event === "" || event === "error" || terminalResponsesEvents.has(event);
  }
}
