import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventBus } from "@gateway/bus";
import { type ConfigCache, configReader } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import type { LimitStore } from "@gateway/limits";
import type { Drainable, Metrics } from "@gateway/runtime";
import type { Tracer } from "@gateway/tracing";
import { Agent } from "undici";
import { CallLimits } from "./admission.ts";
import { resetSpillDir } from "./body-recorder.ts";
import type { GatewayContext } from "./call-context.ts";
import { armOf } from "./call-state.ts";
import { type GatewayConfig, responsesKeyEnv } from "./config.ts";
import { failUnhandled, requestAnsweredAs } from "./gateway-errors.ts";
import { type DrainReport, InFlight } from "./in-flight.ts";
import { largeAnswerTurns } from "./large-answer-turns.ts";
import { serveModels } from "./models.ts";
import { switchedOnObservers } from "./observers.ts";
import { answerProbe, gatewayReadiness } from "./readiness.ts";
import { probePaths } from "./routes.ts";
import { endCall, serveCall, startCall } from "./serve-call.ts";

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
  /** Not ready from now on, then resolves when no call is in flight, or at the deadline. */
  drain(timeoutMs: number): Promise<DrainReport>;
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
  const inFlight = new InFlight();
  let draining = false;

  const callLimits = limits ? new CallLimits(limits) : null;
  metrics?.readiness("gateway", () => gatewayReadiness(draining, cache).ready);

  const gateway: GatewayContext = {
    config,
    reader,
    plan: {
      config: reader,
      // a key given as <NAME>_FILE (a mounted secret) is read on first use
      credentials: deps.credentials,
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
      inFlight: () => inFlight.requests,
    }),
    largeAnswers: largeAnswerTurns(bus, log),
    journaled: () => new Promise<void>((resolve) => bus.whenJournaled(resolve)),
  };

  async function handleCall(req: IncomingMessage, res: ServerResponse) {
    const ctx = startCall(gateway, req, res);
    inFlight.addCall(ctx);
    try {
      await serveCall(ctx);
    } catch (error) {
      const as = { format: ctx.call.spec.wireFormat, requestId: ctx.call.requestId, arm: armOf(ctx.call) };
      failUnhandled({ res, log, error, as });
    } finally {
      inFlight.deleteCall(ctx);
      endCall(ctx);
    }
  }

  function track(work: Promise<void>, req: IncomingMessage, res: ServerResponse) {
    inFlight.begin();
    work
      .catch((error: unknown) => failUnhandled({ res, log, error, as: requestAnsweredAs(req) }))
      .finally(() => inFlight.end());
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
    drain(timeoutMs) {
      draining = true;
      return inFlight.drain(timeoutMs);
    },
    async close() {
      await upstream.close();
    },
  };
}
