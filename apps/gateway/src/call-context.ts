import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventBus } from "@gateway/bus";
import type { ConfigReader } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import type { Dispatcher } from "undici";
import type { CallLimits } from "./admission.ts";
import { type AnswerLimits, BodyRecorder } from "./body-recorder.ts";
import type { CallObservers } from "./call-observer.ts";
import type { AuthenticatedCall, CallState } from "./call-state.ts";
import type { GatewayConfig } from "./config.ts";
import type { LargeAnswerTurns } from "./large-answer-turns.ts";
import type { PlanContext } from "./plan.ts";
import type { Caller } from "./resolve-caller.ts";

/** What serving any call needs: built once, when the gateway is created. */
export interface GatewayContext {
  config: GatewayConfig;
  reader: ConfigReader;
  plan: PlanContext;
  /** The upstream connection pool. */
  upstream: Dispatcher;
  bus: EventBus;
  log: Logger;
  /** Draws whether a call is captured; tests may pin it. */
  random: () => number;
  answerLimits: AnswerLimits;
  /** The limits stage; null when no limit is enforced. */
  limits: CallLimits | null;
  observers: CallObservers;
  largeAnswers: LargeAnswerTurns;
  /** Resolves once the events published so far are in the bus's journal. */
  journaled(): Promise<void>;
}

/**
 * One call being served: the gateway's context, the request and its response, the call's facts,
 * and what the call holds while it runs. One object per call, handed down the call path.
 */
export interface CallContext<Call extends CallState = CallState> {
  readonly gateway: GatewayContext;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly call: Call;
  /** Whether a route matched the request; the call is answered 404 when none did. */
  readonly routed: boolean;
  /** The query string as received, `?` included, forwarded upstream unchanged. */
  readonly query: string;
  /** The caller's own provider key (`x-gateway-upstream-key`), when it sent one. */
  readonly upstreamKey: string | undefined;
  /** Aborts the upstream call when the caller goes away. */
  readonly abort: AbortController;
  /** The answer's bytes, kept when the call is captured or its usage is read from a JSON body. */
  answer: BodyRecorder | null;
  /**
   * Set once the call is being recorded (its event is published once, before the response's last
   * byte): resolves when the event is in the bus's journal.
   */
  recorded: Promise<void> | null;
}

export type AuthenticatedContext = CallContext<AuthenticatedCall>;

/** The call's caller is known: from here on the call is an `AuthenticatedCall`. */
export function withCaller(ctx: CallContext, caller: Caller): AuthenticatedContext {
  ctx.call.caller = caller;
  return ctx as AuthenticatedContext;
}

/** Keeps `bytes` of the answer (the caller got them too), and when they went out when `timed`. */
export function keepAnswer(ctx: CallContext, bytes: Buffer, timed = false): void {
  ctx.answer ??= new BodyRecorder(ctx.gateway.answerLimits, ctx.call.requestId);
  ctx.answer.push(bytes, timed ? performance.now() - ctx.call.startedAt : undefined);
}

/**
 * How far a call in flight has come, for the log line of a drain that stopped waiting for it: the
 * facts, not a guess at the stage (a call that never ends is a bug; these say where it stopped).
 */
export type ProgressFields = ReturnType<typeof progressFields>;

export function progressFields({ call, res, recorded }: CallContext) {
  return {
    request_id: call.requestId,
    endpoint: call.spec.endpoint,
    age_ms: Math.round(performance.now() - call.startedAt),
    caller_resolved: call.caller !== null,
    upstream_first_byte_ms: call.firstByteMs,
    recording: recorded !== null,
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
