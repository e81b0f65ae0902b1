import { eventually } from "@gateway/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { type StandaloneProcess, startStandaloneProcess } from "./support/standalone-process.ts";

const prompt = "a prompt that must never reach a log line";
const upstreamKey = "sk-upstream-access-log-check";

/** Makes one BYO call through `p`; resolves with the request id the gateway gave it. */
async function oneCall(p: StandaloneProcess): Promise<string> {
  const res = await fetch(`${p.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${p.apiKey}`,
      "x-gateway-upstream-key": upstreamKey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: prompt }] }),
  });
  await res.text();
  expect(res.status).toBe(200);
  return res.headers.get("x-gateway-request-id")!;
}

const accessLines = (p: StandaloneProcess) =>
  p.app
    .output()
    .split("\n")
    .filter((line) => line.includes('"message":"access"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the access log", () => {
  const started: StandaloneProcess[] = [];
  afterAll(async () => {
    for (const p of started) await p.close();
  });

  it("has one line per call, saying who, where and how it went, and never a key or a prompt", async () => {
    const p = await startStandaloneProcess({ env: { GATEWAY_ACCESS_LOG: "true" } });
    started.push(p);
    const requestId = await oneCall(p);
    const unauthorized = await fetch(`${p.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    await unauthorized.text();
    // the line is written after the answer's last byte
    await eventually(() => accessLines(p).length >= 2, 1_000);
    const lines = accessLines(p);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: "info",
      component: "standalone",
      request_id: requestId,
      org_id: p.orgId,
      endpoint: "chat_completions",
      mode: "byo",
      route: "primary",
      status: 200,
      stream_outcome: "complete",
    });
    expect(typeof lines[0]!.project_id).toBe("string");
    expect(typeof lines[0]!.total_ms).toBe("number");
    // a refused call has its line too, with no org to name
    expect(lines[1]).toMatchObject({ status: 401, org_id: null, endpoint: "chat_completions" });
    // less the first-start banner, which prints the starter key once, on purpose
    const logs = p.app.output().replace(/^ {2}api key: +sk_\w+$/m, "");
    for (const secret of [prompt, p.apiKey, upstreamKey]) expect(logs).not.toContain(secret);
  }, 60_000);

  it("is off unless GATEWAY_ACCESS_LOG=true", async () => {
    const p = await startStandaloneProcess();
    started.push(p);
    await oneCall(p);
    await new Promise((r) => setTimeout(r, 200));
    expect(accessLines(p)).toEqual([]);
  }, 60_000);
});
