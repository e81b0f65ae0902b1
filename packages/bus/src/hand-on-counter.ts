/**
 * Counts the events a queue took and handed on, so that a caller can wait until those taken so
 * far are handed on, without waiting for the ones that come after (as a flush under steady
 * traffic would).
 */
export class HandOnCounter {
  private taken = 0;
  private handed = 0;
  /** Oldest first; their targets only grow, so the first one is always the next to resolve. */
  private readonly waiters: { target: number; resolve: () => void }[] = [];

  take(count = 1): void {
    this.taken += count;
  }

  handOn(count: number): void {
    this.handed += count;
    while (this.waiters.length > 0 && this.waiters[0]!.target <= this.handed) this.waiters.shift()!.resolve();
  }

  /** Resolves once every event taken so far has been handed on. */
  wait(): Promise<void> {
    if (this.handed >= this.taken) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ target: this.taken, resolve }));
  }

  /** Ends every wait: the queue is closing, and what it holds stays where it is. */
  releaseAll(): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }
}
