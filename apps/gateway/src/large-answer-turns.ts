import type { EventBus } from "@gateway/bus";
import type { Logger } from "@gateway/contracts";

/**
 * Answers that outgrew memory are read back from disk and recorded in turns, one at a time, each
 * turn lasting until its event is handed on: a large event is in memory whole (read back, encoded,
 * journaled, queued), so answers that end together must not all be at once.
 *
 * A turn waits `waitMs` at most. Past it the bus counts as stalled (a consumer stuck on its
 * database) and the turns after it do not wait until it has caught up: a stall delays one large
 * answer by `waitMs`, not each answer queued behind it by `waitMs` more. Memory is then bounded
 * by the stall, as for every event.
 */
export function largeAnswerTurns(bus: EventBus, log: Logger, waitMs = 5_000): LargeAnswerTurns {
  let last: Promise<void> = Promise.resolve();
  let stalled = false;

  async function handedOn() {
    if (stalled) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), waitMs);
    });
    const caughtUp = bus.handedOn().then(() => false as const);
    const late = await Promise.race([caughtUp, timedOut]);
    clearTimeout(timer);
    if (!late) return;
    stalled = true;
    void caughtUp.then(() => {
      stalled = false;
    });
  }

  return {
    /** Runs `publish` in its turn; resolves once it has run (it never rejects). */
    take(publish: () => void, requestId: string): Promise<void> {
      const turn = last
        .then(publish)
        .catch((error: unknown) =>
          log.error("recording a large answer failed", { request_id: requestId, error }),
        );
      last = turn.then(handedOn).catch(() => {});
      return turn;
    },
  };
}

export interface LargeAnswerTurns {
  /** Runs `publish` in its turn; resolves once it has run (it never rejects). */
  take(publish: () => void, requestId: string): Promise<void>;
}
