import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { endpointSpecs } from "@gateway/providers";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Attempt, upstreamTarget } from "../src/attempt.ts";
import { type CallState, newCallState } from "../src/call-state.ts";
import { forward } from "../src/forward.ts";

/**
 * `forward` between a real client, a real server and a real upstream, with the call's recording
 * in the test's hands: the journal write a response's end waits for is held as long as a test
 * needs, to put upstream events inside that wait.
 */
const frames = [
  'data: {"id":"c1","object":"chat.completion.chunk","created":1763720100,"model":"gpt-5.4-mini","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}',
  'data: {"id":"c1","object":"chat.completion.chunk","created":1763720100,"model":"gpt-5.4-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}',
  "data: [DONE]",
];
const stream = `${frames.join("\n\n")}\n\n`;

let upstreamScript: (res: ServerResponse) => void;
let upstream: Server;
let upstreamUrl: string;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => upstreamScript(res));
  });
  upstreamUrl = await listen(upstream);
});
afterAll(() => new Promise((r) => upstream.close(r)));

/**
 * Serves one call through `forward`. `record` stands for the gateway's first recording of the call;
 * a later one answers at once, as a journal with nothing left to write would: `forward` must not
 * rely on a second call waiting as long as the first.
 */
async function serveOnce(record: (call: CallState) => Promise<void>) {
  const dispatcher = new Agent();
  const calls: CallState[] = [];
  const server = createServer((req, res) => {
    req.resume();
    const call = newCallState("req_forward", endpointSpecs.chat_completions, "byo", {
      spillBytes: 1 << 20,
      maxBytes: 1 << 22,
      spillDir: "/nonexistent",
    });
    call.capture = { receivedHeaders: {}, requestBody: null, responseHeaders: {} };
    calls.push(call);
    const attempt: Attempt = {
      target: upstreamTarget(upstreamUrl),
      credential: { name: "authorization", value: "Bearer sk-test" },
      body: Buffer.from('{"model":"gpt-5.4-mini","stream":true}'),
      mode: "byo",
      route: "primary",
      providerLabel: "provider_b",
      servedModel: "gpt-5.4-mini",
      managed: false,
      hideUsageChunk: false,
    };
    let recorded = false;
    void forward(dispatcher, call, attempt, req, res, "", false, (response) => {
      if (recorded) return Promise.resolve();
      recorded = true;
      response.readFacts();
      return record(call);
    });
  });
  const url = await listen(server);
  const res = await request(`${url}/v1/chat/completions`, { method: "POST", body: "{}" });
  const text = await res.body.text();
  server.close();
  await dispatcher.close();
  return { text, call: calls[0]! };
}

describe("forward, a stream's end", () => {
  it("ends the response with its terminal frame when the upstream fails while the end waits for the journal", async () => {
    let upstreamGone: () => void;
    const gone = new Promise<void>((resolve) => {
      upstreamGone = resolve;
    });
    upstreamScript = (res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => upstreamGone());
      res.write(stream, () => res.destroy());
    };
    // the journal write is done only once the upstream's reset has reached the gateway
    const { text, call } = await serveOnce(() => gone.then(() => new Promise((r) => setTimeout(r, 50))));
    expect(text).toBe(stream);
    expect(call.outcome).toBe("complete");
    expect(call.usage).toMatchObject({ input_tokens: 9, output_tokens: 1 });
    expect(call.answer?.bytes().toString()).toBe(stream);
  });
});
