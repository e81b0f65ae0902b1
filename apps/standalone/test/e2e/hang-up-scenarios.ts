import { beforeAll, expect, it } from "vitest";
import { hangUpAtTerminal } from "../support/hang-up.ts";
import { usageSeen } from "../support/usage-seen.ts";
import type { Deployment } from "./deployments.ts";
import { expectEveryCallRecorded, type MadeCall } from "./recorded.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";

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
    const made: MadeCall[] = [];
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

    const recorded = await expectEveryCallRecorded(d, org, workloadId, made);
    console.log(
      `hang-up at the terminal event (${label}): ${made.length} streams made, ${recorded.complete} recorded ` +
        `complete, ${recorded.withUsage} with usage (${recorded.prompt} prompt + ${recorded.output} output tokens)`,
    );
  });
}
