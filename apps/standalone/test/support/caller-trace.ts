import { randomBytes } from "node:crypto";

/** A caller's own trace: a fresh trace id, the id of the caller's span in it, and its sampled `traceparent`. */
export function callerTrace() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** A BYO chat-completions call to `url` as part of `caller`'s trace, with `key` and extra headers. */
export function tracedChat(
  url: string,
  key: string,
  caller: { traceparent: string },
  headers: Record<string, string> = {},
  content = "hi",
) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      traceparent: caller.traceparent,
      ...headers,
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content }] }),
  });
}
