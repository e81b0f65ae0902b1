import type http from "node:http";
import type { Faults } from "./faults.ts";

export interface RecordedRequest {
  method: string;
  /** Path plus query string, exactly as received. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The client went away before the mock finished its response (not set by the mock's own resets). */
  aborted: boolean;
}

export interface MockProvider {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

export interface MockProviderOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Keep every request in `requests` (default true). Turn off for long benchmark runs. */
  record?: boolean;
  /**
   * Faults applied to every request, over whatever its `x-mock-*` headers say: an upstream that
   * always fails (a routed deployment that is down) beside one that works.
   */
  forcedFaults?: Partial<Faults>;
  /**
   * Draw every answer from a seed of its own (the body and a count of the requests served), so
   * that no two answers share an id, as a provider's never do. Off (the default), identical
   * requests get identical answers; a benchmark turns it on so that the ids a gateway stores
   * and indexes are as varied as in real traffic.
   */
  freshIds?: boolean;
}
