import { describe, expect, it } from "vitest";
import { goDuration, refusalAnswer } from "../src/admission.ts";
import type { Caller } from "../src/resolve-caller.ts";

const caller: Caller = {
  apiKey: { id: "key_1", orgId: "org_1" },
  project: {
    id: "proj_1",
    orgId: "org_1",
    slug: "shop",
    limits: { budget: { micros: 50_000_000, period: "day", appliesTo: "managed" } },
  },
  workload: {
    id: "wl_1",
    projectId: "proj_1",
    name: "agent",
    captureEnabled: true,
    captureSampleRate: 1,
    routeModelId: null,
    routeTrafficPct: 0,
  },
};
const now = Date.UTC(2026, 10, 25, 18, 0, 0);

describe("a refusal's answer", () => {
  it("names the rate limit, says when to try again (as Codex reads it) and sets provider B's headers", () => {
    const answer = refusalAnswer(
      "chat_completions",
      { scope: "workload", scopeId: "wl_1", limit: "requests_per_minute", value: 60, retryAfterMs: 1_250 },
      caller,
      now,
    );
    expect(answer).toEqual({
      kind: "requests_limited",
      message:
        "Rate limit reached for workload 'agent' on requests per minute: limit 60. Please try again in 1.25s.",
      headers: {
        "retry-after": "2",
        "retry-after-ms": "1250",
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "1.25s",
      },
    });
  });

  it("sets provider A's headers on the messages endpoint, with the reset as an RFC 3339 instant", () => {
    const answer = refusalAnswer(
      "messages",
      { scope: "api_key", scopeId: "key_1", limit: "tokens_per_minute", value: 30_000, retryAfterMs: 65_000 },
      caller,
      now,
    );
    expect(answer.kind).toBe("tokens_limited");
    expect(answer.message).toContain(
      "API key key_1 on tokens per minute: limit 30000. Please try again in 65s.",
    );
    expect(answer.headers).toEqual({
      "retry-after": "65",
      "retry-after-ms": "65000",
      "anthropic-ratelimit-tokens-limit": "30000",
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-ratelimit-tokens-reset": "2026-11-25T18:01:05Z",
    });
  });

  it("says which budget is spent and when it resets, and asks the SDKs not to retry", () => {
    const answer = refusalAnswer(
      "responses",
      {
        scope: "project",
        scopeId: "proj_1",
        limit: "budget",
        value: 50_000_000,
        retryAfterMs: 6 * 3_600_000,
      },
      caller,
      now,
    );
    expect(answer).toEqual({
      kind: "budget_exhausted",
      message:
        "The daily budget of $50.00 for managed calls of project 'shop' is spent; it resets at 2026-11-26T00:00:00.000Z.",
      headers: { "retry-after": "21600", "retry-after-ms": "21600000", "x-should-retry": "false" },
    });
  });

  it("asks a caller over its concurrency to come back in a second", () => {
    const answer = refusalAnswer(
      "messages",
      { scope: "project", scopeId: "proj_1", limit: "max_concurrent", value: 4, retryAfterMs: 1_000 },
      caller,
      now,
    );
    expect(answer.kind).toBe("concurrency_limited");
    expect(answer.message).toBe(
      "Concurrency limit reached for project 'shop': at most 4 calls at once. Please try again in 1s.",
    );
    expect(answer.headers).toEqual({ "retry-after": "1", "retry-after-ms": "1000" });
  });

  it("writes waits as provider B does", () => {
    expect([12, 999, 1_000, 6_570, 60_000, 360_500].map(goDuration)).toEqual([
      "12ms",
      "999ms",
      "1s",
      "6.57s",
      "1m0s",
      "6m0.5s",
    ]);
  });
});
