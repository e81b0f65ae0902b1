import http from "node:http";

export interface RawResponse {
  status: number | undefined;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Milliseconds from sending the request until the status line arrived. */
  headersAfterMs: number | undefined;
  /** SSE frames (without the blank-line separator) with the time each one was complete. */
  frames: { text: string; atMs: number }[];
  /** Whether the body ended normally (false after a reset). */
  complete: boolean;
  error: Error | undefined;
}

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Destroy the connection once this many SSE frames have arrived. */
  abortAfterFrames?: number;
}

/**
 * A bare node:http request that never throws: it reports what arrived, when, and how it ended.
 * Used where SDKs would hide the bytes (determinism) or the timing (delays, resets).
 */
export function rawRequest(url: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const result: RawResponse = {
    status: undefined,
    headers: {},
    body: Buffer.alloc(0),
    headersAfterMs: undefined,
    frames: [],
    complete: false,
    error: undefined,
  };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let pending = "";
    const req = http.request(`${url}${path}`, {
      method: options.method ?? "POST",
      headers: options.headers,
      agent: false,
    });
    const finish = (error?: Error) => {
      result.error ??= error;
      result.body = Buffer.concat(chunks);
      resolve(result);
    };
    req.on("response", (res) => {
      result.status = res.statusCode;
      result.headers = res.headers;
      result.headersAfterMs = elapsed();
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        pending += chunk.toString("utf8");
        let end = pending.indexOf("\n\n");
        while (end !== -1) {
          result.frames.push({ text: pending.slice(0, end), atMs: elapsed() });
          pending = pending.slice(end + 2);
          end = pending.indexOf("\n\n");
        }
        if (options.abortAfterFrames !== undefined && result.frames.length >= options.abortAfterFrames) {
          req.destroy();
          finish();
        }
      });
      res.on("end", () => {
        result.complete = true;
        finish();
      });
      res.on("error", (error) => finish(error));
      res.on("aborted", () => finish(new Error("response aborted")));
    });
    req.on("error", (error) => finish(error));
    req.end(options.body);
  });
}

export const A_HEADERS = {
  "content-type": "application/json",
  "x-api-key": "sk-ant-test",
  "anthropic-version": "2023-06-01",
};

export const B_HEADERS = {
  "content-type": "application/json",
  authorization: "Bearer sk-test",
};

/** The JSON payloads of SSE frames (the `data:` line), skipping `[DONE]`. */
export function frameData(frames: { text: string }[]): unknown[] {
  return frames.flatMap(({ text }) => {
    const data = text.split("\n").find((line) => line.startsWith("data: "));
    const payload = data?.slice("data: ".length);
    return payload === undefined || payload === "[DONE]" ? [] : [JSON.parse(payload) as unknown];
  });
}

/** The `event:` names of SSE frames. */
export function frameEvents(frames: { text: string }[]): (string | undefined)[] {
  return frames.map(({ text }) =>
    text
      .split("\n")
      .find((line) => line.startsWith("event: "))
      ?.slice("event: ".length),
  );
}
