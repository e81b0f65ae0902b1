import { callRow } from "@gateway/costing-worker";
import { callLogScanBudget, recordCalls } from "@gateway/db";
import { testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "../harness.ts";

// One call's page over plain HTTP: a large answer is shown in part, never whole, and its raw
// download is the exact bytes the client received.
describe("console: one call's bytes", () => {
  let h: Harness;
  let cookie: string;
  beforeAll(async () => {
    h = await startHarness();
    const signIn = await fetch(`${h.gateway.url}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: h.gateway.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ credential: h.apiKey }).toString(),
    });
    cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
  });
  afterAll(async () => {
    await h?.close();
  });

  const page = (path: string) =>
    fetch(`${h.gateway.url}/console/projects/${h.projectId}${path}`, { headers: { cookie } });

  it("shows the first 64 KiB of a large answer and downloads all of it byte for byte", async () => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.apiKey}`,
        "x-gateway-upstream-key": "sk-up",
        "content-type": "application/json",
        "x-mock-answer-bytes": "300000",
      },
      body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "a long one" }] }),
    });
    const received = Buffer.from(await res.arrayBuffer());
    expect(received.length).toBeGreaterThan(300_000);
    const requestId = res.headers.get("x-gateway-request-id")!;
    await h.capture(requestId);

    const html = await eventually(async () => {
      const answer = await page(`/calls/${requestId}`);
      return answer.status === 200 ? answer.text() : undefined;
    });
    expect(html).toContain(`${received.length} bytes; showing the first 65536`);
    // the page holds the first 64 KiB of the answer, not the whole of it
    expect(html.length).toBeLessThan(received.length);
    expect(html).not.toContain("Response body as formatted JSON");

    const raw = await page(`/calls/${requestId}/raw/response`);
    expect(raw.headers.get("content-type")).toBe("application/octet-stream");
    expect(raw.headers.get("content-disposition")).toBe(`attachment; filename="${requestId}-response.bin"`);
    expect(Buffer.from(await raw.arrayBuffer()).equals(received)).toBe(true);
  });

  it("never lists a body in the log, and shows a small JSON answer with its formatted view", async () => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": "sk-up" },
      body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "marker-7f3a" }] }),
    });
    await res.arrayBuffer();
    const requestId = res.headers.get("x-gateway-request-id")!;
    await h.capture(requestId);
    const log = await (await page(`/calls?request_id=${requestId}`)).text();
    expect(log).toContain(requestId);
    expect(log).not.toContain("marker-7f3a");
    const call = await (await page(`/calls/${requestId}`)).text();
    expect(call).toContain("marker-7f3a");
    expect(call).toContain("Request body as formatted JSON");
  });
  it("says how far back a filter looked when the scan budget cut its page short, and links further back", async () => {
    const of = { org_id: h.orgId, project_id: h.projectId };
    const at = (i: number) => new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000).toISOString();
    const oldest = testCallEvent({ ...of, received_at: at(0), status: 418 });
    const newer = Array.from({ length: callLogScanBudget }, (_, i) =>
      testCallEvent({ ...of, received_at: at(i + 1) }),
    );
    await recordCalls(h.gateway.internals.db, [oldest, ...newer].map(callRow));
    const first = await (await page("/calls?status=418")).text();
    // the page looked back through this year's first calls (the test's others are newer) and no further
    expect(first).toMatch(/Nothing more matched back to 2026-01-01T00:00:0\d\.000Z \(UTC\) yet\./);
    const further = first
      .match(/href="([^"]+)" rel="next">Search further back</)![1]!
      .replaceAll("&amp;", "&");
    const second = await (await fetch(`${h.gateway.url}${further}`, { headers: { cookie } })).text();
    expect(second).toContain(oldest.request_id);
    expect(second).not.toContain("Search further back");
  });
});
