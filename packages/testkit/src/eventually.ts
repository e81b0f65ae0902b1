/** Between two tries of a probe: often enough for a test not to wait, rarely enough not to load the machine. */
const intervalMs = 25;

/**
 * Polls `probe` until it gives a value, anything but `undefined` or `false` (so a condition can
 * be polled as it is), and resolves with it; fails after `timeoutMs`. A probe that throws fails
 * at once: catch inside it what only means "not yet".
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 2_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
