import type { Logger } from "@gateway/contracts";

export interface Repeating {
  /** Stops the timer and waits for a run in progress. */
  close(): Promise<void>;
}

/**
 * Runs `work` now and then every `everyMs`, one run at a time (a run still going when the next
 * is due makes it skip); a failed run is logged and the next one tries again. The timer never
 * keeps a finished process alive.
 */
export function repeatEvery(
  everyMs: number,
  what: string,
  log: Logger,
  work: () => Promise<void>,
): Repeating {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= work()
      .catch((error: unknown) => log.warn(`${what} failed`, { error }))
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
