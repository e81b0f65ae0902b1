import { type CallContext, type ProgressFields, progressFields } from "./call-context.ts";

/**
 * What a drain found: whether it ended with nothing in flight, and what still was (a type, not an
 * interface: the runtime's drain logs it as a record of fields).
 */
export type DrainReport = {
  drained: boolean;
  inFlight: number;
  /**
   * How far the first calls still in flight had come (the first few say enough, and keep the
   * drain's log line one a log pipeline takes whole).
   */
  calls: ProgressFields[];
};

/**
 * The requests a gateway is serving, counted (for `gateway_in_flight_requests` and the drain),
 * and the calls among them, kept for the report of a drain that stops waiting for them.
 */
export class InFlight {
  #requests = 0;
  readonly #calls = new Set<CallContext>();
  #onIdle: (() => void) | null = null;

  get requests(): number {
    return this.#requests;
  }

  begin(): void {
    this.#requests++;
  }

  end(): void {
    this.#requests--;
    if (this.#requests === 0) this.#onIdle?.();
  }

  addCall(ctx: CallContext): void {
    this.#calls.add(ctx);
  }

  deleteCall(ctx: CallContext): void {
    this.#calls.delete(ctx);
  }

  /** Resolves when no request is in flight, or at `timeoutMs`. */
  async drain(timeoutMs: number): Promise<DrainReport> {
    if (this.#requests > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.#onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const calls = [...this.#calls].slice(0, 20).map(progressFields);
    return { drained: this.#requests === 0, inFlight: this.#requests, calls };
  }
}
