import type { Json } from "@gateway/testkit";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlaneApp } from "../src/app.ts";
import type { Services } from "../src/services/context.ts";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

/**
 * The API routes Hono actually mounts (middleware entries are `ALL`), as `METHOD /path`; the
 * console's HTML pages under `/console` are no part of the JSON API the document describes.
 */
function mountedRoutes(): string[] {
  // Building the app touches no service; handlers are never called here.
  const app = createControlPlaneApp({} as Services);
  const api = app.routes.filter((r) => r.method !== "ALL" && !r.path.startsWith("/console"));
  return [...new Set(api.map((r) => `${r.method} ${r.path}`))].sort();
}

describe("OpenAPI document and reference page", () => {
  let h: ControlPlaneHarness;
  let doc: Json;
  beforeAll(async () => {
    h = await startControlPlane();
    doc = await (await fetch(`${h.url}/openapi.json`)).json();
  });
  afterAll(() => h.close());

  it("lists every mounted route, and nothing else", () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const mounted = mountedRoutes()
      .map((r) => r.replace(/:([A-Za-z0-9_]+)/g, "{$1}"))
      .sort();
    expect(documented).toEqual(mounted);
  });

  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("carries the zod constraints: limits, patterns, tri-state model_id, strict bodies", () => {
    const list = doc.paths["/admin/v1/orgs/{org_id}/projects"].get;
    const limit = list.parameters.find((p: Json) => p.name === "limit");
    expect(limit).toMatchObject({ in: "query", required: false });
    const patch = doc.paths["/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}"].patch;
    const body = patch.requestBody.content["application/json"].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.route_traffic_pct).toMatchObject({ minimum: 0, maximum: 100 });
    expect(body.properties.capture_sample_rate).toMatchObject({ minimum: 0, maximum: 1 });
    expect(body.properties.model_id.type ?? body.properties.model_id.anyOf).toBeDefined();
    expect(patch.responses["422"]).toBeDefined();
    expect(patch.security).toEqual([{ orgKey: [] }]);
    expect(doc.paths["/operator/v1/orgs"].post.security).toEqual([{ operator: [] }]);
  });

  it("documents the limits of a key, a project and a workload: GET and a strict PUT each", () => {
    const paths = [
      "/admin/v1/orgs/{org_id}/api_keys/{key_id}/limits",
      "/admin/v1/orgs/{org_id}/projects/{project_id}/limits",
      "/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}/limits",
    ];
    for (const path of paths) {
      const { get, put } = doc.paths[path];
      expect([get.tags, put.tags], path).toEqual([["Limits"], ["Limits"]]);
      expect(put.security).toEqual([{ orgKey: [] }]);
      const body = put.requestBody.content["application/json"].schema;
      expect(put.requestBody.required).toBe(false);
      expect(body.additionalProperties).toBe(false);
      expect(body.properties.requests_per_minute).toEqual({
        type: ["integer", "null"],
        minimum: 1,
        maximum: 1_000_000_000,
      });
      const budget = body.properties.budget;
      expect(budget.type).toEqual(["object", "null"]);
      expect(budget.properties.usd).toMatchObject({ type: "string", pattern: expect.any(String) });
      expect(budget.properties.period.enum).toEqual(["day", "month"]);
      expect(Object.keys(get.responses["200"].content["application/json"].schema.properties)).toEqual([
        "scope",
        "scope_id",
        "requests_per_minute",
        "tokens_per_minute",
        "max_concurrent",
        "budget",
        "updated_at",
      ]);
    }
  });

  it("documents Idempotency-Key on the creates, and only there, with its replay header and refusals", () => {
    const idempotent: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const header = (op.parameters ?? []).find((p: Json) => p.name === "Idempotency-Key");
        if (!header) continue;
        idempotent.push(`${method.toUpperCase()} ${path}`);
        expect(header).toMatchObject({
          in: "header",
          required: false,
          schema: { minLength: 1, maxLength: 255 },
        });
        const success = Object.entries(op.responses as Record<string, Json>).find(([s]) => Number(s) < 300)!;
        expect(success[1].headers["Idempotent-Replayed"]).toBeDefined();
        expect(op.responses["409"].description).toContain("idempotency_in_progress");
        expect(op.responses["422"].description).toContain("idempotency_key_reused");
      }
    }
    expect(idempotent.sort()).toEqual([
      "POST /admin/v1/orgs/{org_id}/api_keys",
      "POST /admin/v1/orgs/{org_id}/projects",
      "POST /admin/v1/orgs/{org_id}/projects/default",
      "POST /customer/v1/orgs/{org_id}/projects/{project_id}/workloads",
      "POST /operator/v1/orgs",
    ]);
    // the route's own conflict is still said
    expect(doc.paths["/admin/v1/orgs/{org_id}/projects"].post.responses["409"].description).toContain("slug");
    const orgCreated = doc.paths["/operator/v1/orgs"].post;
    const header = orgCreated.parameters.find((p: Json) => p.name === "Idempotency-Key");
    expect(header.description).toContain("`api_key.value` is null");
  });

  it("serves a self-contained HTML reference of every route", async () => {
    const res = await fetch(`${h.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const page = await res.text();
    expect(page).not.toMatch(/<script|<link|https?:\/\/(?!127\.)/i);
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) {
        expect(page, `${method} ${path}`).toContain(`${method.toUpperCase()} ${path.replace(/&/g, "&amp;")}`);
      }
    }
  });
});
