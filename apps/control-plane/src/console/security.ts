import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../services/context.ts";

/**
 * Nothing but this origin's own files runs or loads: no inline script or style, no frames, forms
 * post only here. Pages are never cached (they show keys and bodies) and send no referrer to other
 * sites (`same-origin`: under `no-referrer` a browser sends `Origin: null` on our own forms).
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set("content-security-policy", contentSecurityPolicy);
  headers.set("x-content-type-options", "nosniff");
  headers.set("x-frame-options", "DENY");
  headers.set("referrer-policy", "same-origin");
  headers.set("cross-origin-opener-policy", "same-origin");
  headers.set("cross-origin-resource-policy", "same-origin");
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
};

/**
 * A state change must come from a page of this origin: the browser's `Origin` header (sent on
 * every POST) names the host the request was sent to. A request with no `Origin` is refused too.
 */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Whether the page is served over https (directly, or behind a proxy that says so). */
export function servedOverHttps(url: string, forwardedProto: string | undefined): boolean {
  return url.startsWith("https:") || forwardedProto?.split(",")[0]?.trim() === "https";
}
