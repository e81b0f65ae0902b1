import { aliveAnswer, checkReadiness, type ReadinessCheck, readyAnswer } from "@gateway/runtime";
import { z } from "zod";
import { defineRoute, json, type RouteApp, type RouteSite } from "../openapi.ts";

const probeAnswer = (states: [string, ...string[]]) =>
  z.strictObject({ status: z.enum(states) }).meta({ description: "What the probe found." });

const notReady = ["database_unreachable", "starting", "draining", "syncing"] as const;

/** GET /livez and GET /readyz (from `readiness`): public, for load balancers and orchestrators. */
export function registerProbes(app: RouteApp, site: RouteSite, readiness: ReadinessCheck) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/livez",
      summary: "Alive: the process answers",
      responses: { 200: json("Always, while the process runs.", probeAnswer(["alive"])) },
    }),
    (c) => c.json(aliveAnswer.body, aliveAnswer.status),
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
          "Not ready: `database_unreachable` (PostgreSQL does not answer) or `draining` (stopping: finishing what it has); on the standalone process also `starting` or `syncing`.",
          probeAnswer([...notReady]),
        ),
      },
    }),
    async (c) => {
      const { status, body } = readyAnswer(await checkReadiness(readiness));
      return status === 200
        ? c.json({ status: "ready" as const }, 200)
        : c.json({ status: body.status as (typeof notReady)[number] }, 503);
    },
  );
}
