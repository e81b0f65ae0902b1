import type { IncomingHttpHeaders } from "node:http";
import type { GatewayEndpoint } from "@gateway/contracts";
import type { SpanAttributes, TraceHeaders, Tracer, TraceSpan } from "@gateway/tracing";
import type { Attempt } from "./attempt.ts";
import type { CallObserver } from "./call-observer.ts";
import { type AttemptRecord, armOf, type CallState } from "./call-state.ts";

/**
 * A call's spans: the call itself (SERVER, its parent the caller's `traceparent`) and the
 * upstream request under way (CLIENT, its child; a fallback re-issue is a second one). Every
 * attribute is read from the `CallState` when the span ends, as the access log and the call
 * event are: nothing is parsed for tracing, and no key, body or prompt is ever an attribute.
 */
interface CallTrace {
  span: TraceSpan;
  upstream: TraceSpan | null;
}

/**
 * `gen_ai.operation.name` by endpoint (GenAI semantic conventions): every generating endpoint
 * is `chat`; counting tokens is no generation and has no conventional name, so it keeps its own.
 */
const operations: Record<GatewayEndpoint, string> = {
  messages: "chat",
  chat_completions: "chat",
  responses: "chat",
  responses_compact: "chat",
  count_tokens: "count_tokens",
};

/** The observer of calls' spans, built only when tracing is on: off costs nothing per call. */
export class TraceObserver implements CallObserver {
  readonly #tracer: Tracer;
  readonly #traces = new WeakMap<CallState, CallTrace>();

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  /** The call's span as the parent of its event: the headers the call event carries. */
  readonly headersOf = (call: CallState): TraceHeaders | undefined => this.#traces.get(call)?.span.headers();

  callStarted(call: CallState, headers: IncomingHttpHeaders): void {
    const operation = operations[call.spec.endpoint];
    // named again once the model is known (the body is read later)
    const span = this.#tracer.startSpan(operation, "server", headers, {
      "gen_ai.operation.name": operation,
      "gateway.request_id": call.requestId,
      "gateway.endpoint": call.spec.endpoint,
    });
    this.#traces.set(call, { span, upstream: null });
  }

  /** The upstream request of `attempt` begins. */
  attemptStarted(call: CallState, attempt: Attempt): void {
    const trace = this.#traces.get(call);
    if (!trace) return;
    trace.upstream?.end("superseded");
    const operation = operations[call.spec.endpoint];
    const { address, port } = serverOf(attempt.target.origin);
    trace.upstream = trace.span.child(spanName(operation, attempt.servedModel), "client", {
      "gen_ai.operation.name": operation,
      "gen_ai.provider.name": attempt.providerLabel,
      "gen_ai.system": attempt.providerLabel,
      "gen_ai.request.model": bounded(attempt.servedModel),
      "http.request.method": "POST",
      "server.address": address,
      "server.port": port,
      "gateway.route": attempt.route,
      "gateway.mode": attempt.mode,
    });
  }

  /** The upstream request has ended (forward returned): its answer's status and how it went. */
  attemptEnded(call: CallState, record: AttemptRecord): void {
    const trace = this.#traces.get(call);
    if (trace) endUpstreamSpan(trace, call, record.result);
  }

  /** The call has ended (its event published, its response done): the call span's attributes, and its end. */
  ended(call: CallState): void {
    const trace = this.#traces.get(call);
    if (!trace) return;
    this.#traces.delete(call);
    const operation = operations[call.spec.endpoint];
    if (trace.upstream) endUpstreamSpan(trace, call, "done");
    trace.span.updateName(spanName(operation, call.requestedModel));
    const usage = call.usage;
    const caller = call.caller;
    const arm = armOf(call);
    const attributes: SpanAttributes = {
      "gen_ai.provider.name": arm.providerLabel,
      "gen_ai.system": arm.providerLabel,
      "gen_ai.request.model": bounded(call.requestedModel),
      "gen_ai.response.model": bounded(arm.servedModel),
      "gen_ai.response.id": call.upstreamResponseId,
      "http.response.status_code": call.status || undefined,
      "gateway.mode": arm.mode,
      "gateway.route": arm.route,
      "gateway.stream": call.stream,
      "gateway.stream_outcome": call.outcome,
      "gateway.fallback_reason": call.fallbackReason,
      "gateway.org_id": caller?.apiKey.orgId,
      "gateway.project_id": caller?.project.id,
      "gateway.workload_id": caller?.workload.id,
    };
    if (usage) {
      // The conventions count every input token, cached or not; ours counts uncached input alone.
      attributes["gen_ai.usage.input_tokens"] =
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
      attributes["gen_ai.usage.output_tokens"] = usage.output_tokens;
      attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_input_tokens;
      attributes["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_creation_input_tokens;
    }
    const failed = call.status >= 500 || call.outcome === "upstream_error" || call.outcome === "truncated";
    if (failed)
      attributes["error.type"] =
        call.error?.type ?? (call.status >= 500 ? String(call.status) : call.outcome);
    trace.span.setAttributes(attributes);
    trace.span.end(failed ? (call.error?.type ?? call.outcome) : undefined);
  }
}

/** Ends the upstream span, if one is open: `result` is how its attempt went. */
function endUpstreamSpan(trace: CallTrace, call: CallState, result: AttemptRecord["result"]): void {
  const span = trace.upstream;
  if (!span) return;
  trace.upstream = null;
  if (result === "timeout" || result === "error") {
    span.setAttributes({ "error.type": result });
    span.end(`failed before its first byte (${result})`);
    return;
  }
  span.setAttributes({
    "http.response.status_code": call.status || undefined,
    "gen_ai.response.id": call.upstreamResponseId,
  });
  if (call.status >= 400 || call.outcome === "upstream_error" || call.outcome === "truncated") {
    span.setAttributes({
      "error.type": call.error?.type ?? (call.status >= 400 ? String(call.status) : call.outcome),
    });
    span.end(call.outcome === "complete" ? `status ${call.status}` : call.outcome);
    return;
  }
  span.end();
}

const servers = new Map<string, { address: string; port: number }>();

/** `server.address` and `server.port` of an upstream origin, parsed once per origin. */
function serverOf(origin: string): { address: string; port: number } {
  let server = servers.get(origin);
  if (!server) {
    const url = new URL(origin);
    server = {
      address: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
    };
    servers.set(origin, server);
  }
  return server;
}

/** A model name as a caller sent it is any text: its first 128 characters name spans and attributes. */
const modelChars = 128;

/** `{gen_ai.operation.name} {gen_ai.request.model}`, or the operation alone when there is no model. */
function spanName(operation: string, model: string | null): string {
  return model ? `${operation} ${bounded(model)}` : operation;
}

function bounded(model: string | null): string | null {
  return model === null ? null : model.slice(0, modelChars);
}
