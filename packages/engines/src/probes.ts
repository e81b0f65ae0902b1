import type { Server } from "node:http";
import type { EventBus } from "@gateway/bus";
import { createHttpServer, type Logger, type Metrics, withMetricsRoute } from "@gateway/contracts";
import { type Db, databaseAnswers } from "@gateway/db";
import { listen } from "./run.ts";

/** What `/readyz` answers: ready, or the reason it is not. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/**
 * The probe listener of an app that serves no HTTP of its own (the capture writer, the costing
 * worker): `GET /livez` (the process answers), `GET /readyz` (it is doing its work) and, with
 * metrics, `GET /metrics` (where readiness shows as `app_ready{app}`).
 */
export async function serveProbes(options: {
  app: string;
  port: number;
  host: string;
  log: Logger;
  metrics: Metrics | null;
  readiness(): Promise<Readiness>;
}): Promise<Server> {
  options.metrics?.readiness(options.app, async () => (await options.readiness()).ready);
  const server = createHttpServer(
    withMetricsRoute(options.metrics, (req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      const answer = (status: number, body: object) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      };
      if (req.method !== "GET") return answer(405, { error: "GET only" });
      if (path === "/livez") return answer(200, { status: "alive" });
      if (path !== "/readyz") return answer(404, { error: "only /livez and /readyz" });
      options.readiness().then(
        (r) => (r.ready ? answer(200, { status: "ready" }) : answer(503, { status: r.reason })),
        (error: unknown) => answer(503, { status: String(error) }),
      );
    }),
    { log: options.log },
  );
  options.log.info("listening", { url: await listen(server, options.port, options.host) });
  return server;
}

/** A consumer is ready while it holds partitions to consume and its database answers. */
export function consumerReadiness(bus: EventBus, db: Db): () => Promise<Readiness> {
  return async () => {
    if (!bus.consuming()) return { ready: false, reason: "no_partitions" };
    if (!(await databaseAnswers(db, 1_000))) return { ready: false, reason: "database_unreachable" };
    return { ready: true };
  };
}
