import type { IncomingHttpHeaders } from "node:http";
import { gatewayRequestHeaders, type WireFormat } from "@gateway/contracts";
import { singleHeader } from "./headers.ts";

/**
 * Headers that name a conversation, in order: ours, then the session ids the coding agents send
 * on every request of a session (Claude Code's `X-Claude-Code-Session-Id`, Codex CLI's
 * `session_id`). A header wins over the body: it names the conversation whatever the body holds.
 */
const conversationHeaders = [gatewayRequestHeaders.conversation, "x-claude-code-session-id", "session_id"];

/**
 * The conversation a request belongs to, or null when it names none (it is then drawn on its own).
 * After the headers, what the clients already send in the body: provider A's `metadata.user_id`
 * (Claude Code puts its session there too), provider B's `prompt_cache_key` (Codex sends its
 * thread id), else `user`. `body` is the request as the gateway read it for routing (a string's
 * non-ASCII bytes may be read as Latin-1): the same bytes always name the same conversation.
 */
export function conversationOf(
  headers: IncomingHttpHeaders,
  body: Record<string, unknown>,
  format: WireFormat,
): string | null {
  for (const name of conversationHeaders) {
    const named = singleHeader(headers[name]);
    if (named) return named;
  }
  if (format === "messages") {
    const metadata = body.metadata;
    return typeof metadata === "object" && metadata !== null && "user_id" in metadata
      ? nonEmpty(metadata.user_id)
      : null;
  }
  return nonEmpty(body.prompt_cache_key) ?? nonEmpty(body.user);
}

const nonEmpty = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;

/**
 * Where a conversation falls in [0, 1) under a workload's route to a catalog model: the request
 * goes to the catalog arm when this is below the route's share. A pure function, so every replica
 * agrees with no shared state; and the share is not in it, so raising 30 % to 40 % moves exactly
 * the conversations in [0.3, 0.4) and none back. The route's model is in it: a route to another
 * model is a new split, drawn afresh (docs/usage.md, "Conversations").
 *
 * FNV-1a over the UTF-16 code units, then murmur3's finaliser to spread nearby keys (`conv-1`,
 * `conv-2`) across the range: ~0.1 µs for a session id, against ~1.2 µs for a SHA-256 through
 * node:crypto, on a path whose cost per request is measured (bench/README.md). Not a secret: a
 * caller who picks its conversation names can pick its arm, as it can by sending the model it wants.
 */
export function sharePoint(workloadId: string, modelId: string, conversation: string): number {
  let h = 0x811c9dc5;
  for (const part of [workloadId, modelId, conversation]) {
    for (let i = 0; i < part.length; i++) h = Math.imul(h ^ part.charCodeAt(i), 0x01000193);
    // a separator, so that ("ab", "c") and ("a", "bc") differ
    h = Math.imul(h ^ 0xff, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}
