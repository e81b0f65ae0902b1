import { ConfigUnavailableError } from "@gateway/cache";
import { orgOfLiveApiKey } from "@gateway/db";
import type { MiddlewareHandler } from "hono";
import { ApiError, notFound } from "./errors.ts";
import { sameSecret } from "./same-secret.ts";
import { hashKey } from "./services/api-key-secret.ts";
import type { AppEnv, Services } from "./services/context.ts";

function bearer(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * The org of a live key, by its hash. The gateway's config cache answers first: it holds every
 * live key, so a known key costs no PostgreSQL query, and a revoke deletes the entry in this
 * process at once and in every other replica's copy by Redis invalidation (the same path that
 * stops the gateways). PostgreSQL, the truth, answers whatever the cache cannot vouch for: a hash
 * it does not hold (a bad key, or a new one whose publication is still being retried), and any
 * read it cannot make fresh (Redis away: a copy kept through the outage may predate a revoke made
 * on another replica).
 */
async function orgOfKey(services: Services, keyHash: string): Promise<string | null> {
  try {
    const entry = await services.config.apiKey(keyHash, { freshOnly: true });
    if (entry) return entry.orgId;
  } catch (error) {
    if (!(error instanceof ConfigUnavailableError)) throw error;
  }
  return orgOfLiveApiKey(services.db, keyHash);
}

/**
 * Org-scoped surfaces: the caller's `sk_` key must be live and belong to `:org_id`. A key of
 * another org gets 404, exactly as if the org did not exist.
 */
export const requireOrgKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = c.env?.consolePrincipal;
  if (principal?.kind === "org") {
    if (principal.orgId !== c.req.param("org_id")) throw notFound("Organisation");
    c.set("orgId", principal.orgId);
    return next();
  }
  const token = bearer(c.req.header("authorization"));
  if (!token) throw new ApiError("unauthorized", "Send your sk_ key as Authorization: Bearer <key>.");
  const orgId = await orgOfKey(c.get("services"), hashKey(token));
  if (!orgId) throw new ApiError("unauthorized", "Invalid API key.");
  if (orgId !== c.req.param("org_id")) throw notFound("Organisation");
  c.set("orgId", orgId);
  await next();
};

/** The operator surface, behind `GATEWAY_OPERATOR_TOKEN`; closed when the token is not set. */
export const requireOperator: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.env?.consolePrincipal?.kind === "operator") return next();
  const expected = c.get("services").operatorToken;
  const token = bearer(c.req.header("authorization"));
  const valid = expected !== null && token !== null && sameSecret(token, expected);
  if (!valid) throw new ApiError("unauthorized", "Operator token missing or invalid.");
  await next();
};
