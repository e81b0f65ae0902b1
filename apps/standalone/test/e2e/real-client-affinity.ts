import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { putMockCatalogModel } from "./affinity-scenarios.ts";
import type { Deployment } from "./deployments.ts";
import { claudePrint, codexExec, readmeCodexConfig, realClientsWanted } from "./real-clients.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

const catalogModel = "e2e-clients-affinity";
const clientTimeoutMs = 240_000;
// biome-ignore lint/suspicious/noExplicitAny: a capture envelope, asserted on field by field
type Envelope = any;

/**
 * The real clients' own names for a conversation keep it on one arm of a 50 % route: the Node
 * SDKs sending `prompt_cache_key` and `metadata.user_id`, Claude Code (its session header and
 * `metadata.user_id`) across a resumed session. Codex CLI talks to `/v1/responses`, which no route
 * applies to: its session is recognised but its calls stay on the model it asked for.
 */
export function realClientAffinityScenarios(get: () => Deployment, label: string): void {
  describe.skipIf(!realClientsWanted)("real clients' conversations (GATEWAY_TEST_CLIENTS=1)", () => {
    let org: TestOrg;
    const workloads: Record<string, string> = {};
    beforeAll(async () => {
      const d = get();
      org = await createTestOrg(d);
      await putMockCatalogModel(d, catalogModel, { messages: true });
      const project = `/orgs/${org.orgId}/projects/${org.projectId}`;
      for (const name of ["sdk-affinity", "claude-affinity", "codex-affinity"]) {
        const created = await d.cp("POST", `/customer/v1${project}/workloads`, { name }, org.apiKey);
        workloads[name] = created.json.id;
        const path = `/admin/v1${project}/workloads/${created.json.id}/route`;
        const routed = await d.cp("PUT", path, { model_id: catalogModel, route_traffic_pct: 50 }, org.apiKey);
        expect(routed.status).toBe(200);
      }
    });

    /** Every capture of `workload`, read whole, once there are at least `atLeast`. */
    const captures = async (d: Deployment, workload: string, atLeast: number): Promise<Envelope[]> => {
      const project = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;
      const list = await within(
        15_000,
        async () => {
          const res = await d.cp(
            "GET",
            `${project}/workloads/${workloads[workload]}/captures?limit=100`,
            undefined,
            org.apiKey,
          );
          return res.json.captures.length >= atLeast ? res.json.captures : undefined;
        },
        200,
      );
      return Promise.all(
        list.map(
          async (c: { request_id: string }) =>
            (await d.cp("GET", `${project}/captures/${c.request_id}`, undefined, org.apiKey)).json,
        ),
      );
    };

    it(
      "the Node SDKs' prompt_cache_key and metadata.user_id: each conversation on one arm, both arms in use",
      async () => {
        const d = get();
        const defaultHeaders = {
          "x-gateway-upstream-key": "sk-upstream-clients",
          "x-gateway-workload": "sdk-affinity",
        };
        const openai = new OpenAI({
          apiKey: org.apiKey,
          baseURL: `${d.gateways[0]}/v1`,
          defaultHeaders,
          maxRetries: 0,
        });
        const anthropic = new Anthropic({
          apiKey: org.apiKey,
          baseURL: d.gateways.at(-1),
          defaultHeaders,
          maxRetries: 0,
        });
        const messages = [{ role: "user" as const, content: "Name a prime above 90." }];
        const arms = new Map<string, Set<string>>();
        const note = (conversation: string, response: Response) =>
          arms.set(
            conversation,
            (arms.get(conversation) ?? new Set()).add(response.headers.get("x-gateway-route")!),
          );
        for (let c = 0; c < 16; c++)
          for (let turn = 0; turn < 3; turn++) {
            const prompt_cache_key = `openai-conversation-${c}`;
            const chat = openai.chat.completions.create({
              model: "gpt-5.4-mini",
              messages,
              prompt_cache_key,
            });
            note(prompt_cache_key, (await chat.withResponse()).response);
            const user_id = `anthropic-conversation-${c}`;
            const message = anthropic.messages.create({
              model: "claude-sonnet-5",
              max_tokens: 16,
              messages,
              metadata: { user_id },
            });
            note(user_id, (await message.withResponse()).response);
          }
        for (const [conversation, seen] of arms) expect([...seen], conversation).toHaveLength(1);
        const onCatalog = [...arms.values()].filter((s) => s.has("gateway")).length;
        // 32 conversations at 50 %: all on one arm has odds of 1 in 2^31
        expect(onCatalog).toBeGreaterThan(0);
        expect(onCatalog).toBeLessThan(arms.size);
        console.log(
          `SDK conversations (${label}): ${onCatalog} of ${arms.size} on the catalog arm, every turn on its arm`,
        );
      },
      clientTimeoutMs,
    );

    it(
      "Claude Code: every call of a session, resumed in a second run, on one arm, chosen by affinity",
      async () => {
        const d = get();
        const home = await mkdtemp(join(tmpdir(), "gw-claude-affinity-"));
        const session = randomUUID();
        try {
          const g = d.gateways[0]!;
          await claudePrint(home, g, org.apiKey, "claude-affinity", [
            "--session-id",
            session,
            "Name a prime above 90.",
          ]);
          await claudePrint(home, d.gateways.at(-1)!, org.apiKey, "claude-affinity", [
            "--resume",
            session,
            "And one above 100?",
          ]);
        } finally {
          await rm(home, { recursive: true, force: true });
        }
        const calls = await captures(d, "claude-affinity", 2);
        const messages = calls.filter((c) => c.endpoint === "messages");
        expect(messages.length).toBeGreaterThanOrEqual(2);
        expect(new Set(messages.map((c) => c.route)).size).toBe(1);
        for (const c of messages) expect(c.arm_source).toBe("affinity");
        console.log(
          `claude -p, one session in two runs (${label}): ${messages.length} calls, all on ${messages[0].route}`,
        );
      },
      clientTimeoutMs,
    );

    it(
      "Codex CLI names its conversation (session_id, prompt_cache_key); /v1/responses is never routed",
      async () => {
        const d = get();
        const config = (await readmeCodexConfig(d.gateways[0]!)).replace(
          'http_headers = { "x-gateway-project" = "default" }',
          'http_headers = { "x-gateway-project" = "default", "x-gateway-workload" = "codex-affinity" }',
        );
        expect(config).toContain("codex-affinity");
        const ran = await codexExec(config, org.apiKey, "Name a prime above 90.");
        expect(ran.code, ran.output).toBe(0);
        const calls = await captures(d, "codex-affinity", 1);
        for (const c of calls)
          expect({ route: c.route, arm_source: c.arm_source }).toEqual({ route: "primary" });
        const keys = new Set(calls.map((c) => JSON.parse(c.request_body).prompt_cache_key));
        expect(keys.size).toBe(1);
        expect([...keys][0]).toEqual(expect.any(String));
        console.log(`codex exec (${label}): ${calls.length} call(s), one prompt_cache_key, served as asked`);
      },
      clientTimeoutMs,
    );
  });
}
