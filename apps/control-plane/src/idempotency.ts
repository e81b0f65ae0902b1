import { createHash } from "node:crypto";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyTarget,
  type IdempotencyTimes,
  releaseIdempotencyKey,
  sweepIdempotencyKeys,
} from "@gateway/db";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, loggableError } from "./errors.ts";
import type { Security } from "./openapi.ts";
import type { AppEnv } from "./services/context.ts";

/** A create route that takes an `Idempotency-Key`. */
export interface IdempotentCreate {
  /**
   * Dotted paths of the answer's secrets (`api_key.value`). They are shown once, in the first
   * answer: the stored answer, and so every replay, has null there. No secret is ever stored.
   */
  secrets?: readonly string[];
}

export const idempotencyKeyHeader = "Idempotency-Key";
export const replayedHeader = "Idempotent-Replayed";
export const idempotencyRetentionHours = 24;
/** Visible ASCII and space (HTTP drops the space at either end). */
export const idempotencyKeyPattern = "^[\\x20-\\x7E]{1,255}$";
const validKey = new RegExp(idempotencyKeyPattern);

const times: IdempotencyTimes = {
  retentionSeconds: idempotencyRetentionHours * 3600,
  // control-plane creates take milliseconds; a minute unfinished is a process that died
  abandonedAfterSeconds: 60,
};

/** JSON with every object's keys sorted: the same request is the same text, however it was sent. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/** `answer` with the value at each dotted path set to null (`answer` is a fresh parse: changed in place). */
function withoutSecrets(answer: unknown, paths: readonly string[]): unknown {
  for (const path of paths) {
    const parts = path.split(".");
    const field = parts.pop() ?? "";
    const parent = parts.reduce<unknown>((node, part) => (isRecord(node) ? node[part] : undefined), answer);
    if (isRecord(parent) && field in parent) parent[field] = null;
  }
  return answer;
}

/**
 * Runs a create at most once per `Idempotency-Key`, per scope (the org, or the operator) and
 * route. A retry of the same request (same path, same validated body) within the retention gets
 * the first answer again, marked `Idempotent-Replayed: true`; the same key on another request is
 * 422, and while the first one runs, 409. Only a success is kept: a create that failed frees its
 * key, so that the retry runs it again. Without the header, `run` just runs.
 */
export async function runIdempotently<T extends Response>(
  c: Context<AppEnv>,
  security: Security,
  create: IdempotentCreate,
  body: unknown,
  run: () => Promise<T>,
): Promise<T> {
  const key = c.req.header(idempotencyKeyHeader);
  if (key === undefined) return run();
  if (!validKey.test(key)) {
    throw new ApiError(
      "bad_request",
      `${idempotencyKeyHeader} must be 1 to 255 printable ASCII characters (a UUID is a good choice).`,
    );
  }
  const { db, log } = c.get("services");
  const target: IdempotencyTarget = {
    // an org key's org; else the one operator (or everyone, on a public route)
    scope: security === "orgKey" ? c.get("orgId") : (security ?? "public"),
    // the route's pattern, prefix included: `POST /admin/v1/orgs/:org_id/api_keys`
    route: `${c.req.method} ${c.req.routePath}`,
    key,
  };
  const owner = c.get("requestId");
  const requestHash = createHash("sha256")
    .update(canonicalJson({ path: c.req.path, body }))
    .digest("hex");
  await sweepIdempotencyKeys(db, times.retentionSeconds);
  const claim = await claimIdempotencyKey(db, target, { requestHash, owner }, times);
  if (claim.kind === "other_request") {
    throw new ApiError(
      "idempotency_key_reused",
      `This ${idempotencyKeyHeader} was used with another request (path or body) in the last ${idempotencyRetentionHours} hours; send a new key with a new request.`,
    );
  }
  if (claim.kind === "in_progress") {
    c.header("retry-after", "1");
    throw new ApiError(
      "idempotency_in_progress",
      `A request with this ${idempotencyKeyHeader} is still running; retry it in a moment.`,
    );
  }
  if (claim.kind === "completed") {
    c.header(replayedHeader, "true");
    c.header("content-type", "application/json");
    // the stored text of this route's own earlier success: the answer `run` would have given
    return c.body(claim.response, claim.status as ContentfulStatusCode) as unknown as T;
  }

  let answer: T;
  try {
    answer = await run();
  } catch (error) {
    await releaseIdempotencyKey(db, target, owner).catch((releaseError: unknown) =>
      log.warn("freeing a failed create's idempotency key failed; a retry takes it over after a minute", {
        request_id: owner,
        error: loggableError(releaseError),
      }),
    );
    throw error;
  }
  // routes answer errors by throwing ApiError: what one returns is its success
  const text = await answer.text();
  const response = JSON.stringify(withoutSecrets(JSON.parse(text), create.secrets ?? []));
  await completeIdempotencyKey(db, target, owner, { status: answer.status, response }).catch(
    (error: unknown) =>
      // the object exists and the caller is told so; only a retry could create it again
      log.error("storing a create's answer for its idempotency key failed", {
        request_id: owner,
        error: loggableError(error),
      }),
  );
  return new Response(text, { status: answer.status, headers: answer.headers }) as T;
}
