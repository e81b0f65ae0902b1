import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type MockProvider,
  startMockProviderA,
  startMockProviderB,
  startMockProviders,
} from "../src/index.ts";
import { A_HEADERS, B_HEADERS, rawRequest } from "./helpers.ts";

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProviderA();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const body = JSON.stringify({
  model: "claude-haiku-4-5",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "hi" }],
});

describe("requests", () => {
  it("records method, raw path, headers and body of every request, faults included", async () => {
    await rawRequest(mock.url, "/v1/messages?beta=true", { headers: { ...A_HEADERS, "x-team": "t1" }, body });
    await rawRequest(mock.url, "/v1/messages", { headers: { ...A_HEADERS, "x-mock-status": "429" }, body });
    await rawRequest(mock.url, "/v1/messages", {
      headers: { ...A_HEADERS, "x-mock-reset-after-frames": "0" },
      body,
    });
    expect(mock.requests).toHaveLength(3);
    const [first, second, third] = mock.requests;
    expect(first).toMatchObject({ method: "POST", path: "/v1/messages?beta=true", aborted: false });
    expect(first?.headers["x-team"]).toBe("t1");
    expect(first?.body.toString()).toBe(body);
    expect(second?.headers["x-mock-status"]).toBe("429");
    expect(second?.aborted).toBe(false);
    expect(third?.body.toString()).toBe(body);
  });

  it("marks a request aborted when the client leaves mid-stream", async () => {
    const res = await rawRequest(mock.url, "/v1/messages", {
      headers: { ...A_HEADERS, "x-mock-frame-delay-ms": "50" },
      body,
      abortAfterFrames: 2,
    });
    expect(res.frames).toHaveLength(2);
    await vi.waitFor(() => expect(mock.requests[0]?.aborted).toBe(true));
  });

  it("does not mark a finished request aborted", async () => {
    await rawRequest(mock.url, "/v1/messages", { headers: A_HEADERS, body });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(mock.requests[0]?.aborted).toBe(false);
  });

  it("reset() empties the same array in place", async () => {
    const requests = mock.requests;
    await rawRequest(mock.url, "/v1/messages", { headers: A_HEADERS, body });
    expect(requests).toHaveLength(1);
    mock.reset();
    expect(requests).toHaveLength(0);
    expect(mock.requests).toBe(requests);
  });

  it("keeps nothing with record: false", async () => {
    const quiet = await startMockProviderB({ record: false });
    try {
      const res = await rawRequest(quiet.url, "/v1/models", { method: "GET", headers: B_HEADERS });
      expect(res.status).toBe(200);
      expect(quiet.requests).toHaveLength(0);
    } finally {
      await quiet.close();
    }
  });
});

describe("lifecycle", () => {
  it("starts both providers on distinct ports and closes them, even with requests in flight", async () => {
    const mocks = await startMockProviders();
    expect(mocks.providerA.url).not.toBe(mocks.providerB.url);
    const pending = rawRequest(mocks.providerA.url, "/v1/messages", {
      headers: { ...A_HEADERS, "x-mock-first-byte-delay-ms": "10000" },
      body,
    });
    await vi.waitFor(() => expect(mocks.providerA.requests).toHaveLength(1));
    await mocks.close();
    const res = await pending;
    expect(res.error).toBeDefined();
    await expect(mocks.close()).resolves.toBeUndefined();
  });

  it("listens on a requested port", async () => {
    const probe = await startMockProviderA();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const fixed = await startMockProviderA({ port });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await fixed.close();
    }
  });
});
