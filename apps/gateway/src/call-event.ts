import type { EventBus } from "@gateway/bus";
import {
  type CallEventBytes,
  callsTopic,
  frameCallEvent,
  type Logger,
  rememberFrame,
} from "@gateway/contracts";
import type { TraceHeaders } from "@gateway/tracing";
import type { BodyRecorder } from "./body-recorder.ts";
import type { CallObserver } from "./call-observer.ts";
import { type AuthenticatedCall, armOf, type CallState, elapsedMs, prepareRecord } from "./call-state.ts";
import { fitCapture } from "./capture-fit.ts";

export interface CallEventParts {
  bus: EventBus;
  log: Logger;
  /** The headers that make the call's span the parent of its event; null when tracing is off. */
  traceHeaders: ((call: CallState) => TraceHeaders | undefined) | null;
}

/** Publishes each recorded call's `gateway.calls.v1` event: what every consumer reads of a call. */
export function callEventPublisher({ bus, log, traceHeaders }: CallEventParts): CallObserver {
  return {
    recorded(call, answer) {
      const { frame, cut, event } = callEvent(call, answer, bus.maxEventBytes);
      // the subscribers of this process get this very Buffer: spare them parsing it back
      if (bus.handsOverPayloads) rememberFrame(frame, event);
      if (cut)
        log.warn("call event over the bus's message limit: its capture's bodies were cut to fit", {
          request_id: call.requestId,
          max_event_bytes: bus.maxEventBytes,
        });
      bus.publish(callsTopic, call.requestId, frame, traceHeaders?.(call));
    },
  };
}

/**
 * The `gateway.calls.v1` event of a call that resolved to a workload, framed, and no larger than
 * `maxEventBytes`: a capture too large for the bus is cut to fit (`fitCapture`), and the event as
 * framed.
 */
export function callEvent(
  call: AuthenticatedCall,
  answer: BodyRecorder | null,
  maxEventBytes: number,
): { frame: Buffer; cut: boolean; event: CallEventBytes } {
  const { caller } = call;
  const prepared = prepareRecord(call);
  const arm = armOf(call);
  const event: CallEventBytes = {
    schema: callsTopic,
    request_id: call.requestId,
    org_id: caller.apiKey.orgId,
    project_id: caller.project.id,
    workload_id: caller.workload.id,
    api_key_id: caller.apiKey.id,
    received_at: prepared.receivedAt,
    endpoint: call.spec.endpoint,
    provider_label: arm.providerLabel,
    mode: arm.mode,
    route: arm.route,
    fallback_reason: call.fallbackReason,
    arm_source: call.armSource,
    requested_model: call.requestedModel,
    served_model: arm.servedModel,
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
  if (!capture) return { frame: frameCallEvent(event).encode(), cut: false, event };
  const parts = {
    requestHeaders: prepared.captureRequestHeaders ?? {},
    responseHeaders: capture.responseHeaders,
    request: capture.requestBody ?? Buffer.alloc(0),
    // read first: bytes that cannot be read back from disk count as omitted
    answer: answer?.bytes() ?? Buffer.alloc(0),
    answerOmitted: answer?.omitted ?? 0,
    answerTimeline: answer?.timeline ?? null,
  };
  return { ...fitCapture(event, parts, maxEventBytes), event };
}
