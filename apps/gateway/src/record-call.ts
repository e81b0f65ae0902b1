import type { EventBus } from "@gateway/bus";
import type { ApiKeyEntry } from "@gateway/cache";
import { type KeyUsageEvent, keyUsageTopic } from "@gateway/contracts";
import type { CallContext } from "./call-context.ts";
import { notifyRecorded } from "./call-observer.ts";
import { type AuthenticatedCall, isAuthenticated } from "./call-state.ts";

/** What the call's record reads of a response before the call is recorded. */
export interface FactsSource {
  /** Reads the usage and ids the response carried into the call, once (later calls do nothing). */
  readFacts(): void;
}

const unrecorded = Promise.resolve();

/**
 * Records the call, once: before the last byte of a response that ends (so a process killed after
 * a caller had its answer still has the call in its journal), or when the call ends any other
 * way. The response's facts are read first (they may be in the answer), then the observers are
 * told (`recorded`: the call event is published, the limits settled). The promise resolves once
 * the event is in the bus's journal (written at the end of this turn, with the other events of
 * the turn); an answer that outgrew memory is recorded in its turn first (`largeAnswerTurns`). A
 * call recorded already gets the same promise; a call whose caller is unknown has no record.
 */
export function recordCall(ctx: CallContext, response?: FactsSource): Promise<void> {
  const { call, gateway } = ctx;
  if (!isAuthenticated(call)) return unrecorded;
  // (an answer on disk may still wait for its turn to be published: the same promise waits too)
  if (ctx.recorded) return ctx.recorded;
  // the call as it ended: a turn's wait changes neither its time nor its outcome
  call.endedAt = performance.now();
  if (!ctx.answer?.onDisk) {
    try {
      publish(ctx, call, response);
    } finally {
      // (set also when publishing threw: the call is never published twice)
      ctx.recorded = gateway.journaled();
    }
  } else {
    const turn = () => publish(ctx, call, response);
    ctx.recorded = gateway.largeAnswers.take(turn, call.requestId).then(gateway.journaled);
  }
  return ctx.recorded;
}

/**
 * Reads the response's facts and tells the observers, then lets go of the answer's bytes. The
 * observers are told even when reading the facts threw: a call's limits must never stay taken.
 */
function publish(ctx: CallContext, call: AuthenticatedCall, response: FactsSource | undefined) {
  try {
    response?.readFacts();
  } finally {
    try {
      // the usage is known now (read above): the call's event goes, its tokens count, its slots free
      notifyRecorded(ctx.gateway.observers, call, ctx.answer);
    } finally {
      ctx.answer?.release();
    }
  }
}

/** A valid key on a request that emits no call event still counts as used. */
export function noteKeyUse(bus: EventBus, apiKey: ApiKeyEntry): void {
  const event: KeyUsageEvent = {
    schema: keyUsageTopic,
    api_key_id: apiKey.id,
    used_at: new Date().toISOString(),
  };
  bus.publish(keyUsageTopic, apiKey.id, event);
}
