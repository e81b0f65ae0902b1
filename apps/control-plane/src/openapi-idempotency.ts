import type { RouteConfig } from "@hono/zod-openapi";
import {
  type IdempotentCreate,
  idempotencyKeyHeader,
  idempotencyKeyPattern,
  idempotencyRetentionHours,
  replayedHeader,
} from "./idempotency.ts";

// How the OpenAPI document states a create's `Idempotency-Key` (see `runIdempotently`).

/** The header of a replayed answer, on an idempotent create's success. */
const replayedHeaderDoc = {
  [replayedHeader]: {
    description: `\`true\` when this is the stored answer of an earlier request with the same ${idempotencyKeyHeader}.`,
    schema: { type: "string", enum: ["true"] },
  },
};

/** A create's `Idempotency-Key` header, described with what it does for a retry. */
export function idempotencyKeyParameter(create: IdempotentCreate) {
  const secrets = (create.secrets ?? []).map((path) => `\`${path}\``).join(", ");
  return {
    name: idempotencyKeyHeader,
    in: "header" as const,
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 255, pattern: idempotencyKeyPattern },
    description:
      `Makes the create safe to retry (send a new UUID per create): a retry with the same key within ${idempotencyRetentionHours} hours, ` +
      `same path and body, answers the first success again with \`${replayedHeader}: true\` instead of creating twice. ` +
      "A failure is not kept: its retry runs again." +
      (secrets
        ? ` Secrets are never stored: in a replay, ${secrets} is null (shown once, in the first answer).`
        : ""),
  };
}

type Responses = RouteConfig["responses"];

/** A create's own answers, its success marked when replayed, plus the refusals of its `Idempotency-Key`. */
export function withIdempotencyRefusals(responses: Responses): Responses {
  const or = (status: number, text: string) => {
    const own = responses[status];
    return { description: own && "description" in own ? `${own.description} Or ${text}` : text };
  };
  const marked = Object.entries(responses).map(([status, response]) => [
    status,
    Number(status) < 400 && "content" in response ? { ...response, headers: replayedHeaderDoc } : response,
  ]);
  return {
    ...Object.fromEntries(marked),
    409: or(
      409,
      `\`idempotency_in_progress\`: the first request with this ${idempotencyKeyHeader} is still running; retry after \`Retry-After\`.`,
    ),
    422: or(
      422,
      `\`idempotency_key_reused\`: this ${idempotencyKeyHeader} was sent with another path or body.`,
    ),
  };
}
