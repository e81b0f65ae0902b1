import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SeenUsage, usageSeen } from "../support/usage-seen.ts";
import { responsesKey, type SplitDeployment, startSplitDeployment } from "./deployments.ts";
import { expectEveryCallRecorded, type MadeCall } from "./recorded.ts";
import { createTestOrg, deploymentScenarios, type TestOrg } from "./scenarios.ts";
import { type SecureEngines, secretsOf, secureEngines } from "./secure-engines.ts";
import { standaloneOnSecurePostgres } from "./secure-standalone.ts";
import { startFailureScenarios } from "./secure-start-failures.ts";
import { within } from "./traffic.ts";

const secured = process.env.GATEWAY_TEST_SECURE_ENGINES === "1";
if (!secured)
  console.log(
    "secure split deployment e2e skipped: set GATEWAY_TEST_SECURE_ENGINES=1 with the SECURE_* lines of " +
      "infra/secure/engines.sh env, the engines started by infra/secure/engines.sh start (.ci/run does this)",
  );

/** One call of each kind a client makes, both providers' formats, JSON and SSE, BYO and managed. */
const kinds = [
  {
    format: "messages",
    path: "/v1/messages",
    byo: true,
    body: (n: number, stream: boolean) => ({
      model: "claude-sonnet-5",
      max_tokens: 64,
      stream,
      messages: [{ role: "user", content: `secure ${n}` }],
    }),
  },
  {
    format: "chat_completions",
    path: "/v1/chat/completions",
    byo: true,
    body: (n: number, stream: boolean) => ({
      model: "gpt-5.4-mini",
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: "user", content: `secure ${n}` }],
    }),
  },
  {
    // paid by the operator's provider-B key, which the gateways read from its file
    format: "responses",
    path: "/v1/responses",
    byo: false,
    body: (n: number, stream: boolean) => ({ model: "gpt-5.5", input: `secure ${n}`, stream, store: false }),
  },
] as const;

/** The usage a client read from a JSON answer, as `usageSeen` reads it from a stream. */
function jsonUsageSeen(format: (typeof kinds)[number]["format"], text: string): SeenUsage {
  const usage = JSON.parse(text).usage;
  if (format === "messages")
    return {
      prompt:
        usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
      output: usage.output_tokens,
    };
  if (format === "chat_completions") return { prompt: usage.prompt_tokens, output: usage.completion_tokens };
  return { prompt: usage.input_tokens, output: usage.output_tokens };
}

// The whole split deployment (control plane, two gateways, capture writer, costing worker, each a
// process) with every engine secured at once and every secret given as a file; then each engine
// broken three ways at each app's start.
describe.skipIf(!secured)(
  "end to end: split deployment on secured engines (GATEWAY_TEST_SECURE_ENGINES=1)",
  () => {
    let d: SplitDeployment<SecureEngines>;
    beforeAll(async () => {
      d = await startSplitDeployment({ engines: secureEngines, secretsAsFiles: true });
    }, 240_000);
    afterAll(() => d?.close(), 120_000);

    deploymentScenarios(() => d, "secure");

    describe("traffic", () => {
      let org: TestOrg;
      let workloadId: string;
      beforeAll(async () => {
        org = await createTestOrg(d);
        const created = await d.cp(
          "POST",
          `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads`,
          { name: "secure" },
          org.apiKey,
        );
        expect(created.status).toBe(201);
        workloadId = created.json.id;
      });

      it("answers, captures once, prices and reports every call, and no app shows a secret", async () => {
        const made: MadeCall[] = [];
        const rounds = 5;
        for (let n = 0; n < rounds * kinds.length * 2; n++) {
          const kind = kinds[n % kinds.length]!;
          const stream = Math.floor(n / kinds.length) % 2 === 1;
          const gateway = d.gateways[n % d.gateways.length]!;
          const headers: Record<string, string> = {
            "content-type": "application/json",
            authorization: `Bearer ${org.apiKey}`,
            "x-api-key": org.apiKey,
            "anthropic-version": "2023-06-01",
            "x-gateway-workload": "secure",
            ...(kind.byo ? { "x-gateway-upstream-key": "sk-upstream-e2e" } : {}),
          };
          const res = await fetch(gateway + kind.path, {
            method: "POST",
            headers,
            body: JSON.stringify(kind.body(n, stream)),
          });
          const text = await res.text();
          expect(res.status, `${kind.path} stream=${stream}: ${text.slice(0, 300)}`).toBe(200);
          const usage = stream ? usageSeen(kind.format, text) : jsonUsageSeen(kind.format, text);
          expect(usage, text).not.toBeNull();
          made.push({ requestId: res.headers.get("x-gateway-request-id")!, ...usage! });
        }
        // the managed calls reached the provider with the key the gateways read from its file
        const managed = d.mocks.providerB.requests.filter((r) => r.path.startsWith("/v1/responses"));
        expect(managed.length).toBeGreaterThanOrEqual(rounds * 2);
        expect(new Set(managed.map((r) => r.headers.authorization))).toEqual(
          new Set([`Bearer ${responsesKey}`]),
        );

        const recorded = await expectEveryCallRecorded(d, org, workloadId, made);
        // priced by the costing worker, each call's cost read through the control plane
        const costs = await Promise.all(
          made.map(({ requestId }) =>
            within(
              15_000,
              async () => {
                const cost = await d.cp(
                  "GET",
                  `/admin/v1/orgs/${org.orgId}/calls/${requestId}/cost`,
                  undefined,
                  org.apiKey,
                );
                return cost.json?.pricing_status === "priced"
                  ? (cost.json.customer_cost_usd as number)
                  : undefined;
              },
              200,
            ),
          ),
        );
        expect(costs.every((c) => c > 0)).toBe(true);
        const rows = await d.sql<{ calls: number; captures: number }[]>`
        select (select count(*)::int from calls where request_id = any(${made.map((m) => m.requestId)})) as calls,
               (select count(*)::int from capture_index where request_id = any(${made.map((m) => m.requestId)})) as captures`;
        expect(rows[0]).toEqual({ calls: made.length, captures: made.length });

        for (const app of Object.values(d.apps))
          for (const secret of secretsOf(d))
            expect(app.output().includes(secret), `${app.name} shows a secret`).toBe(false);
        console.log(
          `secure: ${made.length} calls answered on 2 gateways (JSON and SSE; messages, chat completions, managed responses), ` +
            `${recorded.complete} captures listed once and complete, ${rows[0]!.calls} calls recorded once, ` +
            `${costs.length} priced (${costs.reduce((a, b) => a + b, 0).toFixed(6)} USD), ` +
            `usage reported ${recorded.prompt} prompt + ${recorded.output} output tokens`,
        );
      }, 120_000);
    });

    startFailureScenarios(() => d);
    standaloneOnSecurePostgres();
  },
);
