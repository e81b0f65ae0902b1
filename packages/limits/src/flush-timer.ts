/**
 * Runs `flush` once within the delay asked, or sooner if another ask is due sooner: 0 runs it
 * in this turn's `setImmediate`. Running it (or `cancel`) clears what was scheduled.
 */
export function flushTimer(flush: () => void) {
  let soon: NodeJS.Immediate | undefined;
  let later: NodeJS.Timeout | undefined;
  let laterAt = 0;
  const cancel = () => {
    clearImmediate(soon);
    soon = undefined;
    clearTimeout(later);
    later = undefined;
  };
  const run = () => {
    cancel();
    flush();
  };
  return {
    schedule(delayMs: number) {
      if (soon !== undefined) return;
      const at = Date.now() + delayMs;
      if (delayMs > 0 && later !== undefined && laterAt <= at) return;
      clearTimeout(later);
      later = undefined;
      if (delayMs === 0) soon = setImmediate(run);
      else {
        laterAt = at;
        later = setTimeout(run, delayMs);
      }
    },
    cancel,
  };
}
