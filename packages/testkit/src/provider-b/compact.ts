import type { OutgoingHttpHeaders } from "node:http";
import { asObject, type JsonObject } from "../json.ts";
import { jsonReply, type Reply } from "../reply.ts";
import type { Seed } from "../seed.ts";
import { createdAt, responseUsage, usageCounts } from "./usage.ts";

export interface CompactInput {
  request: JsonObject;
  body: Buffer;
  seed: Seed;
  headers: OutgoingHttpHeaders;
}

/** The user turns of the input, re-emitted as `input_text` messages as §3.6 describes. */
function userMessages(input: unknown): JsonObject[] {
  const asMessage = (content: unknown): JsonObject => ({
    type: "message",
    role: "user",
    content: typeof content === "string" ? [{ type: "input_text", text: content }] : content,
  });
  if (typeof input === "string") return [asMessage(input)];
  if (!Array.isArray(input)) return [];
  return input
    .map((item) => asObject(item))
    .filter((item): item is JsonObject => item?.role === "user")
    .map((item) => asMessage(item.content));
}

/** `POST /v1/responses/compact` (§3.6): the user messages followed by one opaque compaction item. */
export function compactReply({ request, body, seed, headers }: CompactInput): Reply {
  const counts = usageCounts(seed, body, seed.int("summary-length", 200, 4000), true);
  return jsonReply(200, headers, {
    id: `resp_${seed.hex("response-id", 48)}`,
    object: "response.compaction",
    created_at: createdAt(seed),
    output: [
      ...userMessages(request.input),
      {
        type: "compaction",
        id: `cmp_${seed.hex("compaction-id", 48)}`,
        encrypted_content: `gAAAAB${seed.base62("compaction-content", 160)}`,
      },
    ],
    usage: responseUsage(counts),
  });
}
