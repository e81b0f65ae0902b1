import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { html } from "hono/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../services/context.ts";
import { ConsoleApiError, consoleApi } from "./api.ts";
import { registerAssets } from "./assets.ts";
import type { ConsoleEnv } from "./context.ts";
import { layout } from "./layout.ts";
import { registerCallPages } from "./pages/calls.ts";
import { registerKeyPages } from "./pages/keys.ts";
import { registerOperatorPages } from "./pages/operator.ts";
import { registerOverviewPage } from "./pages/overview.ts";
import { registerProjectPages } from "./pages/projects.ts";
import { registerReportPages } from "./pages/reports.ts";
import { registerRoutePages } from "./pages/routes.ts";
import { sameOrigin, securityHeaders } from "./security.ts";
import { csrfToken, readSession } from "./session.ts";
import { registerSignIn, sessionCookie, signOut } from "./sign-in.ts";

/**
 * The console at `/console`: HTML pages rendered on the server from the public JSON API (called
 * in process as the signed-in principal), one same-origin script for the charts.
 */
export function registerConsole(app: Hono<AppEnv>) {
  const site = new Hono<ConsoleEnv>();
  site.use(securityHeaders);
  registerAssets(site);
  registerSignIn(site);

  site.use(async (c, next) => {
    const session = await readSession(c.get("services"), getCookie(c, sessionCookie), new Date());
    if (!session) {
      if (c.req.method === "GET") return c.redirect("/console/sign-in", 303);
      return c.text("Your session has ended; sign in again.", 401);
    }
    const csrf = csrfToken(session.cookie, session.secret);
    if (c.req.method !== "GET") {
      const form = await c.req.parseBody();
      if (!sameOrigin(c.req.header("origin"), c.req.header("host")) || form._csrf !== csrf)
        return c.text("Cross-site request refused.", 403);
    }
    c.set("session", session);
    c.set("csrf", csrf);
    c.set("api", consoleApi(app, session.principal));
    await next();
  });

  site.get("/", (c) =>
    c.redirect(
      c.get("session").principal.kind === "operator" ? "/console/operator/orgs" : "/console/projects",
      303,
    ),
  );
  site.post("/sign-out", signOut);
  registerKeyPages(site);
  registerProjectPages(site);
  registerRoutePages(site);
  registerReportPages(site);
  registerCallPages(site);
  registerOverviewPage(site);
  registerOperatorPages(site);

  site.onError((error, c) => {
    if (!(error instanceof ConsoleApiError)) throw error;
    const session = c.get("session");
    const body = html`<p role="alert">${error.message}</p><p><a href="/console">Back to the console</a></p>`;
    // the API's own refusal (401 of the operator surface to an org, 404, 422 of a form) stands
    const status = error.status >= 400 && error.status < 500 ? (error.status as ContentfulStatusCode) : 500;
    return c.html(
      layout({
        title: "Not available",
        principal: session?.principal ?? null,
        csrf: c.get("csrf") ?? "",
        body,
      }),
      status,
    );
  });
  app.route("/console", site);
}
