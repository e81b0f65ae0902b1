import { liveApiKeyOfHash } from "@gateway/db";
import type { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { sameSecret } from "../same-secret.ts";
import { hashKey } from "../services/api-key-secret.ts";
import type { ConsoleContext, ConsoleEnv } from "./context.ts";
import { layout, notice } from "./layout.ts";
import { sameOrigin, servedOverHttps } from "./security.ts";
import { type ConsolePrincipal, operatorSessionSecret, sessionSeconds, sessionValue } from "./session.ts";

export const sessionCookie = "gateway_console";

function signInPage(c: ConsoleContext, error: string | null, status: 200 | 401 | 403 = 200) {
  const body = html`${notice(error, "error")}
<form method="post" action="/console/sign-in" class="sign-in">
<label for="credential">Org API key (sk_…) or operator token</label>
<input id="credential" name="credential" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>
<p>The key is exchanged for a session cookie valid for 8 hours; it is kept nowhere in the browser.</p>`;
  return c.html(layout({ title: "Sign in", principal: null, csrf: "", body }), status);
}

/** The principal a presented credential signs in as, and the secret its session is signed with. */
async function principalOf(
  c: ConsoleContext,
  credential: string,
): Promise<{ principal: ConsolePrincipal; secret: string } | null> {
  const services = c.get("services");
  if (credential.startsWith("sk_")) {
    const keyHash = hashKey(credential);
    const key = await liveApiKeyOfHash(services.db, keyHash);
    return key ? { principal: { kind: "org", orgId: key.orgId, keyId: key.id }, secret: keyHash } : null;
  }
  const secret = operatorSessionSecret(services);
  if (secret === null || services.operatorToken === null || !sameSecret(credential, services.operatorToken))
    return null;
  return { principal: { kind: "operator" }, secret };
}

export function registerSignIn(app: Hono<ConsoleEnv>) {
  app.get("/sign-in", (c) => signInPage(c, null));

  app.post("/sign-in", async (c) => {
    // no session yet, so no CSRF token: the Origin check alone keeps other sites from signing a
    // browser into an account of theirs
    if (!sameOrigin(c.req.header("origin"), c.req.header("host")))
      return signInPage(c, "Sign in from this page.", 403);
    const form = await c.req.parseBody();
    const credential = typeof form.credential === "string" ? form.credential.trim() : "";
    const signedIn = credential === "" ? null : await principalOf(c, credential);
    if (!signedIn) return signInPage(c, "That key or token is not valid.", 401);
    setCookie(c, sessionCookie, sessionValue(signedIn.principal, signedIn.secret, new Date()), {
      path: "/console",
      httpOnly: true,
      sameSite: "Strict",
      secure: servedOverHttps(c.req.url, c.req.header("x-forwarded-proto")),
      maxAge: sessionSeconds,
    });
    return c.redirect("/console", 303);
  });
}

/** Sign out: the cookie is dropped (the session's own state is only the cookie). */
export function signOut(c: ConsoleContext) {
  deleteCookie(c, sessionCookie, { path: "/console" });
  return c.redirect("/console/sign-in", 303);
}
