import { databaseAnswers } from "@gateway/db";
import { z } from "zod";
import type { RouteTable } from "../route-registry.ts";

const probeAnswer = (states: [string, ...string[]]) =>
  z.object({ status: z.enum(states) }).meta({ description: "What the probe found." });

/** GET /livez and GET /readyz: public, for load balancers and orchestrators. */
export function registerProbes(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/livez",
      summary: "Alive: the process answers",
      responses: { 200: { description: "Always, while the process runs.", schema: probeAnswer(["alive"]) } },
    },
    (c) => c.json({ status: "alive" }),
  );
  t.add(
    {
      method: "get",
      path: "/readyz",
      summary: "Ready for traffic: PostgreSQL answers within 1 s",
      responses: {
        200: { description: "Ready.", schema: probeAnswer(["ready"]) },
        503: {
          // the standalone process answers these paths from its gateway, with its own reasons
          description:
            "Not ready: `database_unreachable` (PostgreSQL does not answer); on the standalone process also `starting`, `draining` or `syncing`.",
          schema: probeAnswer(["database_unreachable", "starting", "draining", "syncing"]),
        },
      },
    },
    async (c) =>
      (await databaseAnswers(c.get("services").db, 1_000))
        ? c.json({ status: "ready" })
        : c.json({ status: "database_unreachable" }, 503),
  );
}
