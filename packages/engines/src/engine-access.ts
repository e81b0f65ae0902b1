import { StartRefusedError } from "@gateway/runtime";

/**
 * Telling, at start, an engine that refuses this app (a certificate not trusted, a TLS handshake
 * or a login refused) from one that is only away: the first stops the app with one line naming
 * the setting to fix (`EngineRefusedError`), the second is ridden out as each app always has.
 */
export class EngineRefusedError extends StartRefusedError {
  override name = "EngineRefusedError";
}

export interface Refusal {
  /** `untrusted`: this app does not trust the server's certificate; `tls`: the server refused this app's TLS; `login`: its credentials. */
  kind: "untrusted" | "tls" | "login";
  /** The code or the first word the driver gave: never a credential. */
  why: string;
}

/** Node's codes for a server certificate that does not verify (chain, host name, dates). */
const untrusted = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

interface DriverError {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** Why `error` (or an error it wraps) is a refusal, or null when the engine may only be away. */
export function refusalOf(error: unknown): Refusal | null {
  for (
    let e = error as DriverError | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as DriverError, depth++
  ) {
    const code = typeof e.code === "string" ? e.code : "";
    const message = typeof e.message === "string" ? e.message : "";
    if (untrusted.has(code)) return { kind: "untrusted", why: code };
    if (code.startsWith("ERR_SSL_")) return { kind: "tls", why: code };
    if (e.name === "KafkaJSSASLAuthenticationError")
      return { kind: "login", why: "SASL authentication failed" };
    // Redis: a wrong password or user, or a user not allowed to log in
    const redisRefusal = /^(WRONGPASS|NOAUTH|NOPERM)\b/.exec(message);
    if (redisRefusal) return { kind: "login", why: redisRefusal[1]! };
    // PostgreSQL: invalid_password, invalid_authorization_specification
    if (code === "28P01" || code === "28000") return { kind: "login", why: `SQLSTATE ${code}` };
  }
  return null;
}
