import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { EventBus } from "@gateway/bus";
import { type ApiKeyEntry, type ConfigCache, ConfigUnavailableError, configReader } from "@gateway/cache";
import {
  callsTopic,
  gatewayRequestHeaders,
  type KeyUsageEvent,
  keyUsageTopic,
  type Logger,
  newId,
} from "@gateway/contracts";
import type { LimitStore } from "@gateway/limits";
import { endpointSpecs, type GatewayErrorKind, gatewayError } from "@gateway/providers";
import type { Metrics } from "@gateway/runtime";
import type { Tracer } from "@gateway/tracing";
import { Agent } from "undici";
import { admit, refusalAnswer, settleLimits } from "./admission.ts";
import type { Attempt } from "./attempt.ts";
import type { FactsSource, RecordCall } from "./attempt-response.ts";
import { type AnswerLimits, resetSpillDir } from "./body-recorder.ts";
import {
  accessFields,
  type CallState,
  callEvent,
  gatewayHeaders,
  keepAnswer,
  newCallState,
  progressFields,
} from "./call-state.ts";
import { endCallTrace, endUpstreamSpan, startCallTrace, startUpstreamSpan } from "./call-trace.ts";
import { type GatewayConfig, responsesKeyEnv } from "./config.ts";
import { forward } from "./forward.ts";
import { singleHeader } from "./headers.ts";
import { largeAnswerTurns } from "./large-answer-turns.ts";
import { gatewayMetrics } from "./metrics.ts";
import { modelList } from "./models.ts";
import { isCatalogCall, type PlanContext, planCall } from "./plan.ts";
import { readBody } from "./read-body.ts";
import { readRequestJson } from "./request-json.ts";
import { authenticate, resolveCaller } from "./resolve-caller.ts";
import { matchRoute, probePaths, wireFormatForPath } from "./routes.ts";
import { parseTags } from "./tags.ts";

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

export interface Gateway {
  handle(req: IncomingMessage, res: ServerResponse): void;
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
  close(): Promise<void>;
}

export function createGateway({
  cache,
  bus,
  log,
  config,
  credentials,
  spillDir,
  metrics = null,
  random = Math.random,
  tracer = null,
  limits = null,
}: GatewayDeps): Gateway {
  const reader = configReader(cache);
  resetSpillDir(spillDir);
  const answerLimits: AnswerLimits = {
    spillBytes: config.answerMemoryBytes,
    maxBytes: config.maxBodyBytes,
    spillDir,
  };
  const upstream = new Agent({
    connect: { timeout: config.connectTimeoutMs },
    headersTimeout: config.firstByteTimeoutMs,
    bodyTimeout: config.idleTimeoutMs,
    keepAliveTimeout: 30_000,
  });
  const planContext: PlanContext = {
    config: reader,
    credentials,
    providerUrls: { provider_a: config.providerAUrl, provider_b: config.providerBUrl },
    responsesKeyEnv,
    random,
  };
  let inFlight = 0;
  /** The calls being served, with their responses: what a drain that stops waiting reports. */
  const callsInFlight = new Map<CallState, ServerResponse>();
  let draining = false;
  let onIdle: (() => void) | null = null;

  const largeAnswers = largeAnswerTurns(bus, log);
  const measure = metrics ? gatewayMetrics(metrics, { bus, cache, limits, inFlight: () => inFlight }) : null;
  metrics?.readiness("gateway", () => probeAnswer("/readyz").status === 200);

  /**
   * Publishes the call's event, once: before the last byte of a response that ends (so a process
   * killed after a caller had its answer still has the call in its journal), or when the call
   * ends any other way. The response's facts are read first (they may be in the answer). The
   * promise resolves once the event is in the bus's journal (written at the end of this turn, with
   * the other events of the turn); an answer that outgrew memory is recorded in its turn first
   * (`largeAnswerTurns`). A call recorded already gets the same promise.
   */
  function record(call: CallState, response?: FactsSource): Promise<void> {
    const caller = call.caller;
    if (!caller) return Promise.resolve();
    // (an answer on disk may still wait for its turn to be published: the same promise waits too)
    if (call.recorded) return call.recorded;
    // the call as it ended: a turn's wait changes neither its time nor its outcome
    call.endedAt = performance.now();
    const publish = () => {
      try {
        response?.readFacts();
        const { frame, cut } = callEvent(call, caller, bus.maxEventBytes);
        if (cut)
          log.warn("call event over the bus's message limit: its capture's bodies were cut to fit", {
            request_id: call.requestId,
            max_event_bytes: bus.maxEventBytes,
          });
        bus.publish(callsTopic, call.requestId, frame, call.trace?.span.headers());
      } finally {
        // the usage is known now (read above): the call's tokens count and its slots free
        if (limits) settleLimits(limits, call);
        call.answer?.release();
      }
    };
    if (!call.answer?.onDisk) {
      try {
        publish();
      } finally {
        // (set also when publishing threw: the call is never published twice)
        call.recorded = journaled();
      }
    } else {
      call.recorded = largeAnswers.take(publish, call.requestId).then(journaled);
    }
    return call.recorded;
  }

  const journaled = () => new Promise<void>((resolve) => bus.whenJournaled(resolve));

  /** A valid key on a request that emits no call event still counts as used. */
  function noteKeyUse(apiKey: ApiKeyEntry) {
    const event: KeyUsageEvent = {
      schema: keyUsageTopic,
      api_key_id: apiKey.id,
      used_at: new Date().toISOString(),
    };
    bus.publish(keyUsageTopic, apiKey.id, event);
  }

  function fail(
    call: CallState,
    res: ServerResponse,
    kind: GatewayErrorKind,
    message: string,
    param: string | null = null,
    headers: Record<string, string> = retryHeaders(kind),
  ) {
    const error = gatewayError(call.spec.wireFormat, kind, message, call.requestId, param);
    call.status = error.status;
    call.error = { type: error.type, message };
    if (call.capture) keepAnswer(call, Buffer.from(error.body));
    return record(call).then(() =>
      sendJson(res, error.status, error.body, { ...gatewayHeaders(call), ...headers }),
    );
  }

  /** A call whose handling threw: 503 to retry if the config store did not answer, else 500. */
  function failThrown(call: CallState, res: ServerResponse, error: unknown) {
    const thrown = thrownError(error);
    if (thrown.kind === "internal")
      log.error("gateway request failed", { request_id: call.requestId, error });
    else log.warn("config store did not answer", { request_id: call.requestId, error });
    if (!res.headersSent) return fail(call, res, thrown.kind, thrown.message);
    res.destroy();
  }

  async function handleCall(req: IncomingMessage, res: ServerResponse, url: string) {
    const route = matchRoute(req.method, url);
    const upstreamKey = singleHeader(req.headers[gatewayRequestHeaders.upstreamKey]);
    const mode = upstreamKey ? "byo" : "managed";
    const unrouted =
      wireFormatForPath(url) === "messages" ? endpointSpecs.messages : endpointSpecs.chat_completions;
    const call = newCallState(newId("request"), route?.spec ?? unrouted, mode, answerLimits);
    if (tracer) call.trace = startCallTrace(tracer, req.headers, call);
    callsInFlight.set(call, res);
    try {
      if (!route) return fail(call, res, "not_found", `No route for ${req.method} ${url.split("?")[0]}.`);
      await resolveAndServe(req, res, call, route.query, upstreamKey);
    } finally {
      callsInFlight.delete(call);
      measure?.(call);
      if (config.accessLog) log.info("access", accessFields(call));
      if (call.trace) endCallTrace(call.trace, call);
    }
  }

  async function resolveAndServe(
    req: IncomingMessage,
    res: ServerResponse,
    call: CallState,
    query: string,
    upstreamKey: string | undefined,
  ) {
    let resolved: Awaited<ReturnType<typeof resolveCaller>>;
    try {
      resolved = await resolveCaller(reader, call.spec.wireFormat, req.headers);
    } catch (error) {
      return failThrown(call, res, error);
    }
    if (!resolved.ok) {
      if (resolved.apiKey) noteKeyUse(resolved.apiKey);
      return fail(call, res, resolved.kind, resolved.message);
    }
    call.caller = resolved.caller;
    // Registered before anything is awaited, so a caller who leaves at any point aborts the upstream.
    const onClientGone = () => {
      if (res.writableFinished || call.recorded) return;
      if (!call.delivered) call.outcome = "client_aborted";
      call.abort.abort();
    };
    res.on("close", onClientGone);
    try {
      await serveCall(req, res, call, query, upstreamKey);
    } catch (error) {
      await failThrown(call, res, error);
    } finally {
      res.off("close", onClientGone);
      await record(call);
    }
  }

  async function serveCall(
    req: IncomingMessage,
    res: ServerResponse,
    call: CallState,
    query: string,
    upstreamKey: string | undefined,
  ) {
    const workload = call.caller!.workload;
    if (workload.captureEnabled && random() < workload.captureSampleRate) {
      call.capture = {
        receivedHeaders: req.headers,
        requestBody: null,
        responseHeaders: {},
      };
    }
    const tags = parseTags(singleHeader(req.headers[gatewayRequestHeaders.tags]));
    if (!tags.ok) return fail(call, res, "invalid_request", tags.message, "x-gateway-tags");
    call.tags = tags.tags;

    const read = await readBody(req, config.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === "aborted") {
        call.outcome = "client_aborted";
        return;
      }
      res.setHeader("connection", "close");
      return fail(
        call,
        res,
        "request_too_large",
        `Request body exceeds the ${config.maxBodyBytes}-byte limit.`,
      );
    }
    if (call.capture) call.capture.requestBody = read.body;

    // The body is read only for `model` and `stream`; it is re-serialised only when the model is
    // rewritten for a catalog deployment (always so for a managed call, for a share of routed ones).
    const request = readRequestJson(read.body, { rewritten: isCatalogCall(call.spec, upstreamKey) });
    if (!request) return fail(call, res, "invalid_request", "The request body is not a valid JSON object.");
    call.requestedModel = request.model;
    call.servedModel = call.requestedModel;
    call.stream = request.stream;

    const planned = await planCall(planContext, {
      spec: call.spec,
      request,
      body: read.body,
      upstreamKey,
      workload,
    });
    if (!planned.ok) return fail(call, res, planned.kind, planned.message, planned.param);
    let { plan } = planned;
    if (limits) {
      const admitted = await admit(limits, call, plan);
      if (!admitted.ok) {
        const { refusal } = admitted;
        call.refusedBy = { scope: refusal.scope, limit: refusal.limit };
        useAttempt(call, plan.primary);
        const answer = refusalAnswer(call.spec.wireFormat, refusal, call.caller!);
        return fail(call, res, answer.kind, answer.message, null, answer.headers);
      }
      plan = admitted.plan;
    }
    if (plan.fallbackReason) call.fallbackReason = plan.fallbackReason;

    const recordNow: RecordCall = (response) => record(call, response);
    useAttempt(call, plan.primary);
    if (call.trace) startUpstreamSpan(call.trace, call, plan.primary);
    const first = await forward(
      upstream,
      call,
      plan.primary,
      req,
      res,
      query,
      plan.fallback !== null,
      recordNow,
    );
    if (call.trace) endUpstreamSpan(call.trace, call, first);
    if (first.kind === "failed_before_first_byte" && plan.fallback) {
      // The routed arm failed before the caller saw a byte: re-issue once to the original model.
      call.fallbackReason = first.reason;
      useAttempt(call, plan.fallback);
      if (call.trace) startUpstreamSpan(call.trace, call, plan.fallback);
      const second = await forward(upstream, call, plan.fallback, req, res, query, false, recordNow);
      if (call.trace) endUpstreamSpan(call.trace, call, second);
    }
  }

  async function serveModels(req: IncomingMessage, res: ServerResponse) {
    const requestId = newId("request");
    const probe = { requestId, mode: "managed", route: "primary", servedModel: null } as const;
    const refuse = (kind: GatewayErrorKind, message: string) => {
      const error = gatewayError("chat_completions", kind, message, requestId);
      sendJson(res, error.status, error.body, { ...gatewayHeaders(probe), ...retryHeaders(kind) });
    };
    try {
      const key = await authenticate(reader, req.headers, true);
      if (!key.ok) return refuse(key.kind, key.message);
      noteKeyUse(key.apiKey);
      sendJson(res, 200, await modelList(reader), gatewayHeaders(probe));
    } catch (error) {
      const thrown = thrownError(error);
      if (thrown.kind === "internal") throw error;
      refuse(thrown.kind, thrown.message);
    }
  }

  function track(work: Promise<void>, res: ServerResponse) {
    inFlight++;
    work
      .catch((error: unknown) => {
        log.error("gateway request failed", { error });
        if (!res.headersSent)
          sendJson(res, 500, JSON.stringify({ error: { message: "Internal gateway error." } }), {});
        else res.destroy();
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0) onIdle?.();
      });
  }

  /**
   * `/healthz` as the interface defines it (200 while the process serves); `/livez`: the process
   * answers at all; `/readyz`: send it traffic. Not ready from the moment a drain begins (a load
   * balancer stops routing to it while it finishes what it has) and until the config cache has
   * been complete once (a gateway that just started could not yet tell a valid key).
   */
  function probeAnswer(path: string): { status: number; body: { status: string } } {
    if (path === "/livez") return { status: 200, body: { status: "alive" } };
    if (path === "/healthz") return { status: 200, body: { status: draining ? "draining" : "ok" } };
    if (draining) return { status: 503, body: { status: "draining" } };
    if (!cache.synced()) return { status: 503, body: { status: "syncing" } };
    return { status: 200, body: { status: "ready" } };
  }

  return {
    handle(req, res) {
      const url = req.url ?? "/";
      if (draining) res.setHeader("connection", "close");
      const path = url.split("?")[0]!;
      if (req.method === "GET" && probePaths.has(path)) {
        const probe = {
          requestId: newId("request"),
          mode: "byo",
          route: "primary",
          servedModel: null,
        } as const;
        const { status, body } = probeAnswer(path);
        sendJson(res, status, JSON.stringify(body), gatewayHeaders(probe));
        return;
      }
      if (req.method === "GET" && path === "/v1/models") return track(serveModels(req, res), res);
      track(handleCall(req, res, url), res);
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
      const calls = [...callsInFlight].map(([call, res]) => progressFields(call, res));
      return { drained: inFlight === 0, inFlight, calls };
    },
    async close() {
      await upstream.close();
    },
  };
}

/** Reports an attempt's arm on the call before its response head goes out. */
function useAttempt(call: CallState, attempt: Attempt) {
  call.mode = attempt.mode;
  call.route = attempt.route;
  call.providerLabel = attempt.providerLabel;
  call.servedModel = attempt.servedModel;
}

function thrownError(error: unknown): { kind: GatewayErrorKind; message: string } {
  return error instanceof ConfigUnavailableError
    ? {
        kind: "config_unavailable",
        message:
          "The gateway could not read its configuration in time (key, project or model); retry shortly.",
      }
    : { kind: "internal", message: "Internal gateway error." };
}

/** A 503 of the gateway's own is over in a moment: the SDKs wait this long before their retry. */
function retryHeaders(kind: GatewayErrorKind): Record<string, string> {
  return kind === "config_unavailable" ? { "retry-after": "1" } : {};
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * Stops being ready and keeps serving for `delayMs` (so that a load balancer checking `/readyz`
 * has taken the gateway out of rotation before it stops listening: no client meets a refused
 * connection), then stops accepting connections, lets requests and streams in flight finish
 * until `timeoutMs`, and closes whatever is left.
 */
export async function stopServing(
  server: Server,
  gateway: Gateway,
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
