import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployment, type Harness, putCatalogModel, startHarness } from "./harness.ts";

/**
 * Upstreams that behave in ways the testkit mocks do not: CRLF framing, a clean close before the
 * terminal event, a reset in the middle of a frame. Each is still a stream any HTTP server may
 * send, written here byte by byte as the wire-format reference shows them.
 */
let script: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
let upstream: Server;
let upstreamUrl: string;

const chunk = (id: string, content: string) =>
  `data: {"id":"${id}","object":"chat.completion.chunk","created":1763720100,"model":"gpt-5.4-nano","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}],"usage":null}`;
const usageChunk = (id: string) =>
  `data: {"id":"${id}","object":"chat.completion.chunk","created":1763720100,"model":"gpt-5.4-nano","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`;
const sseHead = { "content-type": "text/event-stream; charset=utf-8" };

describe("stream edge cases", () => {
  let h: Harness;
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on("end", () => script(req, res));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    h = await startHarness({ credentials: { GATEWAY_UPSTREAM_KEY_EDGE: "sk-operator-edge" } });
    await putCatalogModel(h, "edge-chat", {
      display_name: "Edge",
      deployments: [deployment("chat_completions", upstreamUrl, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_EDGE")],
    });
  });
  afterAll(async () => {
    await h.close();
    await new Promise((r) => upstream.close(r));
  });

  const managedStream = () =>
    fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "openai-organization": "org-caller" },
      body: JSON.stringify({ model: "edge-chat", stream: true, messages: [] }),
    });
  const captureOf = (requestId: string) => h.capture(requestId);

  it("hides the requested usage chunk from a CRLF-framed stream and passes every other frame", async () => {
    let seenOrganization: string | undefined = "unset";
    script = (req, res) => {
      seenOrganization = req.headers["openai-organization"] as string | undefined;
      res.writeHead(200, sseHead);
      res.end(
        [chunk("c1", "Nine"), chunk("c1", "ty"), usageChunk("c1"), "data: [DONE]"].join("\r\n\r\n") +
          "\r\n\r\n",
      );
    };
    const res = await managedStream();
    const text = await res.text();
    expect(text).toBe(`${[chunk("c1", "Nine"), chunk("c1", "ty"), "data: [DONE]"].join("\r\n\r\n")}\r\n\r\n`);
    // The caller's own account header does not travel next to the operator's key.
    expect(seenOrganization).toBeUndefined();
  });

  it("a stream closed cleanly before its terminal event ends with an error event, captured as truncated", async () => {
    script = (_req, res) => {
      res.writeHead(200, sseHead);
      res.end(`${chunk("c2", "Half")}\n\n`);
    };
    const managed = await managedStream();
    const text = await managed.text();
    const frames = text.trimEnd().split("\n\n");
    expect(frames[0]).toBe(chunk("c2", "Half"));
    expect(JSON.parse(frames.at(-1)!.slice("data: ".length)).error.type).toBe("server_error");
    const envelope = await captureOf(managed.headers.get("x-gateway-request-id")!);
    expect(envelope.stream_outcome).toBe("truncated");
    expect(envelope.response_body).toBe(text);
  });

  it("a reset after the terminal event is no failure: the stream ends cleanly, captured as complete", async () => {
    script = (_req, res) => {
      res.writeHead(200, sseHead);
      const frames = [chunk("c4", "All"), usageChunk("c4"), "data: [DONE]"];
      res.write(`${frames.join("\n\n")}\n\n`, () => setTimeout(() => res.destroy(), 20));
    };
    const managed = await managedStream();
    const text = await managed.text();
    expect(text).toBe(`${chunk("c4", "All")}\n\ndata: [DONE]\n\n`);
    const envelope = await captureOf(managed.headers.get("x-gateway-request-id")!);
    expect(envelope.stream_outcome).toBe("complete");
    expect(envelope.error).toBeNull();
  });

  it("a reset that comes with the terminal event still ends the stream with it, captured as complete", async () => {
    // The reset can reach the gateway while the response's end waits for the call's journal write.
    script = (_req, res) => {
      res.writeHead(200, sseHead);
      const frames = [chunk("c6", "Now"), usageChunk("c6"), "data: [DONE]"];
      res.write(`${frames.join("\n\n")}\n\n`, () => res.destroy());
    };
    const managed = await managedStream();
    const text = await managed.text();
    expect(text).toBe(`${chunk("c6", "Now")}\n\ndata: [DONE]\n\n`);
    const envelope = await captureOf(managed.headers.get("x-gateway-request-id")!);
    expect(envelope.stream_outcome).toBe("complete");
    expect(envelope.response_body).toBe(text);
  });

  it("ends the response at the terminal event, drops what the upstream sends after it, and lets go of an upstream that holds its end", async () => {
    let upstreamClosed: () => void;
    const closedEarly = new Promise<boolean>((resolve) => {
      upstreamClosed = () => resolve(true);
    });
    script = (_req, res) => {
      res.writeHead(200, sseHead);
      res.write(`${chunk("c7", "Done")}\n\n${usageChunk("c7")}\n\ndata: [DONE]\n\n`);
      // after the terminal event, in a later read: a frame, then an end that does not come
      setTimeout(() => res.write(`${chunk("c7", "late")}\n\n`), 50);
      res.on("close", () => {
        if (!res.writableEnded) upstreamClosed();
      });
    };
    const managed = await managedStream();
    const text = await managed.text();
    expect(text).toBe(`${chunk("c7", "Done")}\n\ndata: [DONE]\n\n`);
    const envelope = await captureOf(managed.headers.get("x-gateway-request-id")!);
    expect(envelope.stream_outcome).toBe("complete");
    expect(envelope.response_body).toBe(text);
    // the gateway closes the upstream's connection rather than wait on it
    expect(await closedEarly).toBe(true);
  });

  it("a reset in the middle of a frame closes the cut frame before the error event", async () => {
    script = (_req, res) => {
      res.writeHead(200, sseHead);
      res.write(`${chunk("c3", "Whole")}\n\n`);
      res.write(chunk("c3", "cut").slice(0, 40), () => setTimeout(() => res.destroy(), 20));
    };
    const res = await managedStream();
    const text = await res.text();
    const last = text.trimEnd().split("\n\n").at(-1)!;
    expect(last.startsWith("data: ")).toBe(true);
    expect(JSON.parse(last.slice("data: ".length)).error.code).toBe("upstream_disconnected");
  });
});

describe("requests the gateway must not choke on", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it("Expect: 100-continue is answered by the gateway and not sent upstream", async () => {
    const body = JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "hi" }] });
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "x-gateway-upstream-key": "sk-up",
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          expect: "100-continue",
        },
      });
      req.on("continue", () => req.end(body));
      req.on("response", (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
    });
    expect(status).toBe(200);
    expect(JSON.parse(text).object).toBe("chat.completion");
    expect(h.providerB.requests.at(-1)!.headers.expect).toBeUndefined();
  });

  /** A BYO messages call whose body is `body` as it stands (JSON text). */
  const messagesCall = (body: string) =>
    fetch(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": h.apiKey,
        "x-gateway-upstream-key": "sk-up",
        "anthropic-version": "2023-06-01",
      },
      body,
    });

  it("a model name that is no valid header value still passes through, percent-encoded in the header", async () => {
    const res = await messagesCall(JSON.stringify({ model: "claude-模型", max_tokens: 8, messages: [] }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-effective-model")).toBe(encodeURIComponent("claude-模型"));
    expect(((await res.json()) as { model: string }).model).toBe("claude-模型");
  });

  it("a model name holding a lone surrogate passes through, U+FFFD in the header", async () => {
    // JSON may hold a lone surrogate; `encodeURIComponent` throws on one
    const call = () => messagesCall('{"model":"claude-\\ud800","max_tokens":8,"messages":[]}');
    const res = await call();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-effective-model")).toBe("claude-%EF%BF%BD");
    expect(((await res.json()) as { model: string }).model).toBe("claude-\ud800");
    expect((await call()).status).toBe(200);
  });
});
