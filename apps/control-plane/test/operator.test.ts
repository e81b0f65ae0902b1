import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CatalogModelEntry, configKeys } from "@gateway/cache";
import { testStores } from "@gateway/db/testing";
import { type Json, price } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

const deployment = {
  provider_label: "provider_a",
  wire_format: "messages",
  base_url: "https://upstream.example",
  upstream_model: "up-large",
  credential_env: "GATEWAY_UPSTREAM_KEY_MANAGED_A",
};

describe.each(testStores())("control plane: operator surface (%s)", (store) => {
  let h: ControlPlaneHarness;
  let catalogFile: string;
  beforeAll(async () => {
    catalogFile = join(tmpdir(), `catalog-${process.pid}-${store}.json`);
    await writeFile(
      catalogFile,
      JSON.stringify({
        models: [
          {
            id: "file-model",
            display_name: "From file",
            deployments: [
              { ...deployment, priority: 5 },
              { ...deployment, upstream_model: "up-first", priority: 1 },
            ],
          },
        ],
      }),
    );
    h = await startControlPlane({ store, catalogFile });
  });
  afterAll(() => h.close());

  it("loads the catalog file at start through the same upsert, deployments by priority", async () => {
    const res = await h.op("GET", "/operator/v1/models/file-model");
    expect(res.status).toBe(200);
    expect(res.json.deployments.map((d: Json) => d.upstream_model)).toEqual(["up-first", "up-large"]);
    const entry = await h.cache.get<CatalogModelEntry>(configKeys.catalogModel("file-model"));
    expect(entry?.deployments.map((d) => d.priority)).toEqual([1, 5]);
    expect(entry?.deployments[0]?.credentialEnv).toBe("GATEWAY_UPSTREAM_KEY_MANAGED_A");
  });

  it("creates, replaces and withdraws catalog models; deployment ids survive an identical replace", async () => {
    const created = await h.op("PUT", "/operator/v1/models/m-1", {
      display_name: "M 1",
      deployments: [deployment],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: "m-1",
      active: true,
      deployments: [{ id: expect.stringMatching(/^dep_/) }],
    });
    const again = await h.op("PUT", "/operator/v1/models/m-1", {
      display_name: "M one",
      deployments: [deployment],
    });
    expect(again.status).toBe(200);
    expect(again.json.deployments[0].id).toBe(created.json.deployments[0].id);
    const off = await h.op("PUT", "/operator/v1/models/m-1", {
      display_name: "M one",
      active: false,
      deployments: [],
    });
    expect(off.json).toMatchObject({ active: false, deployments: [] });
    const list = (await h.op("GET", "/operator/v1/models")).json.models.map((m: Json) => m.id);
    expect(list).toEqual(expect.arrayContaining(["file-model", "m-1"]));
    expect((await h.cp("GET", `/admin/v1/orgs/${h.orgId}/models`)).json.map((m: Json) => m.id)).toEqual([
      "file-model",
    ]);
    expect((await h.op("GET", "/operator/v1/models/none")).status).toBe(404);
  });

  it("refuses bad catalog input, naming the field", async () => {
    const cases: [string, unknown, string][] = [
      ["m-2", { display_name: "x", deployments: [{ ...deployment, base_url: "ftp://x" }] }, "base_url"],
      [
        "m-2",
        { display_name: "x", deployments: [{ ...deployment, base_url: "https://u:p@host" }] },
        "base_url",
      ],
      ["m-2", { display_name: "x", deployments: [{ ...deployment, base_url: "not a url" }] }, "base_url"],
      [
        "m-2",
        { display_name: "x", deployments: [{ ...deployment, credential_env: "sk-live-secret" }] },
        "credential_env",
      ],
      // the process's own secrets and any variable outside the prefix are never a credential
      [
        "m-2",
        { display_name: "x", deployments: [{ ...deployment, credential_env: "GATEWAY_OPERATOR_TOKEN" }] },
        "credential_env",
      ],
      [
        "m-2",
        { display_name: "x", deployments: [{ ...deployment, credential_env: "HOME" }] },
        "credential_env",
      ],
      [
        "m-2",
        { display_name: "x", deployments: [{ ...deployment, provider_label: "other" }] },
        "provider_label",
      ],
      ["m-2", { display_name: "x", deployments: [{ ...deployment, priority: -1 }] }, "priority"],
      ["m-2", { display_name: "x", deployments: [{ ...deployment, api_key: "sk" }] }, "api_key"],
      ["m-2", { display_name: "", deployments: [] }, "display_name"],
      ["m-2", { display_name: "x" }, "deployments"],
      ["Upper", { display_name: "x", deployments: [] }, "model_id"],
    ];
    for (const [id, body, field] of cases) {
      const res = await h.op("PUT", `/operator/v1/models/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.message).toContain(field);
    }
    expect((await h.op("GET", "/operator/v1/models/m-2")).status).toBe(404);
  });

  it("adds and lists prices; a row for the same instant is a conflict", async () => {
    const added = await h.op("POST", "/operator/v1/prices", price);
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({
      id: expect.stringMatching(/^price_/),
      model: "claude-sonnet-5",
      effective_from: "2026-01-01T00:00:00.000Z",
      repricing: "queued",
    });
    expect(Number(added.json.cache_read_usd_per_mtok)).toBe(0.3);
    expect((await h.op("POST", "/operator/v1/prices", price)).status).toBe(409);
    const listed = await h.op("GET", "/operator/v1/prices?model=claude-sonnet-5");
    expect(listed.json.prices.map((p: Json) => p.id)).toContain(added.json.id);
    for (const [patch, field] of [
      [{ input_usd_per_mtok: 3 }, "input_usd_per_mtok"],
      [{ input_usd_per_mtok: "-1" }, "input_usd_per_mtok"],
      [{ output_usd_per_mtok: "1e3" }, "output_usd_per_mtok"],
      [{ output_usd_per_mtok: "NaN" }, "output_usd_per_mtok"],
      // more than 6 decimals: a cost would not be whole pico-dollars (docs/decisions.md)
      [{ cache_read_usd_per_mtok: "0.1234567" }, "cache_read_usd_per_mtok"],
      [{ effective_from: "yesterday" }, "effective_from"],
      [{ model: "" }, "model"],
      [{ margin: "1" }, "margin"],
    ] as const) {
      const res = await h.op("POST", "/operator/v1/prices", {
        ...price,
        effective_from: "2027-01-01T00:00:00Z",
        ...patch,
      });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.json.error.message).toContain(field);
    }
    expect((await h.op("GET", "/operator/v1/prices?model=claude-sonnet-5")).json.prices).toEqual(
      listed.json.prices,
    );
  });

  it("lists orgs page by page", async () => {
    await h.op("POST", "/operator/v1/orgs", { name: "second" });
    await h.op("POST", "/operator/v1/orgs", { name: "third" });
    const first = await h.op("GET", "/operator/v1/orgs?limit=2");
    expect(first.json.orgs).toHaveLength(2);
    const next = await h.op(
      "GET",
      `/operator/v1/orgs?limit=2&cursor=${encodeURIComponent(first.json.cursor)}`,
    );
    expect(next.json.orgs.map((o: Json) => o.name)).toContain("third");
    expect((await h.op("GET", "/operator/v1/orgs?cursor=abc")).status).toBe(400);
    expect((await h.cp("GET", "/operator/v1/orgs")).status).toBe(401);
  });

  it("sets an org's retention field by field; null goes back to the default", async () => {
    const org = (await h.op("POST", "/operator/v1/orgs", { name: "retention" })).json.org.id;
    const path = `/operator/v1/orgs/${org}/retention`;
    const defaults = { calls_days: 90, captures_days: 30, rollups_days: 400 };
    expect(await h.op("GET", path)).toMatchObject({ status: 200, json: defaults });
    expect(await h.op("PUT", path, { calls_days: 7, captures_days: 1 })).toMatchObject({
      status: 200,
      json: { calls_days: 7, captures_days: 1, rollups_days: 400 },
    });
    expect((await h.op("PUT", path, { captures_days: null })).json).toEqual({ ...defaults, calls_days: 7 });
    expect((await h.op("GET", path)).json).toEqual({ ...defaults, calls_days: 7 });

    // the rollups outlive the rows they sum, or a report would lose days it still shows
    const short = await h.op("PUT", path, { rollups_days: 6 });
    expect(short.status).toBe(400);
    expect(short.json.error.message).toMatch(/rollups_days \(6\) must be at least calls_days \(7\)/);
    for (const bad of [{ calls_days: 0 }, { calls_days: 1.5 }, { captures_days: 3651 }, { other: 1 }]) {
      expect((await h.op("PUT", path, bad)).status).toBe(400);
    }
    expect((await h.op("GET", "/operator/v1/orgs/org_none/retention")).status).toBe(404);
    expect((await h.op("PUT", "/operator/v1/orgs/org_none/retention", {})).status).toBe(404);
    expect((await h.cp("GET", path)).status).toBe(401);
  });
});
