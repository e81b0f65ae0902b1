import type { IncomingMessage, ServerResponse } from "node:http";
import { gatewayRequestHeaders, newId } from "@gateway/contracts";
import { endpointSpecs } from "@gateway/providers";
import { type CallLimits, refusalAnswer } from "./admission.ts";
import type { Attempt, CallPlan } from "./attempt.ts";
import {
  type AuthenticatedContext,
  type CallContext,
  type GatewayContext,
  withCaller,
} from "./call-context.ts";
import { notifyAttemptEnded, notifyAttemptStarted, notifyCallStarted, notifyEnded } from "./call-observer.ts";
import { addAttempt, markClientAborted, newCallState } from "./call-state.ts";
import { forward } from "./forward.ts";
import { fail, failThrown } from "./gateway-errors.ts";
import { singleHeader } from "./headers.ts";
import { isCatalogCall, planCall } from "./plan.ts";
import { readBody } from "./read-body.ts";
import { noteKeyUse, recordCall } from "./record-call.ts";
import { readRequestJson } from "./request-json.ts";
import { resolveCaller } from "./resolve-caller.ts";
import { matchRoute, wireFormatForPath } from "./routes.ts";
import { parseTags } from "./tags.ts";

/**
 * A call to a model endpoint, from its arrival to its end, read top to bottom: `startCall`,
 * `serveCall` (resolve the caller, read the request, plan, admit, attempt, fall back), `endCall`.
 * Recording the call is `record-call.ts`; its error answers are `gateway-errors.ts`.
 */

/** A call arrives: its facts begin, its context is made, the observers are told. */
export function startCall(gateway: GatewayContext, req: IncomingMessage, res: ServerResponse): CallContext {
  const url = req.url ?? "/";
  const route = matchRoute(req.method, url);
  const upstreamKey = singleHeader(req.headers[gatewayRequestHeaders.upstreamKey]);
  const unrouted =
    wireFormatForPath(url) === "messages" ? endpointSpecs.messages : endpointSpecs.chat_completions;
  const call = newCallState(newId("request"), route?.spec ?? unrouted, upstreamKey ? "byo" : "managed");
  notifyCallStarted(gateway.observers, call, req.headers);
  return {
    gateway,
    req,
    res,
    call,
    routed: route !== null,
    query: route?.query ?? "",
    upstreamKey,
    abort: new AbortController(),
    answer: null,
    recorded: null,
  };
}

/** Serves the call; it is recorded (once) whichever way it ends. */
export async function serveCall(ctx: CallContext): Promise<void> {
  const { req, res, gateway } = ctx;
  if (!ctx.routed)
    return fail(ctx, {
      kind: "not_found",
      message: `No route for ${req.method} ${(req.url ?? "/").split("?")[0]}.`,
    });
  let resolved: Awaited<ReturnType<typeof resolveCaller>>;
  try {
    resolved = await resolveCaller(gateway.reader, ctx.call.spec.wireFormat, req.headers);
  } catch (error) {
    return failThrown(ctx, error);
  }
  if (!resolved.ok) {
    if (resolved.apiKey) noteKeyUse(gateway.bus, resolved.apiKey);
    return fail(ctx, { kind: resolved.kind, message: resolved.message });
  }
  const authenticated = withCaller(ctx, resolved.caller);
  // Registered before anything is awaited, so a caller who leaves at any point aborts the upstream.
  const onClientGone = () => {
    if (res.writableFinished || ctx.recorded) return;
    markClientAborted(ctx.call);
    ctx.abort.abort();
  };
  res.on("close", onClientGone);
  try {
    await serveAuthenticated(authenticated);
  } catch (error) {
    await failThrown(ctx, error);
  } finally {
    res.off("close", onClientGone);
    await recordCall(ctx);
  }
}

/** The call is over (its response done or given up): the observers are told. */
export function endCall(ctx: CallContext): void {
  notifyEnded(ctx.gateway.observers, ctx.call);
}

/** A call whose caller is known: its request read, planned, admitted and attempted. */
async function serveAuthenticated(ctx: AuthenticatedContext): Promise<void> {
  const { call, req, gateway } = ctx;
  const { workload } = call.caller;
  if (workload.captureEnabled && gateway.random() < workload.captureSampleRate)
    call.capture = { receivedHeaders: req.headers, requestBody: null, responseHeaders: {} };
  const tags = parseTags(singleHeader(req.headers[gatewayRequestHeaders.tags]));
  if (!tags.ok) return fail(ctx, { kind: "invalid_request", message: tags.message, param: "x-gateway-tags" });
  call.tags = tags.tags;

  const { maxBodyBytes } = gateway.config;
  const read = await readBody(req, maxBodyBytes);
  if (!read.ok) {
    if (read.reason === "aborted") return markClientAborted(call);
    ctx.res.setHeader("connection", "close");
    const message = `Request body exceeds the ${maxBodyBytes}-byte limit.`;
    return fail(ctx, { kind: "request_too_large", message });
  }
  if (call.capture) call.capture.requestBody = read.body;

  // The body is read only for `model` and `stream`; it is re-serialised only when the model is
  // rewritten for a catalog deployment (always so for a managed call, for a share of routed ones).
  const request = readRequestJson(read.body, { rewritten: isCatalogCall(call.spec, ctx.upstreamKey) });
  if (!request)
    return fail(ctx, { kind: "invalid_request", message: "The request body is not a valid JSON object." });
  call.requestedModel = request.model;
  call.requested.servedModel = request.model;
  call.stream = request.stream;

  const planned = await planCall(gateway.plan, {
    spec: call.spec,
    request,
    body: read.body,
    headers: req.headers,
    upstreamKey: ctx.upstreamKey,
    workload,
  });
  if (!planned.ok) return fail(ctx, { kind: planned.kind, message: planned.message, param: planned.param });
  // noted before admission, which may trade the plan for a cheaper one: the arm was chosen so
  call.armSource = planned.plan.armSource ?? null;
  // (no await at all when no limit is enforced: most calls)
  const plan = gateway.limits ? await admit(ctx, gateway.limits, planned.plan) : planned.plan;
  if (plan) await attemptPlan(ctx, plan);
}

/** The limits stage: the plan to follow (the same or a cheaper one), or null when a limit refused the call (answered here). */
async function admit(
  ctx: AuthenticatedContext,
  limits: CallLimits,
  plan: CallPlan,
): Promise<CallPlan | null> {
  const { call } = ctx;
  const admitted = await limits.admit(call, plan);
  if (admitted.ok) return admitted.plan;
  const { refusal } = admitted;
  call.refusedBy = { scope: refusal.scope, limit: refusal.limit };
  addAttempt(call, plan.primary, "refused");
  await fail(ctx, refusalAnswer(call.spec.wireFormat, refusal, call.caller));
  return null;
}

/** The plan's primary attempt, and its fallback when the primary failed before the caller saw a byte. */
async function attemptPlan(ctx: AuthenticatedContext, plan: CallPlan): Promise<void> {
  if (plan.fallbackReason) ctx.call.fallbackReason = plan.fallbackReason;
  const first = await attemptOnce(ctx, plan.primary, plan.fallback !== null);
  if (first !== "done" && plan.fallback) {
    // The routed arm failed before the caller saw a byte: re-issue once to the original model.
    ctx.call.fallbackReason = first;
    await attemptOnce(ctx, plan.fallback, false);
  }
}

/** One upstream call of the plan, noted on the call (it is the arm reported) and told to the observers. */
async function attemptOnce(ctx: AuthenticatedContext, attempt: Attempt, recoverable: boolean) {
  const { call, gateway } = ctx;
  const record = addAttempt(call, attempt, "under_way");
  notifyAttemptStarted(gateway.observers, call, attempt);
  record.result = await forward(ctx, attempt, recoverable);
  notifyAttemptEnded(gateway.observers, call, record);
  return record.result;
}
