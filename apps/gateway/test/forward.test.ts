import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInProcessBus } from "@gateway/bus";
import { configReader, createInProcessCache } from "@gateway/cache";
import { silentLogger } from "@gateway/contracts";
import { endpointSpecs } from "@gateway/providers";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Attempt, upstreamTarget } from "../src/attempt.ts";
import type { CallContext, GatewayContext } from "../src/call-context.ts";
import { type CallObserver, observersByHook } from "../src/call-observer.ts";
import { type CallState, newCallState } from "../src/call-state.ts";
import { forward } from "../src/forward.ts";
import { largeAnswerTurns } from "../src/large-answer-turns.ts";
import type { Caller } from "../src/resolve-caller.ts";
import { testGatewayConfig as config } from "./support/gateway-config.ts";

/**
 * `forward` between a real client, a real server and a real upstream, with the call's journal
 * write in the test's hands: the write a response's end waits for is held as long as a test
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
 * Serves one call through `forward`. `journaled` stands for the bus's journal write of the call's
 * first recording; the answer the call recorded is read by an observer, as the call event's is.
 */
async function serveOnce(journaled: () => Promise<void>) {
  const dispatcher = new Agent();
  const calls: { call: CallState; answer: string | undefined }[] = [];
  const bus = createInProcessBus();
  const reader = configReader(createInProcessCache());
  const keepsAnswer: CallObserver = {
    recorded(call, answer) {
      calls.push({ call, answer: answer?.bytes().toString() });
    },
  };
  const gateway: GatewayContext = {
    config,
    reader,
    plan: {
      config: reader,
      credentials: () => undefined,
      providerUrls: { provider_a: config.providerAUrl, provider_b: config.providerBUrl },
      responsesKeyEnv: "UNSET",
      random: Math.random,
    },
    upstream: dispatcher,
    bus,
    log: silentLogger,
    random: Math.random,
    answerLimits: { spillBytes: 1 << 20, maxBytes: 1 << 22, spillDir: "/nonexistent" },
    limits: null,
    observers: observersByHook([keepsAnswer]),
    largeAnswers: largeAnswerTurns(bus, silentLogger),
    journaled,
  };
  const server = createServer((req, res) => {
    req.resume();
    const call = newCallState("req_forward", endpointSpecs.chat_completions, "byo");
    call.capture = { receivedHeaders: {}, requestBody: null, responseHeaders: {} };
    // (a caller that is known: only such a call is recorded)
    call.caller = {} as Caller;
    const ctx: CallContext = {
      gateway,
      req,
      res,
      call,
      routed: true,
      query: "",
      upstreamKey: "sk-test",
      abort: new AbortController(),
      answer: null,
      recorded: null,
    };
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
    void forward(ctx, attempt, false);
  });
  const url = await listen(server);
  const res = await request(`${url}/v1/chat/completions`, { method: "POST", body: "{}" });
  const text = await res.body.text();
  server.close();
  await dispatcher.close();
  return { text, recorded: calls };
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
    const { text, recorded } = await serveOnce(() => gone.then(() => new Promise((r) => setTimeout(r, 50))));
    expect(text).toBe(stream);
    // recorded once, whole
    expect(recorded).toHaveLength(1);
    const [{ call, answer }] = recorded as [(typeof recorded)[number]];
    expect(call.outcome).toBe("complete");
    expect(call.usage).toMatchObject({ input_tokens: 9, output_tokens: 1 });
    expect(answer).toBe(stream);
  });
});
