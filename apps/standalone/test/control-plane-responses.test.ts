import { randomUUID } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deployment,
  eventually,
  type Harness,
  type Json,
  operatorToken,
  price,
  startHarness,
} from "./harness.ts";

/**
 * Every operation /openapi.json publishes is called over HTTP, and each answer is checked
 * against the schema the document gives for its status (a JSON Schema 2020-12 validator, not
 * zod: what is checked is the published contract). An answer with an undocumented status, a
 * body its schema refuses, or a documented operation left uncalled fails the test.
 */
describe("every control-plane route answers what /openapi.json publishes", () => {
  let h: Harness;
  let doc: Json;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const called = new Set<string>();

  type Ids = Record<string, string>;
  interface Call {
    ids?: Ids;
    body?: unknown;
    /** Default: the harness org's key. */
    key?: string;
    headers?: Record<string, string>;
  }

  /** Calls `method template` with its `{param}`s filled from `ids`, and checks the answer. */
  async function call(method: string, template: string, options: Call = {}) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.ids?.[name];
      if (value === undefined) throw new Error(`no id for {${name}} in ${template}`);
      return encodeURIComponent(value);
    });
    const res = await fetch(h.gateway.url + path, {
      method,
      headers: {
        authorization: `Bearer ${options.key ?? h.apiKey}`,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    const operation = `${method} ${template.split("?")[0]}`;
    const documented = doc.paths[template.split("?")[0]!]?.[method.toLowerCase()];
    expect(documented, `${operation} is not in /openapi.json`).toBeDefined();
    const answer = documented.responses[String(res.status)];
    expect(answer, `${operation} answered an undocumented ${res.status}: ${text}`).toBeDefined();
    const schema = answer.content?.["application/json"]?.schema;
    let json: Json = null;
    if (schema) {
      json = JSON.parse(text);
      // the document's components travel with the schema, so its `#/components/...` refs resolve
      const validate = ajv.compile({ ...schema, components: doc.components });
      expect(validate(json) ? [] : validate.errors, `${operation} ${res.status}: ${text}`).toEqual([]);
    } else if (res.status === 204) {
      expect(text, operation).toBe("");
    }
    called.add(operation);
    return { status: res.status, json, text, headers: res.headers };
  }

  const operator = (method: string, template: string, options: Call = {}) =>
    call(method, template, { ...options, key: operatorToken });

  beforeAll(async () => {
    h = await startHarness();
    doc = await (await fetch(`${h.gateway.url}/openapi.json`)).json();
  });
  afterAll(() => h.close());

  it("the public routes", async () => {
    expect((await call("GET", "/openapi.json")).json.openapi).toBe("3.1.0");
    const docs = await call("GET", "/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toContain("text/html");
    expect((await call("GET", "/livez")).status).toBe(200);
    expect((await call("GET", "/readyz")).status).toBe(200);
  });

  it("the operator routes", async () => {
    const org = await operator("POST", "/operator/v1/orgs", { body: { name: "schema org" } });
    expect(org.status).toBe(201);
    expect((await operator("GET", "/operator/v1/orgs")).json.orgs.length).toBe(2);

    const model = { model_id: "schema-model" };
    const catalog = {
      display_name: "Schema model",
      deployments: [
        deployment("messages", "https://upstream.example", "up-large", "GATEWAY_UPSTREAM_KEY_MANAGED_A"),
      ],
    };
    const put = (body: unknown) => operator("PUT", "/operator/v1/models/{model_id}", { ids: model, body });
    expect((await put(catalog)).status).toBe(201);
    expect((await put(catalog)).status).toBe(200);
    expect((await put({ display_name: "" })).status).toBe(400);
    expect((await operator("GET", "/operator/v1/models")).status).toBe(200);
    expect((await operator("GET", "/operator/v1/models/{model_id}", { ids: model })).status).toBe(200);
    const missing = await operator("GET", "/operator/v1/models/{model_id}", { ids: { model_id: "none" } });
    expect(missing.status).toBe(404);

    expect((await operator("POST", "/operator/v1/prices", { body: price })).status).toBe(201);
    expect((await operator("POST", "/operator/v1/prices", { body: price })).status).toBe(409);
    expect((await operator("GET", "/operator/v1/prices", {})).json.prices.length).toBeGreaterThan(0);
    expect((await call("GET", "/operator/v1/prices")).status).toBe(401);

    const retention = "/operator/v1/orgs/{org_id}/retention";
    const ids = { org_id: org.json.org.id };
    expect((await operator("GET", retention, { ids })).json.calls_days).toBe(90);
    const set = await operator("PUT", retention, { ids, body: { calls_days: 7, captures_days: 3 } });
    expect(set.json).toMatchObject({ calls_days: 7, captures_days: 3 });
    expect((await operator("PUT", retention, { ids, body: { calls_days: 0 } })).status).toBe(400);
    expect((await operator("GET", retention, { ids: { org_id: "org_none" } })).status).toBe(404);
  });

  it("the admin routes", async () => {
    const org = { org_id: h.orgId };
    const project = { ...org, project_id: h.projectId };

    expect((await call("GET", "/admin/v1/orgs/{org_id}/api_keys", { ids: org })).status).toBe(200);
    const idempotencyKey = { "idempotency-key": randomUUID() };
    const create = () =>
      call("POST", "/admin/v1/orgs/{org_id}/api_keys", {
        ids: org,
        body: { name: "spare" },
        headers: idempotencyKey,
      });
    const key = await create();
    expect(key.status).toBe(201);
    const replay = await create();
    expect([replay.headers.get("idempotent-replayed"), replay.json.value]).toEqual(["true", null]);

    const projects = "/admin/v1/orgs/{org_id}/projects";
    expect((await call("GET", projects, { ids: org })).status).toBe(200);
    const created = { slug: "schema-proj", name: "Schema" };
    expect((await call("POST", projects, { ids: org, body: created })).status).toBe(201);
    expect((await call("POST", projects, { ids: org, body: created })).status).toBe(409);
    expect((await call("POST", `${projects}/default`, { ids: org })).status).toBe(200);
    const slug = { ...org, slug: "schema-proj" };
    expect((await call("GET", `${projects}/{slug}`, { ids: slug })).status).toBe(200);
    expect((await call("PATCH", `${projects}/{slug}`, { ids: slug, body: { name: "Renamed" } })).status).toBe(
      200,
    );

    expect((await call("GET", "/admin/v1/orgs/{org_id}/models", { ids: org })).json).toHaveLength(1);
    const workloads = (
      await call("GET", "/customer/v1/orgs/{org_id}/projects/{project_id}/workloads", { ids: project })
    ).json.workloads;
    const workload = { ...project, workload_id: workloads[0].id };
    const dial = "/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}";
    const route = await call("PUT", `${dial}/route`, {
      ids: workload,
      body: { model_id: "schema-model", route_traffic_pct: 50 },
    });
    expect(route.status).toBe(200);
    const unknownModel = await call("PUT", `${dial}/route`, { ids: workload, body: { model_id: "none" } });
    expect(unknownModel.status).toBe(422);
    expect((await call("PATCH", dial, { ids: workload, body: { model_id: null } })).status).toBe(200);

    const limits = { max_concurrent: 5, budget: { usd: "10", period: "day", applies_to: "all" } };
    const scopes: [string, Ids][] = [
      ["/admin/v1/orgs/{org_id}/api_keys/{key_id}/limits", { ...org, key_id: key.json.metadata.id }],
      ["/admin/v1/orgs/{org_id}/projects/{project_id}/limits", project],
      [`${dial}/limits`, workload],
    ];
    for (const [template, ids] of scopes) {
      expect((await call("GET", template, { ids })).json.max_concurrent).toBeNull();
      expect((await call("PUT", template, { ids, body: limits })).json.max_concurrent).toBe(5);
    }

    // a call, so that the reports have traffic to describe and a cost to show
    expect(await h.chat(h.apiKey)).toBe(200);
    const capture = await eventually(async () => {
      const res = await call("GET", "/customer/v1/orgs/{org_id}/projects/{project_id}/captures", {
        ids: project,
      });
      return res.json.captures[0];
    });
    const cost = await eventually(async () => {
      const res = await call("GET", "/admin/v1/orgs/{org_id}/calls/{correlation_id}/cost", {
        ids: { ...org, correlation_id: capture.request_id },
      });
      return res.status === 200 ? res.json : undefined;
    }, 10_000);
    expect(cost.request_id).toBe(capture.request_id);
    const reports = "/admin/v1/orgs/{org_id}/projects/{project_id}";
    for (const report of [
      "routing-status",
      "provider-health",
      "status",
      "workload-status",
      "usage-summary",
      "limits-status",
    ]) {
      expect((await call("GET", `${reports}/${report}`, { ids: project })).status, report).toBe(200);
    }
    expect((await call("GET", `${reports}/usage-summary?group_by=nope`, { ids: project })).status).toBe(400);
    // the console's API: the call log, one call with its cost's provenance, the time series
    const log = await call("GET", `${reports}/calls`, { ids: project });
    expect(log.json.calls.map((c: { request_id: string }) => c.request_id)).toContain(capture.request_id);
    expect((await call("GET", `${reports}/calls?status=bogus`, { ids: project })).status).toBe(400);
    const one = await call("GET", `${reports}/calls/{request_id}`, {
      ids: { ...project, request_id: capture.request_id },
    });
    expect(one.json.request_id).toBe(capture.request_id);
    const absent = await call("GET", `${reports}/calls/{request_id}`, {
      ids: { ...project, request_id: "req_none" },
    });
    expect(absent.status).toBe(404);
    expect((await call("GET", `${reports}/timeseries?window=day`, { ids: project })).json.time_zone).toBe(
      "UTC",
    );

    expect((await call("DELETE", `${projects}/{slug}`, { ids: slug })).status).toBe(204);
    const revoke = { ...org, key_id: key.json.metadata.id };
    expect((await call("DELETE", "/admin/v1/orgs/{org_id}/api_keys/{key_id}", { ids: revoke })).status).toBe(
      204,
    );
  });

  it("the customer routes", async () => {
    const project = { org_id: h.orgId, project_id: h.projectId };
    const workloads = "/customer/v1/orgs/{org_id}/projects/{project_id}/workloads";
    const listed = await call("GET", workloads, { ids: project });
    const main = { ...project, workload_id: listed.json.workloads[0].id };
    const created = await call("POST", workloads, { ids: project, body: { name: "schema-wl" } });
    expect(created.status).toBe(201);
    const workload = { ...project, workload_id: created.json.id };
    const renamed = await call("PATCH", `${workloads}/{workload_id}`, {
      ids: workload,
      body: { name: "schema-wl-2", capture_enabled: false },
    });
    expect(renamed.status).toBe(200);
    expect((await call("DELETE", `${workloads}/{workload_id}`, { ids: main })).status).toBe(409);
    expect((await call("DELETE", `${workloads}/{workload_id}`, { ids: workload })).status).toBe(204);

    const captures = "/customer/v1/orgs/{org_id}/projects/{project_id}/captures";
    const page = await call("GET", `${captures}?limit=1`, { ids: project });
    expect(page.json.captures).toHaveLength(1);
    const request = { ...project, request_id: page.json.captures[0].request_id };
    expect((await call("GET", `${captures}/{request_id}`, { ids: request })).status).toBe(200);
    const byWorkload = await call("GET", `${workloads}/{workload_id}/captures`, { ids: main });
    expect(byWorkload.json.captures.length).toBeGreaterThan(0);
  });

  it("left no documented operation uncalled", () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((operation) => !called.has(operation))).toEqual([]);
  });
});
