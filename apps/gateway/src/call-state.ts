import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import {
  type CallEventBytes,
  type CallUsage,
  callsTopic,
  type FallbackReason,
  frameCallEvent,
  type GatewayMode,
  type GatewayRoute,
  gatewayResponseHeaders,
  type LimitName,
  type LimitScope,
  type ProviderLabel,
  type StreamOutcome,
} from "@gateway/contracts";
import type { Lease } from "@gateway/limits";
import type { EndpointSpec } from "@gateway/providers";
import { type AnswerLimits, BodyRecorder } from "./body-recorder.ts";
import type { CallTrace } from "./call-trace.ts";
import { fitCapture } from "./capture-fit.ts";
import { captureHeaders } from "./headers.ts";
import type { Caller } from "./resolve-caller.ts";

/** Everything the gateway learns about one request, gathered as it goes and emitted once at the end. */
export interface CallState {
  requestId: string;
  /** Aborts the upstream call when the caller goes away. */
  abort: AbortController;
  receivedAt: Date;
  /** What the call's event needs of the request alone, made once (`prepareRecord`). */
  prepared: PreparedRecord | null;
  startedAt: number;
  spec: EndpointSpec;
  caller: Caller | null;
  mode: GatewayMode;
  route: GatewayRoute;
  providerLabel: ProviderLabel;
  fallbackReason: FallbackReason | null;
  requestedModel: string | null;
  servedModel: string | null;
  stream: boolean;
  status: number;
  firstByteMs: number | null;
  outcome: StreamOutcome;
  /**
   * Everything the caller needs has been handed to its socket: a stream's terminal event (or the
   * provider's error event), or the whole of a JSON body. A hang-up after this is no abort: the
   * SDKs close a stream the moment they read its last event.
   */
  delivered: boolean;
  /**
   * Set once the call is being recorded (its event is published once, before the response's last
   * byte): resolves when the event is in the bus's journal.
   */
  recorded: Promise<void> | null;
  /** When the call was recorded (performance.now()): its elapsed time ends there. */
  endedAt: number | null;
  error: { type: string; message: string } | null;
  upstreamRequestId: string | null;
  upstreamResponseId: string | null;
  tags: Record<string, string>;
  usage: CallUsage | null;
  /** Filled only when this request is captured. */
  capture: {
    /**
     * The request's headers as received, credentials included: the capture stores them only as
     * `captureHeaders` makes them (`prepareRecord`).
     */
    receivedHeaders: IncomingHttpHeaders;
    requestBody: Buffer | null;
    responseHeaders: Record<string, string>;
  } | null;
  answerLimits: AnswerLimits;
  /** The answer's bytes, kept when the call is captured or its usage is read from a JSON body. */
  answer: BodyRecorder | null;
  /** The call's spans; null unless tracing is on. */
  trace: CallTrace | null;
  /** What the call holds of its limits while it runs; null when none limit it. */
  lease: Lease | null;
  /** The limit that refused the call; null when none did. */
  refusedBy: { scope: LimitScope; limit: LimitName } | null;
}

export function newCallState(
  requestId: string,
  spec: EndpointSpec,
  mode: GatewayMode,
  answerLimits: AnswerLimits,
): CallState {
  return {
    requestId,
    abort: new AbortController(),
    receivedAt: new Date(),
    prepared: null,
    startedAt: performance.now(),
    spec,
    caller: null,
    mode,
    route: "primary",
    providerLabel: spec.provider,
    fallbackReason: null,
    requestedModel: null,
    servedModel: null,
    stream: false,
    status: 0,
    firstByteMs: null,
    outcome: "complete",
    delivered: false,
    recorded: null,
    endedAt: null,
    error: null,
    upstreamRequestId: null,
    upstreamResponseId: null,
    tags: {},
    usage: null,
    capture: null,
    answerLimits,
    answer: null,
    trace: null,
    lease: null,
    refusedBy: null,
  };
}

interface PreparedRecord {
  receivedAt: string;
  /** The capture's request headers (null without a capture). */
  captureRequestHeaders: Record<string, string> | null;
}

/**
 * What the call's event needs of the request alone, made once: `forward` asks for it as soon as
 * the upstream request is on its way, so that it is made while the upstream works rather than
 * between its answer and the caller; a call that never went upstream has it made when recorded.
 */
export function prepareRecord(call: CallState): PreparedRecord {
  call.prepared ??= {
    receivedAt: call.receivedAt.toISOString(),
    captureRequestHeaders: call.capture ? captureHeaders(call.capture.receivedHeaders) : null,
  };
  return call.prepared;
}

/** Keeps `bytes` of the answer (the caller got them too). */
export function keepAnswer(call: CallState, bytes: Buffer): void {
  call.answer ??= new BodyRecorder(call.answerLimits, call.requestId);
  call.answer.push(bytes);
}

/** The four headers on every gateway response. */
export function gatewayHeaders(call: Pick<CallState, "requestId" | "mode" | "route" | "servedModel">) {
  return {
    [gatewayResponseHeaders.requestId]: call.requestId,
    [gatewayResponseHeaders.mode]: call.mode,
    [gatewayResponseHeaders.route]: call.route,
    [gatewayResponseHeaders.effectiveModel]: headerSafe(call.servedModel ?? ""),
  };
}

/**
 * A model name is the caller's text; a header value is printable ASCII. Anything else is
 * percent-encoded (as in a URL), so that an exotic model name cannot break the response. A lone
 * surrogate (which JSON lets a body hold) is encoded as U+FFFD: `encodeURIComponent` throws on it.
 */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value.toWellFormed());
}

/** Milliseconds from the call's arrival to its recording (or to now, before that). */
export function elapsedMs(call: CallState): number {
  return Math.max(0, (call.endedAt ?? performance.now()) - call.startedAt);
}

/**
 * The access log line of a call: who, where, how it went; never a key, a body or a prompt (the
 * model names are the caller's and not logged either: they can be anything).
 */
export function accessFields(call: CallState) {
  return {
    request_id: call.requestId,
    org_id: call.caller?.apiKey.orgId ?? null,
    project_id: call.caller?.project.id ?? null,
    workload_id: call.caller?.workload.id ?? null,
    endpoint: call.spec.endpoint,
    mode: call.mode,
    route: call.route,
    status: call.status,
    first_byte_ms: call.firstByteMs,
    total_ms: Math.round(elapsedMs(call) * 10) / 10,
    stream_outcome: call.outcome,
  };
}

/**
 * How far a call in flight has come, for the log line of a drain that stopped waiting for it: the
 * facts, not a guess at the stage (a call that never ends is a bug; these say where it stopped).
 */
export function progressFields(call: CallState, res: ServerResponse) {
  return {
    request_id: call.requestId,
    endpoint: call.spec.endpoint,
    age_ms: Math.round(performance.now() - call.startedAt),
    caller_resolved: call.caller !== null,
    upstream_first_byte_ms: call.firstByteMs,
    recording: call.recorded !== null,
    response: res.writableFinished
      ? "finished"
      : res.writableEnded
        ? "ending"
        : res.headersSent
          ? "started"
          : "not started",
    client_gone: res.destroyed,
  };
}

/**
 * The `gateway.calls.v1` event of a call that resolved to a workload, framed, and no larger than
 * `maxEventBytes`: a capture too large for the bus is cut to fit (`fitCapture`).
 */
export function callEvent(
  call: CallState,
  caller: Caller,
  maxEventBytes: number,
): { frame: Buffer; cut: boolean } {
  const prepared = prepareRecord(call);
  const event: CallEventBytes = {
    schema: callsTopic,
    request_id: call.requestId,
    org_id: caller.apiKey.orgId,
    project_id: caller.project.id,
    workload_id: caller.workload.id,
    api_key_id: caller.apiKey.id,
    received_at: prepared.receivedAt,
    endpoint: call.spec.endpoint,
    provider_label: call.providerLabel,
    mode: call.mode,
    route: call.route,
    fallback_reason: call.fallbackReason,
    requested_model: call.requestedModel,
    served_model: call.servedModel,
    stream: call.stream,
    status: call.status,
    first_byte_ms: call.firstByteMs,
    total_ms: elapsedMs(call),
    stream_outcome: call.outcome,
    ...(call.refusedBy ? { refused_by: call.refusedBy } : {}),
    error: call.error,
    upstream_request_id: call.upstreamRequestId,
    upstream_response_id: call.upstreamResponseId,
    tags: call.tags,
    usage: call.usage,
    capture: null,
  };
  const capture = call.capture;
  if (!capture) return { frame: frameCallEvent(event).encode(), cut: false };
  const parts = {
    requestHeaders: prepared.captureRequestHeaders ?? {},
    responseHeaders: capture.responseHeaders,
    request: capture.requestBody ?? Buffer.alloc(0),
    // read first: bytes that cannot be read back from disk count as omitted
    answer: call.answer?.bytes() ?? Buffer.alloc(0),
    answerOmitted: call.answer?.omitted ?? 0,
  };
  return fitCapture(event, parts, maxEventBytes);
}
