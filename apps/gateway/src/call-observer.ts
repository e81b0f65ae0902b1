import type { IncomingHttpHeaders } from "node:http";
import type { Attempt } from "./attempt.ts";
import type { BodyRecorder } from "./body-recorder.ts";
import type { AttemptRecord, AuthenticatedCall, CallState } from "./call-state.ts";

/**
 * What reads a call as it goes (its metrics, its spans, its access log line, its event, its
 * limits' settling): told at these points of every call and nowhere else. Every hook is
 * optional; an observer keeps whatever it needs of a call itself (keyed by the `CallState`).
 * A new signal is a new observer, built with the others at the gateway's start.
 */
export interface CallObserver {
  /** A call arrived (whether or not a route matched): before anything of it is read. */
  callStarted?(call: CallState, headers: IncomingHttpHeaders): void;
  /** An attempt of the call's plan is about to go upstream (it is the call's last `attempts` entry). */
  attemptStarted?(call: CallState, attempt: Attempt): void;
  /** That attempt is over: `record.result` says how. */
  attemptEnded?(call: CallState, record: AttemptRecord): void;
  /**
   * The call's facts are final (its usage read) and it is being recorded: once, before the last
   * byte of its response (docs/architecture.md). `answer` holds the answer's kept bytes, which
   * are let go of once every observer has been told.
   */
  recorded?(call: AuthenticatedCall, answer: BodyRecorder | null): void;
  /** The call is over: its response done or given up. */
  ended?(call: CallState): void;
}

/** The observers by hook, each list holding only those that implement it: made once, at start. */
export interface CallObservers {
  callStarted: CallObserver[];
  attemptStarted: CallObserver[];
  attemptEnded: CallObserver[];
  recorded: CallObserver[];
  ended: CallObserver[];
}

export function observersByHook(observers: readonly CallObserver[]): CallObservers {
  return {
    callStarted: observers.filter((o) => o.callStarted),
    attemptStarted: observers.filter((o) => o.attemptStarted),
    attemptEnded: observers.filter((o) => o.attemptEnded),
    recorded: observers.filter((o) => o.recorded),
    ended: observers.filter((o) => o.ended),
  };
}

export function notifyCallStarted(observers: CallObservers, call: CallState, headers: IncomingHttpHeaders) {
  for (const observer of observers.callStarted) observer.callStarted!(call, headers);
}

export function notifyAttemptStarted(observers: CallObservers, call: CallState, attempt: Attempt) {
  for (const observer of observers.attemptStarted) observer.attemptStarted!(call, attempt);
}

export function notifyAttemptEnded(observers: CallObservers, call: CallState, record: AttemptRecord) {
  for (const observer of observers.attemptEnded) observer.attemptEnded!(call, record);
}

/**
 * Every observer is told, even when one before it threw (a lease must be settled whether or not
 * the event could be published); the first error is thrown once all have been.
 */
export function notifyRecorded(
  observers: CallObservers,
  call: AuthenticatedCall,
  answer: BodyRecorder | null,
) {
  let failed = false;
  let failure: unknown;
  for (const observer of observers.recorded) {
    try {
      observer.recorded!(call, answer);
    } catch (error) {
      if (!failed) failure = error;
      failed = true;
    }
  }
  if (failed) throw failure;
}

export function notifyEnded(observers: CallObservers, call: CallState) {
  for (const observer of observers.ended) observer.ended!(call);
}
