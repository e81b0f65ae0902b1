import { testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "./harness.ts";

const upstreamKey = "sk-upstream-capture-test";

describe.each(testStores())("captures (%s)", (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
  });
  afterAll(() => h.close());

  const capturesPath = () => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}`;

  async function call(path: string, body: object, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-gateway-upstream-key": upstreamKey,
      ...extra,
    };
    if (path.startsWith("/v1/messages")) {
      headers["x-api-key"] = h.apiKey;
      headers["anthropic-version"] = "2023-06-01";
    } else headers.authorization = `Bearer ${h.apiKey}`;
    const res = await fetch(h.gateway.url + path, { method: "POST", headers, body: JSON.stringify(body) });
    return {
      requestId: res.headers.get("x-gateway-request-id")!,
      status: res.status,
      text: await res.text(),
    };
  }

  async function captureOf(requestId: string) {
    return eventually(async () => {
      const res = await h.cp("GET", `${capturesPath()}/captures/${requestId}`);
      return res.status === 200 ? res.json : undefined;
    });
  }

  it("keeps no credential header of any provider in a capture, request or response", async () => {
    const canary = "sk-CANARY-credential-9f8e7d";
    const credentials = [
      "api-key",
      "x-goog-api-key",
      "x-amz-security-token",
      "x-auth-token",
      "proxy-authorization",
      "cookie",
      "x-session-secret",
    ];
    const { requestId } = await call(
      "/v1/chat/completions",
      { model: "gpt-5.4-mini", messages: [] },
      Object.fromEntries([...credentials.map((name) => [name, canary]), ["x-client-trace", "kept"]]),
    );
    const envelope = await captureOf(requestId);
    expect(JSON.stringify(envelope)).not.toContain(canary);
    expect(JSON.stringify(envelope)).not.toContain("sk-upstream");
    for (const name of credentials) expect(envelope.request_headers[name]).toBeUndefined();
    // what is no credential stays
    expect(envelope.request_headers["x-client-trace"]).toBe("kept");
  });

  it("lists each call within 2 s, holding the bytes both ways and no credential", async () => {
    const body = {
      model: "claude-sonnet-5",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "héllo ✓" }],
    };
    // the mock waits before its first byte: the capture's first-byte time must show it
    const { requestId, text } = await call("/v1/messages?beta=true", body, {
      "x-gateway-tags": "team=search,env=prod",
      "x-mock-first-byte-delay-ms": "200",
    });
    const started = Date.now();
    const listed = await eventually(async () => {
      const res = await h.cp("GET", `${capturesPath()}/captures`);
      return res.json.captures.find((c: { request_id: string }) => c.request_id === requestId);
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(listed.key).toMatch(
      new RegExp(
        `^captures/${h.orgId}/${h.projectId}/api_key_[0-9a-z]+/\\d{4}-\\d{2}-\\d{2}/${requestId}\\.jsonl$`,
      ),
    );
    expect(listed.idp_org_id).toBe(h.orgId);
    expect(listed.idp_api_key_id).toMatch(/^api_key_/);
    expect(listed.size).toBeGreaterThan(0);
    expect(new Date(listed.uploaded).toISOString()).toBe(listed.uploaded);

    const envelope = await captureOf(requestId);
    expect(envelope.request_body).toBe(JSON.stringify(body));
    expect(envelope.request_body_encoding).toBe("utf8");
    expect(envelope.response_body).toBe(text);
    expect(envelope).toMatchObject({
      request_id: requestId,
      org_id: h.orgId,
      project_id: h.projectId,
      endpoint: "messages",
      mode: "byo",
      route: "primary",
      requested_model: "claude-sonnet-5",
      served_model: "claude-sonnet-5",
      provider_label: "provider_a",
      status: 200,
      stream: true,
      stream_outcome: "complete",
      tags: { team: "search", env: "prod" },
    });
    // 10 ms below the delay: a timer may fire a fraction of a millisecond early
    expect(envelope.first_byte_ms).toBeGreaterThanOrEqual(190);
    expect(envelope.first_byte_ms).toBeLessThanOrEqual(envelope.total_ms);
    const serialised = JSON.stringify(envelope);
    expect(serialised).not.toContain(upstreamKey);
    expect(serialised).not.toContain(h.apiKey);
    expect(envelope.request_headers["anthropic-version"]).toBe("2023-06-01");
    expect(envelope.response_headers["x-gateway-request-id"]).toBe(requestId);
  });

  it("keeps a streamed answer's timeline: each chunk's offset in the body and when it went out", async () => {
    const { requestId, text } = await call(
      "/v1/messages",
      { model: "claude-sonnet-5", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] },
      { "x-mock-first-byte-delay-ms": "100", "x-mock-frame-delay-ms": "30" },
    );
    const envelope = await captureOf(requestId);
    expect(envelope.response_body).toBe(text);
    const frames: [number, number][] = envelope.response_frames;
    const offsets = frames.map(([offset]) => offset);
    const times = frames.map(([, ms]) => ms);
    expect(frames.length).toBeGreaterThan(2);
    expect(offsets[0]).toBe(0);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(new Set(offsets).size).toBe(offsets.length);
    expect(offsets.at(-1)).toBeLessThan(Buffer.byteLength(text));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(envelope.first_byte_ms - 0.1);
    expect(times.at(-1)).toBeLessThanOrEqual(envelope.total_ms + 0.1);
    // the frames came 30 ms apart: the timeline spans them
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(30 * (frames.length - 2));

    const json = await call("/v1/chat/completions", { model: "gpt-5.4-mini", messages: [] });
    expect(await captureOf(json.requestId)).not.toHaveProperty("response_frames");
  });

  it("pages newest first with a cursor, and narrows to one workload", async () => {
    const workload = await h.cp("POST", `${capturesPath()}/workloads`, { name: "batch-jobs" });
    expect(workload.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { requestId } = await call(
        "/v1/chat/completions",
        { model: "gpt-5.4-mini", messages: [{ role: "user", content: `n${i}` }] },
        { "x-gateway-workload": "batch-jobs" },
      );
      ids.push(requestId);
      await captureOf(requestId);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const page = await h.cp("GET", `${capturesPath()}/workloads/${workload.json.id}/captures${query}`);
      expect(page.status).toBe(200);
      expect(page.json.scanned_through).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      seen.push(...page.json.captures.map((c: { request_id: string }) => c.request_id));
      expect(page.json.truncated).toBe(page.json.cursor !== null);
      if (!page.json.cursor) break;
      cursor = page.json.cursor;
    }
    expect(seen).toEqual([...ids].reverse());

    const whole = await h.cp("GET", `${capturesPath()}/captures?limit=100`);
    expect(whole.json.captures.length).toBeGreaterThanOrEqual(6);
    expect(whole.json.truncated).toBe(false);
  });

  it("refuses a tampered cursor, or one from another scope", async () => {
    const page = await h.cp("GET", `${capturesPath()}/captures?limit=1`);
    const cursor: string = page.json.cursor;
    expect(cursor).toEqual(expect.any(String));
    const tampered = `${cursor.slice(0, -2)}xx`;
    expect((await h.cp("GET", `${capturesPath()}/captures?cursor=${tampered}`)).status).toBe(400);
    const workloads = await h.cp("GET", `${capturesPath()}/workloads`);
    const other = workloads.json.workloads[0].id;
    const foreign = await h.cp(
      "GET",
      `${capturesPath()}/workloads/${other}/captures?cursor=${encodeURIComponent(cursor)}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.json.error.code).toBe("bad_request");
    for (const limit of ["0", "101", "abc", "-1"]) {
      expect((await h.cp("GET", `${capturesPath()}/captures?limit=${limit}`)).status).toBe(400);
    }
  });

  it("captures nothing for a workload with capture off, yet still answers", async () => {
    const created = await h.cp("POST", `${capturesPath()}/workloads`, {
      name: "quiet",
      capture_enabled: false,
    });
    expect(created.json.capture_enabled).toBe(false);
    const { requestId, status } = await call(
      "/v1/chat/completions",
      { model: "gpt-5.4-mini", messages: [] },
      { "x-gateway-workload": "quiet" },
    );
    expect(status).toBe(200);
    // Let a capture that should not exist have time to appear; a later capture proves the writer ran.
    const { requestId: later } = await call("/v1/chat/completions", { model: "gpt-5.4-mini", messages: [] });
    await captureOf(later);
    expect((await h.cp("GET", `${capturesPath()}/captures/${requestId}`)).status).toBe(404);
  });

  it("new workloads capture at 100%", async () => {
    const created = await h.cp("POST", `${capturesPath()}/workloads`, { name: "fresh" });
    expect(created.json).toMatchObject({ capture_enabled: true, capture_sample_rate: 1, is_default: false });
  });
});
