import { request } from "undici";
import { beforeAll, expect, it } from "vitest";
import type { Deployment } from "./deployments.ts";
import { chatBody, gatewayCall, within } from "./traffic.ts";

export interface TestOrg {
  orgId: string;
  apiKey: string;
  projectId: string;
}

/**
 * A fresh organisation through the operator API, the same way on every deployment, its key
 * answering on every gateway before a test's first burst.
 */
export async function createTestOrg(d: Deployment): Promise<TestOrg> {
  const res = await d.cp("POST", "/operator/v1/orgs", { name: `e2e ${Date.now()}` });
  expect(res.status).toBe(201);
  const org = {
    orgId: res.json.org.id,
    apiKey: res.json.api_key.value,
    projectId: res.json.default_project.id,
  };
  for (const g of d.gateways)
    await within(10_000, async () => {
      const models = await fetch(`${g}/v1/models`, { headers: { authorization: `Bearer ${org.apiKey}` } });
      await models.arrayBuffer();
      return models.status === 200 ? true : undefined;
    });
  return org;
}

const messagesBody = (stream: boolean) => ({
  model: "claude-sonnet-5",
  max_tokens: 64,
  stream,
  messages: [{ role: "user", content: "héllo ✓ e2e" }],
});

/** The bytes the provider mock sends for `body` when asked directly (its answers are a pure function of the request). */
async function direct(d: Deployment, path: "/v1/messages" | "/v1/chat/completions", body: object) {
  const base = path === "/v1/messages" ? d.mocks.providerA.url : d.mocks.providerB.url;
  const res = await request(base + path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": "sk-upstream-e2e",
      authorization: "Bearer sk-upstream-e2e",
    },
    body: JSON.stringify(body),
  });
  return res.body.text();
}

/**
 * How soon after its answer a call's capture must be listed. The split capture writer's fetch
 * waits up to 1 s for fuller segments (GATEWAY_CAPTURE_FETCH_MAX_WAIT_MS), so a capture is
 * listed ~1 s after its call at a trickle (the secured run's slowest: ~1.1 s). The rest is room
 * for three brokers' JVMs, replication and five apps sharing CI's two cores: at 2 s one run in
 * many missed it.
 */
const captureListedWithinMs = 3_000;

/**
 * The scenarios every deployment must pass, registered into the caller's describe block:
 * BYO passthrough (JSON and SSE, both providers) on every gateway, captures listed within 3 s
 * (`captureListedWithinMs`) with identical bytes, and a revoked key or deleted project refused by every gateway within 2 s.
 */
export function deploymentScenarios(get: () => Deployment, label: string): void {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createTestOrg(get());
  });

  const cases = [
    ["/v1/messages", messagesBody(false)],
    ["/v1/messages", messagesBody(true)],
    ["/v1/chat/completions", chatBody(1, false)],
    ["/v1/chat/completions", { ...chatBody(2, true), stream_options: { include_usage: true } }],
  ] as const;

  it("passes JSON and SSE through byte for byte on every gateway, both providers", async () => {
    const d = get();
    for (const gateway of d.gateways) {
      for (const [path, body] of cases) {
        const reply = await gatewayCall(gateway, org.apiKey, path, body);
        expect(reply.status, `${path} stream=${body.stream}`).toBe(200);
        expect(reply.text).toBe(await direct(d, path, body));
      }
    }
  });

  it("lists each call's capture within 3 s, holding the exact bytes", async () => {
    const d = get();
    const project = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;
    let slowest = 0;
    for (const gateway of d.gateways) {
      for (const [path, body] of cases) {
        const reply = await gatewayCall(gateway, org.apiKey, path, body);
        const sent = Date.now();
        await within(captureListedWithinMs, async () => {
          const list = await d.cp("GET", `${project}/captures?limit=50`, undefined, org.apiKey);
          return list.json?.captures?.some((c: { request_id: string }) => c.request_id === reply.requestId)
            ? true
            : undefined;
        }).catch((error) => {
          d.dumpLogs();
          throw new Error(`${gateway}${path} stream=${body.stream}: capture not listed: ${error}`);
        });
        slowest = Math.max(slowest, Date.now() - sent);
        const envelope = await d.cp("GET", `${project}/captures/${reply.requestId}`, undefined, org.apiKey);
        expect(envelope.status).toBe(200);
        expect(envelope.json.request_body).toBe(JSON.stringify(body));
        expect(envelope.json.response_body).toBe(reply.text);
      }
    }
    console.log(`${label}: ${d.gateways.length * cases.length} captures listed, slowest after ${slowest} ms`);
  });

  it("captures a 30 MiB request body whole", async () => {
    const d = get();
    const project = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;
    // the biggest body the gateway accepts is 32 MiB; its capture event travels whole (see docs/decisions.md)
    const body = { ...chatBody(7), messages: [{ role: "user", content: "x".repeat(30 * 1024 * 1024) }] };
    const reply = await gatewayCall(d.gateways[0]!, org.apiKey, "/v1/chat/completions", body);
    expect(reply.status).toBe(200);
    const sent = Date.now();
    const envelope = await within(
      30_000,
      async () => {
        const res = await d.cp("GET", `${project}/captures/${reply.requestId}`, undefined, org.apiKey);
        return res.status === 200 ? res.json : undefined;
      },
      200,
    );
    expect(envelope.request_body.length).toBe(JSON.stringify(body).length);
    expect(envelope.request_body === JSON.stringify(body)).toBe(true);
    expect(envelope.response_body).toBe(reply.text);
    console.log(`${label}: a 30 MiB capture readable ${Date.now() - sent} ms after the response`);
  }, 60_000);

  it("refuses a revoked key on every gateway within 2 s", async () => {
    const d = get();
    const key = await createApiKey(d, org);
    for (const gateway of d.gateways) {
      expect((await gatewayCall(gateway, key.value, "/v1/chat/completions", chatBody(3))).status).toBe(200);
    }
    const refusedAfter = await revokeApiKey(d, org, key);
    console.log(
      `${label}: revoked key refused by ${d.gateways.length} gateway(s) after ${refusedAfter.join(", ")} ms`,
    );
  });

  it("refuses a deleted project on every gateway within 2 s", async () => {
    const d = get();
    const admin = `/admin/v1/orgs/${org.orgId}`;
    const slug = `doomed-${Date.now()}`;
    expect((await d.cp("POST", `${admin}/projects`, { slug, name: "Doomed" }, org.apiKey)).status).toBe(201);
    const asProject = { "x-gateway-project": slug };
    for (const gateway of d.gateways) {
      const ok = await within(2_000, async () => {
        const r = await gatewayCall(gateway, org.apiKey, "/v1/chat/completions", chatBody(5), asProject);
        return r.status === 200 ? r : undefined;
      });
      expect(ok.status).toBe(200);
    }
    const deleted = Date.now();
    expect((await d.cp("DELETE", `${admin}/projects/${slug}`, undefined, org.apiKey)).status).toBe(204);
    const refusedAfter = await Promise.all(
      d.gateways.map((gateway) =>
        within(2_000, async () => {
          const r = await gatewayCall(gateway, org.apiKey, "/v1/chat/completions", chatBody(6), asProject);
          return r.status === 404 ? Date.now() - deleted : undefined;
        }),
      ),
    );
    console.log(
      `${label}: deleted project refused by ${d.gateways.length} gateway(s) after ${refusedAfter.join(", ")} ms`,
    );
  });
}

/** A new API key of the org's, through the admin API. */
export async function createApiKey(d: Deployment, org: TestOrg): Promise<{ id: string; value: string }> {
  const created = await d.cp("POST", `/admin/v1/orgs/${org.orgId}/api_keys`, {}, org.apiKey);
  expect(created.status).toBe(201);
  return { id: created.json.metadata.id, value: created.json.value };
}

/** Revokes `key` through the admin API; resolves with how long after it each gateway refused the key (at most 2 s). */
export async function revokeApiKey(d: Deployment, org: TestOrg, key: { id: string; value: string }) {
  const revoked = Date.now();
  const res = await d.cp("DELETE", `/admin/v1/orgs/${org.orgId}/api_keys/${key.id}`, undefined, org.apiKey);
  expect(res.status).toBe(204);
  return Promise.all(
    d.gateways.map((gateway) =>
      within(2_000, async () => {
        const r = await gatewayCall(gateway, key.value, "/v1/chat/completions", chatBody(4));
        return r.status === 401 ? Date.now() - revoked : undefined;
      }),
    ),
  );
}
