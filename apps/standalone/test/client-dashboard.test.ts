import { readFile } from "node:fs/promises";
import { createGatewayClient, type GatewayClient, type GatewayError } from "@gateway/client";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, operatorToken, startHarness, untilCosted } from "./harness.ts";

// A dashboard backend on @gateway/client, over real HTTP to the running control plane. Every code
// block of packages/client/README.md is in this file, line for line (the last test checks it).

const credentials = { GATEWAY_UPSTREAM_KEY_CATALOG_B: "sk-operator-dashboard" };
const h = await startHarness({ credentials });
afterAll(() => h.close());
const { url: baseUrl } = h.gateway;
const { apiKey, orgId, projectId } = h;

const client = createGatewayClient({ baseUrl, apiKey });

/** An error answer of the control plane, with its status and request id. */
class ControlPlaneError extends Error {
  readonly status: number;
  readonly code: GatewayError["error"]["code"];
  readonly requestId: string | null;
  constructor(body: GatewayError, response: Response) {
    const requestId = response.headers.get("x-request-id");
    super(`${response.status} ${body.error.code}: ${body.error.message} (request ${requestId})`);
    this.status = response.status;
    this.code = body.error.code;
    this.requestId = requestId;
  }
}

/** The answer's data, or the error answer thrown as a ControlPlaneError. */
function ok<T>(answer: { data?: T; error?: GatewayError; response: Response }): T {
  if (answer.error) throw new ControlPlaneError(answer.error, answer.response);
  return answer.data as T;
}

/** Every live project of the org, following the cursor. */
async function listProjects(client: GatewayClient, orgId: string, pageSize = 100) {
  const projects = [];
  let cursor: string | undefined;
  do {
    const page = ok(
      await client.GET("/admin/v1/orgs/{org_id}/projects", {
        params: { path: { org_id: orgId }, query: { limit: String(pageSize), cursor } },
      }),
    );
    projects.push(...page.projects);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return projects;
}

/** A new project; `idempotencyKey` is the same on each retry of this one create. */
async function createProject(client: GatewayClient, orgId: string, slug: string, idempotencyKey: string) {
  return ok(
    await client.POST("/admin/v1/orgs/{org_id}/projects", {
      params: { path: { org_id: orgId }, header: { "Idempotency-Key": idempotencyKey } },
      body: { slug, name: slug },
    }),
  );
}

/** A new key: `value` is shown to the user now or never (null in a replay of the same create). */
async function createKey(client: GatewayClient, orgId: string, name: string, idempotencyKey: string) {
  const answer = await client.POST("/admin/v1/orgs/{org_id}/api_keys", {
    params: { path: { org_id: orgId }, header: { "Idempotency-Key": idempotencyKey } },
    body: { name },
  });
  const { value, metadata } = ok(answer);
  const replayed = answer.response.headers.get("Idempotent-Replayed") === "true";
  return { value, metadata, replayed };
}

/** The org's live keys: ids, names, masked values (`sk_...abcd`), last use. */
async function listKeys(client: GatewayClient, orgId: string) {
  return ok(await client.GET("/admin/v1/orgs/{org_id}/api_keys", { params: { path: { org_id: orgId } } }))
    .api_keys;
}

/** A new workload of the project, all of whose calls go to `modelId`. */
async function routedWorkload(
  client: GatewayClient,
  ids: { orgId: string; projectId: string },
  name: string,
  modelId: string,
) {
  const workload = ok(
    await client.POST("/customer/v1/orgs/{org_id}/projects/{project_id}/workloads", {
      params: { path: { org_id: ids.orgId, project_id: ids.projectId } },
      body: { name },
    }),
  );
  return ok(
    await client.PUT("/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}/route", {
      params: { path: { org_id: ids.orgId, project_id: ids.projectId, workload_id: workload.id } },
      body: { model_id: modelId, route_traffic_pct: 100 },
    }),
  );
}

/** One page of the project's captures; `cursor` is the previous page's, absent for the first. */
async function capturesPage(
  client: GatewayClient,
  ids: { orgId: string; projectId: string },
  pageSize: number,
  cursor?: string,
) {
  return ok(
    await client.GET("/customer/v1/orgs/{org_id}/projects/{project_id}/captures", {
      params: {
        path: { org_id: ids.orgId, project_id: ids.projectId },
        query: { limit: String(pageSize), cursor },
      },
    }),
  );
}

/** This week's usage of the project, one group per workload and model. */
async function weeklyUsage(client: GatewayClient, ids: { orgId: string; projectId: string }) {
  return ok(
    await client.GET("/admin/v1/orgs/{org_id}/projects/{project_id}/usage-summary", {
      params: {
        path: { org_id: ids.orgId, project_id: ids.projectId },
        query: { window: "7d", group_by: "workload,model" },
      },
    }),
  );
}

/** A BYO call through the gateway with `key`, on `workload` (the default one unless named). */
async function chat(key: string, workload?: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "x-gateway-upstream-key": "sk-caller-dashboard",
      ...(workload ? { "x-gateway-workload": workload } : {}),
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get("x-gateway-request-id")!;
}

/** The error a call threw, to assert on. */
async function failure(call: Promise<unknown>): Promise<ControlPlaneError> {
  const error = await call.then(
    () => expect.unreachable("the call succeeded"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ControlPlaneError);
  return error as ControlPlaneError;
}

describe("@gateway/client: a dashboard's calls against the running control plane", () => {
  const ids = { orgId, projectId };
  let newKey: string;
  const calls: string[] = [];

  it("creates projects once per Idempotency-Key, and lists them all page by page", async () => {
    const alphaKey = crypto.randomUUID();
    const alpha = await createProject(client, orgId, "alpha", alphaKey);
    expect(alpha).toMatchObject({ org_id: orgId, slug: "alpha", name: "alpha", deleted_at: null });
    // a retry of the same create answers the first project again
    expect(await createProject(client, orgId, "alpha", alphaKey)).toEqual(alpha);
    const beta = await createProject(client, orgId, "beta", crypto.randomUUID());

    const reused = await failure(createProject(client, orgId, "gamma", alphaKey));
    expect([reused.status, reused.code]).toEqual([422, "idempotency_key_reused"]);
    const taken = await failure(createProject(client, orgId, "beta", crypto.randomUUID()));
    expect([taken.status, taken.code]).toEqual([409, "conflict"]);
    expect(taken.requestId).toMatch(/^cpreq_/);

    const projects = await listProjects(client, orgId, 1);
    expect(projects.map((p) => p.id).sort()).toEqual([projectId, alpha.id, beta.id].sort());
    expect(projects.map((p) => p.slug).sort()).toEqual(["alpha", "beta", "default"]);
  });

  it("creates a key whose value is shown once: null in a replay, masked in the list", async () => {
    const idempotencyKey = crypto.randomUUID();
    const created = await createKey(client, orgId, "dashboard", idempotencyKey);
    expect(created.value).toMatch(/^sk_/);
    expect(created).toMatchObject({ metadata: { name: "dashboard", last_used_at: null }, replayed: false });
    newKey = created.value!;

    const replay = await createKey(client, orgId, "dashboard", idempotencyKey);
    expect(replay).toEqual({ value: null, metadata: created.metadata, replayed: true });

    const keys = await listKeys(client, orgId);
    const listed = keys.find((k) => k.id === created.metadata.id);
    expect(listed).toEqual(created.metadata);
    expect(listed!.obfuscated_value.slice(-4)).toBe(newKey.slice(-4));
    expect(JSON.stringify(keys)).not.toContain(newKey);
    expect(keys).toHaveLength(2); // the starter key and this one
  });

  it("routes a new workload to a catalog model, and the gateway serves it there", async () => {
    const operator = createGatewayClient({ baseUrl, operatorToken });
    const model = await operator.PUT("/operator/v1/models/{model_id}", {
      params: { path: { model_id: "dashboard-chat" } },
      body: {
        display_name: "Dashboard chat",
        deployments: [
          {
            provider_label: "provider_b",
            wire_format: "chat_completions",
            base_url: h.providerB.url,
            upstream_model: "gpt-5.4-nano",
            credential_env: "GATEWAY_UPSTREAM_KEY_CATALOG_B",
          },
        ],
      },
    });
    expect(model.response.status).toBe(201);

    const routed = await routedWorkload(client, ids, "agent", "dashboard-chat");
    expect(routed).toMatchObject({
      project_id: projectId,
      name: "agent",
      route_model_id: "dashboard-chat",
      route_traffic_pct: 100,
      capture_enabled: true,
      is_default: false,
    });

    calls.push(await chat(apiKey), await chat(newKey), await chat(newKey, "agent"));
    const served = h.providerB.requests.filter(
      (r) => r.headers.authorization === "Bearer sk-operator-dashboard",
    );
    expect(served.map((r) => JSON.parse(r.body.toString()).model)).toEqual(["gpt-5.4-nano"]);
  });

  it("pages through the captures one at a time, newest first", async () => {
    // a capture lists within a second or two of its call
    const whole = await eventually(async () => {
      const page = await capturesPage(client, ids, 100);
      return page.captures.length === 3 ? page.captures.map((c) => c.request_id) : undefined;
    }, 10_000);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await capturesPage(client, ids, 1, cursor);
      expect(page.captures).toHaveLength(1);
      expect(page.truncated).toBe(page.cursor !== null);
      seen.push(page.captures[0]!.request_id);
      cursor = page.cursor ?? undefined;
    } while (cursor);
    // newest first means last uploaded first: the capture writer writes a batch's objects at
    // once, so two calls close together may be uploaded in either order
    expect(seen).toEqual(whole);
    expect([...seen].sort()).toEqual([...calls].sort());

    const refused = await failure(capturesPage(client, ids, 0));
    expect([refused.status, refused.code]).toEqual([400, "bad_request"]);
    expect(refused.message).toContain("limit");
  });

  it("reads the usage summary: one group per workload and model", async () => {
    await untilCosted(h.gateway, calls);
    const usage = await weeklyUsage(client, ids);
    expect(usage).toMatchObject({ project_id: projectId, window: "7d", group_by: ["workload", "model"] });
    const groups = usage.groups.map((g) => ({ workload: g.workload, model: g.model, requests: g.requests }));
    expect(groups.sort((a, b) => a.workload!.localeCompare(b.workload!))).toEqual([
      { workload: "agent", model: "dashboard-chat", requests: 1 },
      { workload: "main", model: "gpt-5.4-mini", requests: 2 },
    ]);
    for (const g of usage.groups) {
      expect(g.input_tokens).toBeGreaterThan(0);
      expect(g.error_rate).toBe(0);
    }
  });

  it("runs the README's code as written", async () => {
    const readme = await readFile(new URL("../../../packages/client/README.md", import.meta.url), "utf8");
    const source = (await readFile(new URL(import.meta.url), "utf8")).split("\n").map((l) => l.trim());
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const block of blocks) {
      let at = 0;
      for (const line of block
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean)) {
        const found = source.indexOf(line, at);
        expect(found, `README line missing here, or out of order: ${line}`).toBeGreaterThanOrEqual(0);
        at = found + 1;
      }
    }
  });
});
