import type { Server, ServerResponse } from "node:http";
import type { ConfigCache } from "@gateway/cache";
import { type Logger, newId } from "@gateway/contracts";
import type { progressFields } from "./call-context.ts";
import { gatewayHeaders } from "./call-state.ts";
import { sendJson } from "./gateway-errors.ts";

/** What `stopServing` needs of a gateway: stop being ready, then wait for the calls in flight. */
export interface Drainable {
  /**
   * From now on `/readyz` answers 503 and responses ask to close their connection; requests are
   * still served (a load balancer takes the gateway out of rotation before it stops listening).
   */
  stopBeingReady(): void;
  /**
   * As `stopBeingReady`, then resolves when no request is in flight (or at the deadline, with how
   * far each call still in flight had come).
   */
  drain(timeoutMs: number): Promise<{
    drained: boolean;
    inFlight: number;
    calls: ReturnType<typeof progressFields>[];
  }>;
}

/** Send it traffic: not while draining, nor before the config cache has been complete once. */
export function isReady(draining: boolean, cache: ConfigCache): boolean {
  return !draining && cache.synced();
}

const probeArm = { mode: "byo", route: "primary", servedModel: null } as const;

/**
 * `/healthz` as the interface defines it (200 while the process serves); `/livez`: the process
 * answers at all; `/readyz`: send it traffic. Not ready from the moment a drain begins (a load
 * balancer stops routing to it while it finishes what it has) and until the config cache has
 * been complete once (a gateway that just started could not yet tell a valid key).
 */
export function answerProbe(res: ServerResponse, path: string, { draining, cache }: ProbeState): void {
  const { status, body } = probeAnswer(path, draining, cache);
  sendJson(res, status, JSON.stringify(body), gatewayHeaders(newId("request"), probeArm));
}

interface ProbeState {
  draining: boolean;
  cache: ConfigCache;
}

function probeAnswer(path: string, draining: boolean, cache: ConfigCache) {
  if (path === "/livez") return { status: 200, body: { status: "alive" } };
  if (path === "/healthz") return { status: 200, body: { status: draining ? "draining" : "ok" } };
  if (isReady(draining, cache)) return { status: 200, body: { status: "ready" } };
  return { status: 503, body: { status: draining ? "draining" : "syncing" } };
}

/**
 * Stops being ready and keeps serving for `delayMs` (so that a load balancer checking `/readyz`
 * has taken the gateway out of rotation before it stops listening: no client meets a refused
 * connection), then stops accepting connections, lets requests and streams in flight finish
 * until `timeoutMs`, and closes whatever is left.
 */
export async function stopServing(
  server: Server,
  gateway: Drainable,
  { delayMs, timeoutMs }: { delayMs: number; timeoutMs: number },
  log: Logger,
) {
  gateway.stopBeingReady();
  if (delayMs > 0) {
    log.info("not ready; serving on until the load balancer has noticed", { delay_ms: delayMs });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  server.close();
  server.closeIdleConnections();
  const { drained, inFlight, calls } = await gateway.drain(timeoutMs);
  if (!drained) {
    // (the first few say enough, and keep the line a log pipeline takes whole)
    log.warn("drain deadline passed; closing remaining connections", {
      inFlight,
      calls: calls.slice(0, 20),
    });
    server.closeAllConnections();
  }
}
