import { databaseAnswers } from "@gateway/db";
import { z } from "zod";
import { defineRoute, json, type RouteApp, type RouteSite } from "../openapi.ts";

const probeAnswer = (states: [string, ...string[]]) =>
  z.strictObject({ status: z.enum(states) }).meta({ description: "What the probe found." });

/** GET /livez and GET /readyz: public, for load balancers and orchestrators. */
export function registerProbes(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/livez",
      summary: "Alive: the process answers",
      responses: { 200: json("Always, while the process runs.", probeAnswer(["alive"])) },
    }),
    (c) => c.json({ status: "alive" }, 200),
  );
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/readyz",
      summary: "Ready for traffic: PostgreSQL answers within 1 s",
      responses: {
        200: json("Ready.", probeAnswer(["ready"])),
        // the standalone process answers these paths from its gateway, with its own reasons
        503: json(
          "Not ready: `database_unreachable` (PostgreSQL does not answer); on the standalone process also `starting`, `draining` or `syncing`.",
          probeAnswer(["database_unreachable", "starting", "draining", "syncing"]),
        ),
      },
    }),
    async (c) =>
      (await databaseAnswers(c.get("services").db, 1_000))
        ? c.json({ status: "ready" }, 200)
        : c.json({ status: "database_unreachable" }, 503),
  );
}
