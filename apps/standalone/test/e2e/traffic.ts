export interface GatewayReply {
  status: number;
  text: string;
  requestId: string;
  retryAfter: string | null;
  retryAfterMs: string | null;
  ms: number;
}

/** One gateway call with a gateway key and a BYO upstream key, as a client SDK would send it. */
export async function gatewayCall(
  gateway: string,
  key: string,
  path: "/v1/messages" | "/v1/chat/completions",
  body: object,
  extra: Record<string, string> = {},
): Promise<GatewayReply> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-gateway-upstream-key": "sk-upstream-e2e",
    ...extra,
  };
  if (path === "/v1/messages") {
    headers["x-api-key"] = key;
    headers["anthropic-version"] = "2023-06-01";
  } else headers.authorization = `Bearer ${key}`;
  const started = performance.now();
  const res = await fetch(gateway + path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  return {
    status: res.status,
    text,
    requestId: res.headers.get("x-gateway-request-id") ?? "",
    retryAfter: res.headers.get("retry-after"),
    retryAfterMs: res.headers.get("retry-after-ms"),
    ms: performance.now() - started,
  };
}

export const chatBody = (n: number, stream = false) => ({
  model: "gpt-5.4-mini",
  stream,
  messages: [{ role: "user", content: `traffic ${n}` }],
});

/**
 * Steady traffic: one small chat call every `intervalMs`, alternating between `gateways`, until
 * `stop()`. With `streams`, every third call is a stream of a few frames 20 ms apart, which must
 * end with its terminal `[DONE]` and no error event. Counts every answer that is not a whole 200
 * (or no answer at all) as an error, with the time it was sent.
 */
export function steadyTraffic(gateways: string[], key: string, intervalMs = 50, { streams = false } = {}) {
  const ok: string[] = [];
  const errors: string[] = [];
  /** When each failed call was sent (Date.now()), in step with `errors`. */
  const failedAt: number[] = [];
  let stopped = false;
  let n = 0;
  const inFlight = new Set<Promise<void>>();
  const fail = (sentAt: number, why: string) => {
    errors.push(why);
    failedAt.push(sentAt);
  };
  const loop = (async () => {
    while (!stopped) {
      const gateway = gateways[n % gateways.length]!;
      // a third, not every other one: round robin over two gateways would send them all to one
      const stream = streams && n % 3 === 1;
      const sentAt = Date.now();
      const p = gatewayCall(
        gateway,
        key,
        "/v1/chat/completions",
        chatBody(n++, stream),
        stream ? { "x-mock-frame-delay-ms": "20" } : {},
      ).then(
        (r) => {
          const whole = !stream || (r.text.includes("data: [DONE]") && !r.text.includes('"error"'));
          if (r.status === 200 && whole) ok.push(r.requestId);
          else fail(sentAt, `${r.status} ${r.text.slice(-200)}`);
        },
        (error: unknown) => fail(sentAt, String(error)),
      );
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    ok,
    errors,
    failedAt,
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...inFlight]);
      return { ok, errors, failedAt };
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs`. */
export async function within<T>(
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  stepMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}
