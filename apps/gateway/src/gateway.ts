import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventBus } from "@gateway/bus";
import { type ConfigCache, configReader } from "@gateway/cache";
import { callsTopic, gatewayRequestHeaders, type Logger, newId } from "@gateway/contracts";
import { endpointSpecs, type GatewayErrorKind, gatewayError } from "@gateway/providers";
import { Agent } from "undici";
import { type CallState, callEvent, gatewayHeaders, newCallState } from "./call-state.ts";
import type { GatewayConfig } from "./config.ts";
import { forward, upstreamTarget } from "./forward.ts";
import { captureHeaders, singleHeader } from "./headers.ts";
import { readBody } from "./read-body.ts";
import { resolveCaller } from "./resolve-caller.ts";
import { matchRoute, wireFormatForPath } from "./routes.ts";
import { parseTags } from "./tags.ts";

export interface GatewayDeps {
  cache: ConfigCache;
  bus: EventBus;
  log: Logger;
  config: GatewayConfig;
}

export interface Gateway {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Requests from now on are told to close their connection; resolves when none is in flight (or at the deadline). */
  drain(timeoutMs: number): Promise<{ drained: boolean; inFlight: number }>;
  close(): Promise<void>;
}

export function createGateway({ cache, bus, log, config }: GatewayDeps): Gateway {
  const reader = configReader(cache);
  const upstream = new Agent({
    connect: { timeout: config.connectTimeoutMs },
    headersTimeout: config.firstByteTimeoutMs,
    bodyTimeout: config.idleTimeoutMs,
    keepAliveTimeout: 30_000,
  });
  const targets = {
    provider_a: upstreamTarget(config.providerAUrl),
    provider_b: upstreamTarget(config.providerBUrl),
  };
  let inFlight = 0;
  let draining = false;
  let onIdle: (() => void) | null = null;

  function emit(call: CallState) {
    if (!call.caller) return;
    bus.publish(callsTopic, call.requestId, callEvent(call, call.caller));
  }

  function fail(
    call: CallState,
    res: ServerResponse,
    kind: GatewayErrorKind,
    message: string,
    param: string | null = null,
  ) {
    const error = gatewayError(call.spec.wireFormat, kind, message, call.requestId, param);
    call.status = error.status;
    call.error = { type: error.type, message };
    sendJson(res, error.status, error.body, gatewayHeaders(call));
    if (call.capture) call.capture.responseBody.push(Buffer.from(error.body));
  }

  async function handleCall(req: IncomingMessage, res: ServerResponse, url: string) {
    const route = matchRoute(req.method, url);
    const upstreamKey = singleHeader(req.headers[gatewayRequestHeaders.upstreamKey]);
    if (!route) {
      const format = wireFormatForPath(url);
      const spec = format === "messages" ? endpointSpecs.messages : endpointSpecs.chat_completions;
      const call = newCallState(newId("request"), spec, upstreamKey ? "byo" : "managed");
      return fail(call, res, "not_found", `No route for ${req.method} ${url.split("?")[0]}.`);
    }
    const call = newCallState(newId("request"), route.spec, upstreamKey ? "byo" : "managed");
    const resolved = await resolveCaller(reader, route.spec.wireFormat, req.headers);
    if (!resolved.ok) return fail(call, res, resolved.kind, resolved.message);
    call.caller = resolved.caller;
    try {
      await proxyCall(req, res, call, route.query, upstreamKey);
    } finally {
      emit(call);
    }
  }

  async function proxyCall(
    req: IncomingMessage,
    res: ServerResponse,
    call: CallState,
    query: string,
    upstreamKey: string | undefined,
  ) {
    const workload = call.caller!.workload;
    if (workload.captureEnabled && Math.random() < workload.captureSampleRate) {
      call.capture = {
        requestHeaders: captureHeaders(req.headers),
        requestBody: null,
        responseHeaders: {},
        responseBody: [],
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

    // The body is parsed only to read `model` and `stream`; the bytes go upstream as received.
    const parsed = parseJsonObject(read.body);
    if (!parsed) return fail(call, res, "invalid_request", "The request body is not a valid JSON object.");
    call.requestedModel = typeof parsed.model === "string" ? parsed.model : null;
    call.servedModel = call.requestedModel;
    call.stream = parsed.stream === true;

    if (!upstreamKey) {
      return fail(
        call,
        res,
        "model_not_found",
        `Model '${call.requestedModel ?? ""}' is not in the catalog. To use your own provider key, send it in ${gatewayRequestHeaders.upstreamKey}.`,
        "model",
      );
    }
    await forward(upstream, targets[call.spec.provider], call, req, res, read.body, query, upstreamKey);
  }

  return {
    handle(req, res) {
      const url = req.url ?? "/";
      if (draining) res.setHeader("connection", "close");
      if (req.method === "GET" && (url === "/healthz" || url.startsWith("/healthz?"))) {
        const probe = {
          requestId: newId("request"),
          mode: "byo",
          route: "primary",
          servedModel: null,
        } as const;
        sendJson(res, 200, JSON.stringify({ status: draining ? "draining" : "ok" }), gatewayHeaders(probe));
        return;
      }
      inFlight++;
      handleCall(req, res, url)
        .catch((error: unknown) => {
          log.error("gateway request failed", { error: String(error) });
          if (!res.headersSent)
            sendJson(res, 500, JSON.stringify({ error: { message: "Internal gateway error." } }), {});
          else res.destroy();
        })
        .finally(() => {
          inFlight--;
          if (inFlight === 0) onIdle?.();
        });
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
      return { drained: inFlight === 0, inFlight };
    },
    async close() {
      await upstream.close();
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function parseJsonObject(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
