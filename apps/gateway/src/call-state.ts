import type { IncomingHttpHeaders } from "node:http";
import {
  type ArmSource,
  type CallUsage,
  type FallbackReason,
  type GatewayMode,
  type GatewayRoute,
  gatewayResponseHeaders,
  type LimitName,
  type LimitScope,
  type ProviderLabel,
  type StreamOutcome,
} from "@gateway/contracts";
import type { EndpointSpec } from "@gateway/providers";
import type { Attempt } from "./attempt.ts";
import { captureHeaders } from "./headers.ts";
import type { Caller } from "./resolve-caller.ts";

/** Which arm a call reports (its headers, event, metrics, span): whose key, which route, what ran. */
export interface Arm {
  mode: GatewayMode;
  route: GatewayRoute;
  providerLabel: ProviderLabel;
  servedModel: string | null;
}

/**
 * How an attempt went: `under_way`; `done` (its response went to the caller, or the caller left
 * during it); `refused` by a limit before it was sent; or failed before its first byte
 * (`timeout`, `error`), to be re-issued to the fallback.
 */
export type AttemptResult = "under_way" | "done" | "refused" | FallbackReason;

export interface AttemptRecord extends Arm {
  result: AttemptResult;
}

/**
 * Everything the gateway learns about one request, gathered as it goes and emitted once at the
 * end: facts only. What a call holds while it runs (its abort, its answer's bytes) is on its
 * `CallContext`; what an observer keeps of a call (its spans, its lease) is the observer's own.
 */
export interface CallState {
  requestId: string;
  receivedAt: Date;
  /** What the call's event needs of the request alone, made once (`prepareRecord`). */
  prepared: PreparedRecord | null;
  startedAt: number;
  spec: EndpointSpec;
  /** Known once the caller is resolved (`AuthenticatedCall`); null before, or when it never is. */
  caller: Caller | null;
  /** What the call reports before any attempt: the mode its headers asked for, the model its body named. */
  requested: Arm;
  /** The upstream calls made (or refused) for it, in order: the last is the arm it reports. */
  attempts: AttemptRecord[];
  fallbackReason: FallbackReason | null;
  /** How the workload's route chose the arm (`affinity`, `draw`); null when no route applied. */
  armSource: ArmSource | null;
  requestedModel: string | null;
  stream: boolean;
  status: number;
  firstByteMs: number | null;
  /** Changed only by the transitions below (`markClientAborted`, `markUpstreamError`, `markTruncated`). */
  outcome: StreamOutcome;
  /**
   * Everything the caller needs has been handed to its socket: a stream's terminal event (or the
   * provider's error event), or the whole of a JSON body. A hang-up after this is no abort: the
   * SDKs close a stream the moment they read its last event.
   */
  delivered: boolean;
  /** When the call was recorded (performance.now()): its elapsed time ends there. */
  endedAt: number | null;
  error: CallError | null;
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
  /** The limit that refused the call; null when none did. */
  refusedBy: { scope: LimitScope; limit: LimitName } | null;
}

export interface CallError {
  type: string;
  message: string;
}

/** A call whose caller (key, project, workload) is known: the only kind that is recorded. */
export interface AuthenticatedCall extends CallState {
  caller: Caller;
}

export function isAuthenticated(call: CallState): call is AuthenticatedCall {
  return call.caller !== null;
}

export function newCallState(requestId: string, spec: EndpointSpec, mode: GatewayMode): CallState {
  return {
    requestId,
    receivedAt: new Date(),
    prepared: null,
    startedAt: performance.now(),
    spec,
    caller: null,
    requested: { mode, route: "primary", providerLabel: spec.provider, servedModel: null },
    attempts: [],
    fallbackReason: null,
    armSource: null,
    requestedModel: null,
    stream: false,
    status: 0,
    firstByteMs: null,
    outcome: "complete",
    delivered: false,
    endedAt: null,
    error: null,
    upstreamRequestId: null,
    upstreamResponseId: null,
    tags: {},
    usage: null,
    capture: null,
    refusedBy: null,
  };
}

/** The arm the call reports: its last attempt's, or, before any, what the request asked for. */
export function armOf(call: CallState): Arm {
  return call.attempts[call.attempts.length - 1] ?? call.requested;
}

/** Notes an attempt of the plan on the call (before its response head goes out): it is the arm reported. */
export function addAttempt(call: CallState, attempt: Attempt, result: AttemptResult): AttemptRecord {
  const record: AttemptRecord = {
    mode: attempt.mode,
    route: attempt.route,
    providerLabel: attempt.providerLabel,
    servedModel: attempt.servedModel,
    result,
  };
  call.attempts.push(record);
  return record;
}

// The outcome's transitions. A call starts `complete`, and leaves it at most once, except for a
// caller who leaves before its answer was delivered: that is an abort whatever came before.

/** The caller went away. An answer delivered whole stays as it was: a hang-up after it is no abort. */
export function markClientAborted(call: CallState): void {
  if (!call.delivered) call.outcome = "client_aborted";
}

/**
 * The upstream failed before the caller's answer began (`error` says how), or its stream carried
 * the provider's own error event (no `error`: the event says it). Only a complete call changes.
 */
export function markUpstreamError(call: CallState, error: CallError | null): void {
  if (call.outcome !== "complete") return;
  call.outcome = "upstream_error";
  if (error) call.error = error;
}

/**
 * The answer was cut short after it began (the upstream failed mid-body, or its stream ended
 * without its terminal event). Only a complete call changes; returns whether this one did.
 */
export function markTruncated(call: CallState, error: CallError | null): boolean {
  if (call.outcome !== "complete") return false;
  call.outcome = "truncated";
  if (error) call.error = error;
  return true;
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

/** The four headers on every gateway response. */
export function gatewayHeaders(requestId: string, arm: Pick<Arm, "mode" | "route" | "servedModel">) {
  return {
    [gatewayResponseHeaders.requestId]: requestId,
    [gatewayResponseHeaders.mode]: arm.mode,
    [gatewayResponseHeaders.route]: arm.route,
    [gatewayResponseHeaders.effectiveModel]: headerSafe(arm.servedModel ?? ""),
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
