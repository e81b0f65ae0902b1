import type { OutgoingHttpHeaders } from "node:http";

/** A complete response, built up front so that transport faults can be applied uniformly. */
export type Reply =
  | { kind: "json"; status: number; headers: OutgoingHttpHeaders; body: string }
  | { kind: "sse"; status: number; headers: OutgoingHttpHeaders; frames: string[] };

export function jsonReply(status: number, headers: OutgoingHttpHeaders, value: unknown): Reply {
  const body = JSON.stringify(value);
  return {
    kind: "json",
    status,
    headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    body,
  };
}

export function sseReply(headers: OutgoingHttpHeaders, frames: string[]): Reply {
  return {
    kind: "sse",
    status: 200,
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    frames,
  };
}

/** A named SSE frame. `data` is passed pre-serialised so that literal payloads keep their exact bytes. */
export function eventFrame(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

/** An unnamed SSE frame, as used by Chat Completions. */
export function dataFrame(data: string): string {
  return `data: ${data}\n\n`;
}
