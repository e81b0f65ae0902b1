import { createHash, createHmac, randomBytes } from "node:crypto";
import { findLiveApiKey } from "@gateway/db";
import { sameSecret } from "../same-secret.ts";
import type { Services } from "../services/context.ts";

/** Who a console session acts as: an org through one of its keys, or the operator. */
export type ConsolePrincipal = { kind: "org"; orgId: string; keyId: string } | { kind: "operator" };

/** How long a session lasts; signing in again is the only way to extend it. */
export const sessionSeconds = 8 * 60 * 60;

/**
 * The session cookie is `<kind>.<org_id>.<key_id>.<expires>.<nonce>.<mac>`, with no server-side state, so
 * every replica reads it alike. The MAC's key is what the server alone holds about the credential
 * that signed in: the org key's stored SHA-256 (never the key itself), or the operator token's
 * hash. Revoking the key (its row stops being live) or changing the operator token ends every
 * session it opened, with no session table to clean.
 */
const mac = (secret: string, payload: string) =>
  createHmac("sha256", secret).update(payload).digest("base64url");

const operatorSecret = (token: string) => createHash("sha256").update(`console:${token}`).digest("hex");

/** The nonce makes each sign-in its own session, with its own CSRF token. */
function encode(principal: ConsolePrincipal, expires: number): string {
  const nonce = randomBytes(16).toString("base64url");
  return principal.kind === "org"
    ? `org.${principal.orgId}.${principal.keyId}.${expires}.${nonce}`
    : `op.-.-.${expires}.${nonce}`;
}

/** A new session's cookie value, signed with the credential's server-side secret. */
export function sessionValue(principal: ConsolePrincipal, secret: string, now: Date): string {
  const payload = encode(principal, Math.floor(now.getTime() / 1000) + sessionSeconds);
  return `${payload}.${mac(secret, `session|${payload}`)}`;
}

/** The per-session token every console form carries (derived, so nothing is stored). */
export function csrfToken(cookie: string, secret: string): string {
  return mac(secret, `csrf|${cookie}`);
}

/** A signed-in session: who, and the secret its CSRF token is derived with. */
export interface ConsoleSession {
  principal: ConsolePrincipal;
  cookie: string;
  secret: string;
}

/** The secret an org key's sessions are signed with: its stored hash, read fresh each time. */
async function orgSecret(services: Services, orgId: string, keyId: string): Promise<string | null> {
  const key = await findLiveApiKey(services.db, orgId, keyId);
  return key?.keyHash ?? null;
}

export function operatorSessionSecret(services: Services): string | null {
  return services.operatorToken === null ? null : operatorSecret(services.operatorToken);
}

/** The session a cookie proves, or null: forged, expired, or its credential revoked since. */
export async function readSession(
  services: Services,
  cookie: string | undefined,
  now: Date,
): Promise<ConsoleSession | null> {
  const parts = cookie?.split(".");
  if (!cookie || parts?.length !== 6) return null;
  const [kind, orgId, keyId, expires, nonce, signature] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= now.getTime()) return null;
  let principal: ConsolePrincipal;
  let secret: string | null;
  if (kind === "org") {
    principal = { kind, orgId, keyId };
    secret = await orgSecret(services, orgId, keyId);
  } else if (kind === "op") {
    principal = { kind: "operator" };
    secret = operatorSessionSecret(services);
  } else return null;
  if (secret === null) return null;
  const payload = `${kind}.${orgId}.${keyId}.${expires}.${nonce}`;
  if (!sameSecret(signature, mac(secret, `session|${payload}`))) return null;
  return { principal, cookie, secret };
}
