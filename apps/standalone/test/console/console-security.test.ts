import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, operatorToken, startHarness } from "../harness.ts";

// The console's sign-in, session and cross-site defences, over plain HTTP as an attacker sends it.
describe("console security", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const origin = () => h.gateway.url;
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return fetch(`${origin()}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: origin(), ...headers },
      body: form(fields),
    });
  }

  const get = (path: string, cookie?: string) =>
    fetch(`${origin()}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });

  /** Signs in with `credential`; the session cookie as a Cookie header. */
  async function signIn(credential: string, headers: Record<string, string> = {}) {
    const res = await post("/console/sign-in", { credential }, headers);
    expect(res.status).toBe(303);
    const setCookie = res.headers.get("set-cookie") ?? "";
    return { cookie: setCookie.split(";")[0]!, setCookie };
  }

  /** The CSRF token the page's forms carry. */
  async function csrfOf(cookie: string) {
    const page = await (await get("/console/keys", cookie)).text();
    return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  }

  it("serves every page under a strict CSP, uncached, unframeable", async () => {
    for (const path of ["/console/sign-in", "/console/assets/console.js"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const page = await get("/console/sign-in");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).not.toMatch(/<script>|<script [^>]*>[^<]|style="/);
  });

  it("exchanges a key for an HttpOnly, SameSite=Strict, 8-hour cookie that holds no secret", async () => {
    const { setCookie } = await signIn(h.apiKey);
    expect(setCookie).toMatch(/; Max-Age=28800; Path=\/console; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain(h.apiKey);
    expect(setCookie).not.toContain(h.apiKey.slice(3, 20));
    // behind a TLS-terminating proxy the cookie is Secure
    const proxied = await signIn(h.apiKey, { "x-forwarded-proto": "https" });
    expect(proxied.setCookie).toContain("; Secure");
  });

  it("refuses a bad credential and a sign-in posted from another site, setting no cookie", async () => {
    const bad = await post("/console/sign-in", { credential: "sk_not_a_key" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("set-cookie")).toBeNull();
    for (const headers of [{ origin: "https://evil.example" }, { origin: "null" }]) {
      const crossSite = await post("/console/sign-in", { credential: h.apiKey }, headers);
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers.get("set-cookie")).toBeNull();
    }
    const wrongOperator = await post("/console/sign-in", { credential: `${operatorToken}x` });
    expect(wrongOperator.status).toBe(401);
  });

  it("refuses a state change without the session's CSRF token or from another origin", async () => {
    const { cookie } = await signIn(h.apiKey);
    const csrf = await csrfOf(cookie);
    const noToken = await post("/console/keys", { name: "x" }, { cookie });
    expect(noToken.status).toBe(403);
    const otherSession = await signIn(h.apiKey);
    const foreignToken = await post(
      "/console/keys",
      { name: "x", _csrf: await csrfOf(otherSession.cookie) },
      { cookie },
    );
    expect(foreignToken.status).toBe(403);
    const crossSite = await post(
      "/console/keys",
      { name: "x", _csrf: csrf },
      { cookie, origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    const keys = await h.cp("GET", `/admin/v1/orgs/${h.orgId}/api_keys`);
    expect(keys.json.api_keys).toHaveLength(1);
    const made = await post("/console/keys", { name: "x", _csrf: csrf }, { cookie });
    expect(made.status).toBe(200);
  });

  it("ignores a forged or tampered cookie", async () => {
    const { cookie } = await signIn(h.apiKey);
    const [name, value] = cookie.split("=") as [string, string];
    const parts = value.split(".");
    const later = [...parts.slice(0, 3), String(Number(parts[3]) + 86_400), ...parts.slice(4)].join(".");
    const asOperator = ["op", "-", "-", ...parts.slice(3)].join(".");
    for (const forged of [later, asOperator, `${value}x`, "org.a.b.9999999999.n.x"]) {
      const res = await get("/console/keys", `${name}=${forged}`);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/console/sign-in");
    }
    expect((await get("/console/keys", cookie)).status).toBe(200);
  });

  it("ends the session when its key is revoked, and on sign-out", async () => {
    const made = await h.cp("POST", `/admin/v1/orgs/${h.orgId}/api_keys`, { name: "short-lived" });
    const { cookie } = await signIn(made.json.value);
    expect((await get("/console/keys", cookie)).status).toBe(200);
    expect((await h.cp("DELETE", `/admin/v1/orgs/${h.orgId}/api_keys/${made.json.metadata.id}`)).status).toBe(
      204,
    );
    const after = await get("/console/keys", cookie);
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/console/sign-in");

    const session = await signIn(h.apiKey);
    const out = await post(
      "/console/sign-out",
      { _csrf: await csrfOf(session.cookie) },
      { cookie: session.cookie },
    );
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^gateway_console=; Max-Age=0; Path=\/console/);
  });

  it("keeps an org's session to its org and off the operator's pages, and the operator's off an org's", async () => {
    const org = await signIn(h.apiKey);
    const orgOnOperator = await get("/console/operator/orgs", org.cookie);
    expect(orgOnOperator.status).toBe(401);
    expect(await orgOnOperator.text()).not.toContain("<table");
    const operator = await signIn(operatorToken);
    expect((await get("/console/operator/orgs", operator.cookie)).status).toBe(200);
    expect((await get("/console/keys", operator.cookie)).status).toBe(401);
  });
});
