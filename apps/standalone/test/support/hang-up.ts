import { request } from "node:http";

/** What a client that hung up at a stream's terminal event had received. */
export interface HungUp {
  requestId: string;
  status: number;
  /** Every byte of the body the client read before it closed the connection. */
  text: string;
  /** Whether the terminal event was among them (false: the stream ended before it). */
  sawTerminal: boolean;
}

/**
 * Streams `body` to `url` and closes the connection the moment the received text holds
 * `terminal` (`data: [DONE]`, `event: message_stop`, `event: response.completed`), as the SDKs
 * and coding agents do, without waiting for the end of the body.
 */
export function hangUpAtTerminal(
  url: string,
  headers: Record<string, string>,
  body: string,
  terminal: string,
): Promise<HungUp> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", ...headers } });
    req.on("error", reject);
    req.on("response", (res) => {
      let text = "";
      let settled = false;
      const done = (sawTerminal: boolean) => {
        if (settled) return;
        settled = true;
        res.removeAllListeners("data");
        resolve({
          requestId: String(res.headers["x-gateway-request-id"]),
          status: res.statusCode ?? 0,
          text,
          sawTerminal,
        });
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        if (text.includes(terminal)) {
          req.destroy();
          done(true);
        }
      });
      res.on("end", () => done(false));
      res.on("error", () => {});
      // the server went away before the body ended
      res.on("close", () => {
        if (!settled && !res.complete) {
          settled = true;
          reject(new Error(`connection closed after ${text.length} characters`));
        }
      });
    });
    req.end(body);
  });
}

/**
 * `count` streams at once, half of whose clients hang up at `[DONE]` as openai-python does while
 * the other half read to the end of the body; resolves with whether each got its whole answer.
 */
export function streamsHalfHangingUp(
  url: string,
  headers: Record<string, string>,
  body: string,
  count: number,
): Promise<boolean[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      i % 2 === 0
        ? hangUpAtTerminal(url, headers, body, "data: [DONE]").then((r) => r.sawTerminal)
        : fetch(url, { method: "POST", headers, body }).then(async (r) =>
            (await r.text()).trimEnd().endsWith("data: [DONE]"),
          ),
    ),
  );
}
