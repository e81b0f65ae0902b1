import { request } from "undici";
import { hangUpAtTerminal } from "./hang-up.ts";

/**
 * Traffic whose every answer is sorted by whether the client got it whole: a JSON body, a stream
 * read to its `[DONE]`, or a stream whose client hung up at `[DONE]` as openai-python does. Calls
 * cut off by a killed server are counted apart: only answered calls must never be lost.
 */
export function answeredTraffic(gatewayUrl: () => string, key: string, concurrency = 8) {
  const answered: string[] = [];
  let failed = 0;
  let stopped = false;
  let n = 0;
  const headers = {
    authorization: `Bearer ${key}`,
    "x-gateway-upstream-key": "sk-upstream-kill",
    "content-type": "application/json",
  };
  const body = (stream: boolean) =>
    JSON.stringify({
      model: "gpt-5.4-mini",
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: "user", content: `kill ${n++}` }],
    });

  async function one(kind: number): Promise<string | null> {
    const url = `${gatewayUrl()}/v1/chat/completions`;
    if (kind === 2) {
      const got = await hangUpAtTerminal(url, headers, body(true), "data: [DONE]");
      return got.status === 200 && got.sawTerminal ? got.requestId : null;
    }
    const stream = kind === 1;
    const res = await request(url, {
      method: "POST",
      headers: stream ? { ...headers, "x-mock-frame-delay-ms": "5" } : headers,
      body: body(stream),
    });
    const text = await res.body.text();
    const whole = stream
      ? text.trimEnd().endsWith("data: [DONE]")
      : JSON.parse(text).object === "chat.completion";
    return res.statusCode === 200 && whole ? String(res.headers["x-gateway-request-id"]) : null;
  }

  const loops = Array.from({ length: concurrency }, async (_, lane) => {
    for (let i = 0; !stopped; i++) {
      try {
        const id = await one((lane + i) % 3);
        if (id) {
          answered.push(id);
          continue;
        }
      } catch {
        // the server went away mid-call
      }
      // not answered (cut off by a kill, or refused while the server starts): give it a moment
      failed++;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    answered,
    get failed() {
      return failed;
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
