import type { RequestListener, Server } from "node:http";
import type { Logger } from "@gateway/contracts";
import { createHttpServer } from "./http-server.ts";
import { type Metrics, withMetricsRoute } from "./metrics.ts";
import { listen } from "./process.ts";

/** What `/readyz` answers: ready, or the reason it is not. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/** The app's own readiness, asked at each `/readyz`. */
export type ReadinessCheck = () => Readiness | Promise<Readiness>;

/** A probe's answer: its status and `{ status }` body. */
export interface ProbeAnswer {
  status: 200 | 503;
  body: { status: string };
}

/** `/livez`: the process answers at all (an orchestrator restarts it when it does not). */
export const aliveAnswer = { status: 200, body: { status: "alive" } } as const satisfies ProbeAnswer;

/** `/readyz`: send it traffic (200 `ready`), or not yet, or no longer (503 and the reason). */
export function readyAnswer(readiness: Readiness): ProbeAnswer {
  return readiness.ready
    ? { status: 200, body: { status: "ready" } }
    : { status: 503, body: { status: readiness.reason } };
}

/** Asks `check`; a check that throws is not ready, its error the reason. */
export async function checkReadiness(check: ReadinessCheck): Promise<Readiness> {
  try {
    return await check();
  } catch (error) {
    return { ready: false, reason: String(error) };
  }
}

/** `GET /livez` and `GET /readyz` from `check`; anything else is refused. */
function probeListener(check: ReadinessCheck): RequestListener {
  return (req, res) => {
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
    if (path === "/livez") return answer(aliveAnswer.status, aliveAnswer.body);
    if (path !== "/readyz") return answer(404, { error: "only /livez and /readyz" });
    void checkReadiness(check).then((readiness) => {
      const { status, body } = readyAnswer(readiness);
      answer(status, body);
    });
  };
}

/**
 * The probe listener of an app that serves no HTTP of its own (the capture writer, the costing
 * worker): `GET /livez`, `GET /readyz` and, with metrics, `GET /metrics` (where readiness shows
 * as `app_ready{app}`).
 */
export async function serveProbes(options: {
  app: string;
  port: number;
  host: string;
  log: Logger;
  metrics: Metrics | null;
  readiness: ReadinessCheck;
}): Promise<Server> {
  options.metrics?.readiness(options.app, async () => (await checkReadiness(options.readiness)).ready);
  const server = createHttpServer(withMetricsRoute(options.metrics, probeListener(options.readiness)), {
    log: options.log,
  });
  options.log.info("listening", { url: await listen(server, options.port, options.host) });
  return server;
}
