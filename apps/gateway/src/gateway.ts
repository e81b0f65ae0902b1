import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventBus } from "@gateway/bus";
import { type ConfigCache, configReader } from "@gateway/cache";
import type { Logger, Metrics } from "@gateway/contracts";
import { credentialsWithFiles } from "@gateway/contracts";
import type { LimitStore } from "@gateway/limits";
import type { Tracer } from "@gateway/tracing";
import { Agent } from "undici";
import { CallLimits } from "./admission.ts";
import { resetSpillDir } from "./body-recorder.ts";
import { type CallContext, type GatewayContext, progressFields } from "./call-context.ts";
import { type GatewayConfig, responsesKeyEnv } from "./config.ts";
import { failUnhandled } from "./gateway-errors.ts";
import { largeAnswerTurns } from "./large-answer-turns.ts";
import { serveModels } from "./models.ts";
import { switchedOnObservers } from "./observers.ts";
import { answerProbe, type Drainable, isReady } from "./readiness.ts";
import { probePaths } from "./routes.ts";
import { endCall, serveCall, startCall } from "./serve-call.ts";

export { stopServing } from "./readiness.ts";

export interface GatewayDeps {
  cache: ConfigCache;
  bus: EventBus;
  log: Logger;
  config: GatewayConfig;
  /** Operator credentials by env var name; the app reads the environment, the gateway never does. */
  credentials(name: string): string | undefined;
  /** Where answers too large to hold in memory wait for their call's end; this process's alone. */
  spillDir: string;
  /** Where the gateway's metrics go (docs/metrics.md); none are taken without it. */
  metrics?: Metrics | null;
  /** Draws the traffic split; tests may pin it. */
  random?: () => number;
  /** Spans for every call when tracing is on; null (the default) when it is off. */
  tracer?: Tracer | null;
  /** Where rate limits and budgets are counted; without it no limit is enforced. */
  limits?: LimitStore | null;
}

export interface Gateway extends Drainable {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { cache, bus, log, config, metrics = null, tracer = null, limits = null } = deps;
  const reader = configReader(cache);
  const random = deps.random ?? Math.random;
  resetSpillDir(deps.spillDir);
  const upstream = new Agent({
    connect: { timeout: config.connectTimeoutMs },
    headersTimeout: config.firstByteTimeoutMs,
    bodyTimeout: config.idleTimeoutMs,
    keepAliveTimeout: 30_000,
  });
  let inFlight = 0;
  /** The calls being served: what a drain that stops waiting reports. */
  const callsInFlight = new Set<CallContext>();
  let draining = false;
  let onIdle: (() => void) | null = null;

  const callLimits = limits ? new CallLimits(limits) : null;
  metrics?.readiness("gateway", () => isReady(draining, cache));

  const gateway: GatewayContext = {
    config,
    reader,
    plan: {
      config: reader,
      // a key given as <NAME>_FILE (a mounted secret) is read on first use
      credentials: credentialsWithFiles(deps.credentials),
      providerUrls: { provider_a: config.providerAUrl, provider_b: config.providerBUrl },
      responsesKeyEnv,
      random,
    },
    upstream,
    bus,
    log,
    random,
    answerLimits: {
      spillBytes: config.answerMemoryBytes,
      maxBytes: config.maxBodyBytes,
      spillDir: deps.spillDir,
    },
    limits: callLimits,
    observers: switchedOnObservers({
      ...deps,
      metrics,
      tracer,
      limits,
      callLimits,
      inFlight: () => inFlight,
    }),
    largeAnswers: largeAnswerTurns(bus, log),
    journaled: () => new Promise<void>((resolve) => bus.whenJournaled(resolve)),
  };

  async function handleCall(req: IncomingMessage, res: ServerResponse) {
    const ctx = startCall(gateway, req, res);
    callsInFlight.add(ctx);
    try {
      await serveCall(ctx);
    } finally {
      callsInFlight.delete(ctx);
      endCall(ctx);
    }
  }

  function track(work: Promise<void>, req: IncomingMessage, res: ServerResponse) {
    inFlight++;
    work
      .catch((error: unknown) => failUnhandled({ req, res, log, error }))
      .finally(() => {
        inFlight--;
        if (inFlight === 0) onIdle?.();
      });
  }

  return {
    handle(req, res) {
      if (draining) res.setHeader("connection", "close");
      const path = (req.url ?? "/").split("?")[0]!;
      if (req.method === "GET" && probePaths.has(path)) return answerProbe(res, path, { draining, cache });
      if (req.method === "GET" && path === "/v1/models")
        return track(serveModels(gateway, req, res), req, res);
      track(handleCall(req, res), req, res);
    },
    stopBeingReady() {
      draining = true;
    },
    async drain(timeoutMs) {
      draining = true;
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          onIdle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return { drained: inFlight === 0, inFlight, calls: [...callsInFlight].map(progressFields) };
    },
    async close() {
      await upstream.close();
    },
  };
}
