import type { Server } from "node:http";
import type { Logger } from "@gateway/contracts";
import type { ReadinessCheck } from "./probes.ts";

/** The env's `GATEWAY_DRAIN_DELAY_MS` and `GATEWAY_DRAIN_TIMEOUT_MS` (`drainEnv`). */
export interface DrainSettings {
  delayMs: number;
  timeoutMs: number;
}

export function drainSettings(env: {
  GATEWAY_DRAIN_DELAY_MS: number;
  GATEWAY_DRAIN_TIMEOUT_MS: number;
}): DrainSettings {
  return { delayMs: env.GATEWAY_DRAIN_DELAY_MS, timeoutMs: env.GATEWAY_DRAIN_TIMEOUT_MS };
}

/** What a drain turns off, and (when the app counts its requests itself) waits for. */
export interface Drainable {
  /** `/readyz` answers 503 from now on; requests are still served. */
  stopBeingReady(): void;
  /**
   * Resolves once no request is in flight, or at `timeoutMs` with fields that say what still was
   * (for the log). Without it, the drain waits for the server's connections to close.
   */
  drain?(timeoutMs: number): Promise<{ drained: boolean } & Record<string, unknown>>;
}

/** An app's readiness that answers `draining` once its drain has begun. */
export interface DrainableReadiness extends Drainable {
  readiness: ReadinessCheck;
}

export function drainableReadiness(check: ReadinessCheck): DrainableReadiness {
  let draining = false;
  return {
    readiness: () => (draining ? { ready: false, reason: "draining" } : check()),
    stopBeingReady() {
      draining = true;
    },
  };
}

/**
 * How every app that serves HTTP stops: not ready first, serving on for `delayMs` (so that a
 * load balancer checking `/readyz` has taken it out of rotation before it stops listening: no
 * client meets a refused connection), then no new connections, requests in flight finishing
 * until `timeoutMs`, and whatever is left closed.
 */
export async function stopServing(
  server: Server,
  app: Drainable,
  { delayMs, timeoutMs }: DrainSettings,
  log: Logger,
): Promise<void> {
  app.stopBeingReady();
  if (delayMs > 0) {
    log.info("not ready; serving on until the load balancer has noticed", { delay_ms: delayMs });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const { drained, ...inFlight } = app.drain
    ? await app.drain(timeoutMs)
    : { drained: await within(timeoutMs, closed) };
  if (!drained) {
    log.warn("drain deadline passed; closing remaining connections", inFlight);
    server.closeAllConnections();
  }
}

/** Whether `work` settles within `ms`. */
async function within(ms: number, work: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
