import type http from "node:http";

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
}
