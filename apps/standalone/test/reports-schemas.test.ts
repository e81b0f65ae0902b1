import { replaceCatalogModel, writeWorkloadChanges } from "@gateway/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  callCostRecord,
  compactStatusRecord,
  limitsStatusRecord,
  providerHealthRecord,
  routingStatusRecord,
  usageSummaryRecord,
  workloadStatusRecord,
} from "../../control-plane/src/routes/reports/schemas.ts";
import { type Harness, type Json, startHarness, untilCosted } from "./harness.ts";

/**
 * The report routes answer exactly their documented records: every response parses against its
 * (strict) schema, so a field added or renamed in a builder without the schema fails here, and
 * /openapi.json carries those schemas.
 */
describe("report response schemas", () => {
  let h: Harness;
  const requestIds: string[] = [];
  let doc: Json;

  const project = (path: string) => `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}${path}`;

  async function call(endpoint: "messages" | "chat", headers: Record<string, string> = {}) {
    const messages = [{ role: "user", content: `call ${requestIds.length}` }];
    const res = await fetch(
      h.gateway.url + (endpoint === "messages" ? "/v1/messages" : "/v1/chat/completions"),
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "x-gateway-upstream-key": "sk-up",
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify(
          endpoint === "messages"
            ? { model: "claude-sonnet-5", max_tokens: 16, messages }
            : { model: "gpt-5.4-mini", messages },
        ),
      },
    );
    await res.arrayBuffer();
    requestIds.push(res.headers.get("x-gateway-request-id") ?? "");
    return res.status;
  }

  beforeAll(async () => {
    h = await startHarness();
    const { db } = h.gateway.internals;
    // A routed (but unused) workload, so routing-status and workload-status carry a declared route.
    const routed = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "routed",
    });
    await replaceCatalogModel(db, "gw-schema", {
      displayName: "Schema",
      active: true,
      deployments: [
        {
          providerLabel: "managed",
          wireFormat: "chat_completions",
          baseUrl: "http://127.0.0.1:9",
          upstreamModel: "m",
          credentialEnv: "X",
          priority: 0,
        },
      ],
    });
    await writeWorkloadChanges(db, routed.json.id, { routeModelId: "gw-schema", routeTrafficPct: 40 });

    expect(await call("messages")).toBe(200);
    expect(await call("chat")).toBe(200);
    expect(await call("messages", { "x-mock-status": "500" })).toBe(500);
    await untilCosted(h.gateway, requestIds);
    doc = await (await fetch(`${h.gateway.url}/openapi.json`)).json();
  });
  afterAll(() => h.close());

  const reports: [string, z.ZodType, () => string][] = [
    ["/projects/{project_id}/routing-status", routingStatusRecord, () => project("/routing-status")],
    ["/projects/{project_id}/provider-health", providerHealthRecord, () => project("/provider-health")],
    ["/projects/{project_id}/status", compactStatusRecord, () => project("/status?window=1h")],
    ["/projects/{project_id}/workload-status", workloadStatusRecord, () => project("/workload-status")],
    [
      "/projects/{project_id}/usage-summary",
      usageSummaryRecord,
      () => project("/usage-summary?group_by=day,model,workload"),
    ],
    ["/projects/{project_id}/limits-status", limitsStatusRecord, () => project("/limits-status")],
    [
      "/calls/{correlation_id}/cost",
      callCostRecord,
      () => `/admin/v1/orgs/${h.orgId}/calls/${requestIds[0]}/cost`,
    ],
  ];

  it.each(reports)("%s answers its strict schema and documents it", async (path, schema, url) => {
    const res = await h.cp("GET", url());
    expect(res.status).toBe(200);
    const parsed = schema.safeParse(res.json);
    expect(parsed.error?.issues ?? []).toEqual([]);
    // Strictness is what catches drift: an extra field is refused.
    expect(schema.safeParse({ ...res.json, not_in_the_schema: 1 }).success).toBe(false);

    const documented =
      doc.paths[`/admin/v1/orgs/{org_id}${path}`].get.responses["200"].content["application/json"].schema;
    expect(documented.type).toBe("object");
    expect(documented.additionalProperties).toBe(false);
    expect(Object.keys(documented.properties).sort()).toEqual(Object.keys(res.json).sort());
  });

  it("covers the nullable and populated branches", async () => {
    const health = (await h.cp("GET", project("/provider-health"))).json;
    expect(health.providers.some((p: Json) => p.last_failing_at !== null)).toBe(true);
    const status = (await h.cp("GET", project("/workload-status"))).json;
    expect(status.workloads.map((w: Json) => w.status).sort()).toEqual(["degraded", "idle"]);
    expect(status.workloads.some((w: Json) => w.last_error_at !== null)).toBe(true);
    const routing = (await h.cp("GET", project("/routing-status"))).json;
    expect(routing.workloads.map((w: Json) => w.route_mode).sort()).toEqual(["gateway", "passthrough"]);
    expect(workloadStatusRecord.safeParse(status).success).toBe(true);

    const errorCost = (await h.cp("GET", `/admin/v1/orgs/${h.orgId}/calls/${requestIds[2]}/cost`)).json;
    expect(errorCost.pricing_status).toBe("unpriced");
    expect(callCostRecord.safeParse(errorCost).error?.issues ?? []).toEqual([]);
    const priced = (await h.cp("GET", `/admin/v1/orgs/${h.orgId}/calls/${requestIds[1]}/cost`)).json;
    expect(priced.pricing_status).toBe("priced");
    expect(callCostRecord.safeParse(priced).error?.issues ?? []).toEqual([]);
  });
});
