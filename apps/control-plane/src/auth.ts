import { apiKeys } from "@gateway/db";
import { and, eq, isNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { ApiError, notFound } from "./errors.ts";
import { sameSecret } from "./same-secret.ts";
import { hashKey } from "./services/api-key-secret.ts";
import type { AppEnv } from "./services/context.ts";

function bearer(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * Org-scoped surfaces: the caller's `sk_` key must be live and belong to `:org_id`. A key of
 * another org gets 404, exactly as if the org did not exist.
 */
export const requireOrgKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!token) throw new ApiError("unauthorized", "Send your sk_ key as Authorization: Bearer <key>.");
  const { db } = c.get("services");
  const [key] = await db
    .select({ orgId: apiKeys.orgId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hashKey(token)), isNull(apiKeys.revokedAt)));
  if (!key) throw new ApiError("unauthorized", "Invalid API key.");
  if (key.orgId !== c.req.param("org_id")) throw notFound("Organisation");
  c.set("orgId", key.orgId);
  await next();
};

/** The operator surface, behind `GATEWAY_OPERATOR_TOKEN`; closed when the token is not set. */
export const requireOperator: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.get("services").operatorToken;
  const token = bearer(c.req.header("authorization"));
  const valid = expected !== null && token !== null && sameSecret(token, expected);
  if (!valid) throw new ApiError("unauthorized", "Operator token missing or invalid.");
  await next();
};
