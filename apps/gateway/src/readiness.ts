import type { ServerResponse } from "node:http";
import type { ConfigCache } from "@gateway/cache";
import { newId } from "@gateway/contracts";
import { aliveAnswer, type ProbeAnswer, type Readiness, readyAnswer } from "@gateway/runtime";
import { gatewayHeaders } from "./call-state.ts";
import { sendJson } from "./gateway-errors.ts";

/**
 * Send it traffic: not from the moment a drain begins (a load balancer stops routing to it while
 * it finishes what it has), nor until the config cache has been complete once (a gateway that
 * just started could not yet tell a valid key).
 */
export function gatewayReadiness(draining: boolean, cache: ConfigCache): Readiness {
  if (draining) return { ready: false, reason: "draining" };
  return cache.synced() ? { ready: true } : { ready: false, reason: "syncing" };
}

const probeArm = { mode: "byo", route: "primary", servedModel: null } as const;

/**
 * The runtime's `/livez` and `/readyz`, and `/healthz` as the interface defines it (200 while the
 * process serves), with the gateway's headers as on every answer of its own.
 */
export function answerProbe(res: ServerResponse, path: string, { draining, cache }: ProbeState): void {
  const { status, body } = probeAnswer(path, draining, cache);
  sendJson(res, status, JSON.stringify(body), gatewayHeaders(newId("request"), probeArm));
}

interface ProbeState {
  draining: boolean;
  cache: ConfigCache;
}

function probeAnswer(path: string, draining: boolean, cache: ConfigCache): ProbeAnswer {
  if (path === "/livez") return aliveAnswer;
  if (path === "/healthz") return { status: 200, body: { status: draining ? "draining" : "ok" } };
  return readyAnswer(gatewayReadiness(draining, cache));
}
