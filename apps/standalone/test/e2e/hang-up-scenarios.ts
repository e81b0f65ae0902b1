import { beforeAll, expect, it } from "vitest";
import { hangUpAtTerminal } from "../support/hang-up.ts";
import { usageSeen } from "../support/usage-seen.ts";
import type { Deployment } from "./deployments.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

/** The mock's end of body comes this long after the terminal event the client hangs up at. */
const endDelaysMs = [0, 2, 200];
const repeats = 12;

const streams = [
  {
    format: "chat_completions",
    path: "/v1/chat/completions",
    terminal: "data: [DONE]",
    body: (n: number) => ({
      model: "gpt-5.4-mini",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: `hang up ${n}` }],
    }),
  },
  {
    format: "messages",
    path: "/v1/messages",
    terminal: "event: message_stop",
    body: (n: number) => ({
      model: "claude-sonnet-5",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: `hang up ${n}` }],
    }),
  },
  {
    format: "responses",
    path: "/v1/responses",
    terminal: "event: response.completed",
    body: (n: number) => ({ model: "gpt-5.5", input: `hang up ${n}`, stream: true, store: false }),
  },
] as const;

/**
 * Clients that close the connection the instant they read a stream's terminal event (as
 * openai-python does at `[DONE]` and Codex at `response.completed`), while the upstream's end of
 * body comes 0, 2 or 200 ms later: every call has exactly one capture, recorded as complete, and
 * the usage the client was shown.
 */
export function hangUpScenarios(get: () => Deployment, label: string): void {
  let org: TestOrg;
  let workloadId: string;
  beforeAll(async () => {
    const d = get();
    org = await createTestOrg(d);
    const created = await d.cp(
      "POST",
      `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads`,
      { name: "hang-ups" },
      org.apiKey,
    );
    expect(created.status).toBe(201);
    workloadId = created.json.id;
  });

  it("records every stream whose client hung up at its terminal event, with the usage it got", async () => {
    const d = get();
    const made: { requestId: string; prompt: number; output: number }[] = [];
    let n = 0;
    for (const delay of endDelaysMs) {
      for (const stream of streams) {
        const batch = Array.from({ length: repeats }, () => {
          const i = n++;
          const gateway = d.gateways[i % d.gateways.length]!;
          const headers: Record<string, string> = {
            authorization: `Bearer ${org.apiKey}`,
            "x-api-key": org.apiKey,
            "anthropic-version": "2023-06-01",
            "x-gateway-workload": "hang-ups",
            "x-mock-end-delay-ms": String(delay),
          };
          if (stream.format !== "responses") headers["x-gateway-upstream-key"] = "sk-upstream-e2e";
          return hangUpAtTerminal(
            gateway + stream.path,
            headers,
            JSON.stringify(stream.body(i)),
            stream.terminal,
          );
        });
        for (const got of await Promise.all(batch)) {
          expect(got.status, got.text).toBe(200);
          expect(got.sawTerminal).toBe(true);
          const usage = usageSeen(stream.format, got.text);
          expect(usage, got.text).not.toBeNull();
          made.push({ requestId: got.requestId, ...usage! });
        }
      }
    }

    // The usage summary of the workload: every call, with exactly the tokens the clients saw.
    const project = `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}`;
    const expected = {
      requests: made.length,
      prompt: made.reduce((s, m) => s + m.prompt, 0),
      output: made.reduce((s, m) => s + m.output, 0),
    };
    const summary = await within(
      15_000,
      async () => {
        const res = await d.cp(
          "GET",
          `${project}/usage-summary?window=1h&group_by=workload`,
          undefined,
          org.apiKey,
        );
        const group = res.json.groups.find((g: { workload_id: string }) => g.workload_id === workloadId);
        return group?.requests === made.length ? group : undefined;
      },
      200,
    );
    expect({
      requests: summary.requests,
      prompt: summary.input_tokens + summary.cache_read_input_tokens + summary.cache_creation_input_tokens,
      output: summary.output_tokens,
    }).toEqual(expected);

    // Exactly one capture per call, each recorded as a complete stream.
    const captures = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures`;
    const outcomes = new Map<string, string>();
    await within(
      15_000,
      async () => {
        for (const { requestId } of made) {
          if (outcomes.has(requestId)) continue;
          const res = await d.cp("GET", `${captures}/${requestId}`, undefined, org.apiKey);
          if (res.status !== 200) return undefined;
          outcomes.set(requestId, res.json.stream_outcome);
        }
        return true;
      },
      200,
    );
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await d.cp(
        "GET",
        `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads/${workloadId}/captures?${query}`,
        undefined,
        org.apiKey,
      );
      listed.push(...page.json.captures.map((c: { request_id: string }) => c.request_id));
      cursor = page.json.cursor;
    } while (cursor);
    expect(listed.sort()).toEqual(made.map((m) => m.requestId).sort());
    expect([...outcomes.values()].filter((o) => o !== "complete")).toEqual([]);
    console.log(
      `hang-up at the terminal event (${label}): ${made.length} streams made, ${outcomes.size} recorded ` +
        `complete, ${summary.requests} with usage (${expected.prompt} prompt + ${expected.output} output tokens)`,
    );
  });
}
