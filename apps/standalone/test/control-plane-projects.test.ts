import { captureIndexRows, testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, type Json, startHarness } from "./harness.ts";

/** Projects as a new user meets them: create, read back, list and page, rename, delete, re-create. */
describe.each(testStores())("control plane: projects (%s)", (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
  });
  afterAll(() => h.close());
  const admin = (path = "") => `/admin/v1/orgs/${h.orgId}${path}`;
  const listAll = async () => {
    const slugs: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const page = await h.cp("GET", admin(`/projects${q}`));
      expect(page.status).toBe(200);
      expect(page.json.projects.length).toBeLessThanOrEqual(2);
      slugs.push(...page.json.projects.map((p: Json) => p.slug));
      cursor = page.json.cursor;
    } while (cursor);
    return slugs;
  };

  it("creates, reads back, renames, soft-deletes and re-creates a slug", async () => {
    const created = await h.cp("POST", admin("/projects"), { slug: "web-app", name: "Web app" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^proj_/),
      org_id: h.orgId,
      slug: "web-app",
      name: "Web app",
      created_at: expect.any(String),
      settings: {},
      deleted_at: null,
    });
    expect((await h.cp("GET", admin("/projects/web-app"))).json).toEqual(created.json);

    // Its main workload exists at once and the gateway resolves the project by slug.
    const workloads = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${created.json.id}/workloads`);
    expect(workloads.json.workloads).toMatchObject([{ name: "main", is_default: true }]);
    expect(await h.chat(h.apiKey, { "x-gateway-project": "web-app" })).toBe(200);

    const dup = await h.cp("POST", admin("/projects"), { slug: "web-app", name: "Other" });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe("conflict");

    const renamed = await h.cp("PATCH", admin("/projects/web-app"), { name: "Storefront" });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({ ...created.json, name: "Storefront" });
    const slugChange = await h.cp("PATCH", admin("/projects/web-app"), { name: "x", slug: "new" });
    expect(slugChange.status).toBe(400);
    expect(slugChange.json.error.message).toContain("slug");

    expect((await h.cp("DELETE", admin("/projects/web-app"))).status).toBe(204);
    expect((await h.cp("GET", admin("/projects/web-app"))).status).toBe(404);
    expect((await h.cp("PATCH", admin("/projects/web-app"), { name: "y" })).status).toBe(404);
    expect((await h.cp("DELETE", admin("/projects/web-app"))).status).toBe(404);
    expect(await listAll()).not.toContain("web-app");
    // The deleted project stops resolving on the gateway, and its id is gone from the customer surface.
    await eventually(async () =>
      (await h.chat(h.apiKey, { "x-gateway-project": "web-app" })) === 404 ? true : undefined,
    );
    const gone = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${created.json.id}/workloads`);
    expect(gone.status).toBe(404);

    const again = await h.cp("POST", admin("/projects"), { slug: "web-app", name: "Web app 2" });
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(created.json.id);
    expect(await h.chat(h.apiKey, { "x-gateway-project": "web-app" })).toBe(200);
  });

  it("keeps the captures of a deleted project in storage", async () => {
    const p = (await h.cp("POST", admin("/projects"), { slug: "short-lived", name: "S" })).json;
    expect(await h.chat(h.apiKey, { "x-gateway-project": "short-lived" })).toBe(200);
    const captures = `/customer/v1/orgs/${h.orgId}/projects/${p.id}/captures`;
    const listed = await eventually(async () => {
      const res = await h.cp("GET", captures);
      return res.json.captures.length === 1 ? res.json.captures[0] : undefined;
    });
    expect((await h.cp("DELETE", admin("/projects/short-lived"))).status).toBe(204);
    expect((await h.cp("GET", captures)).status).toBe(404);
    // the capture's bytes are still where its index row says (the listed key is its logical name)
    const [row] = await captureIndexRows(h.gateway.internals.db, { requestIds: [listed.request_id] });
    const { readFile } = await import("node:fs/promises");
    const object = await readFile(`${h.dataDir}/blobs/${row!.key}`);
    const bytes = object.subarray(row!.offset ?? 0, (row!.offset ?? 0) + row!.size);
    expect(bytes.length).toBe(listed.size);
    expect(JSON.parse(bytes.toString("utf8")).request_id).toBe(listed.request_id);
  });

  it("pages live projects with a signed cursor and the interface's limits", async () => {
    for (const slug of ["p1", "p2", "p3", "p4", "p5"]) {
      expect((await h.cp("POST", admin("/projects"), { slug, name: slug })).status).toBe(201);
    }
    const slugs = await listAll();
    expect(slugs).toEqual([...new Set(slugs)]);
    expect(slugs).toEqual(expect.arrayContaining(["default", "web-app", "p1", "p2", "p3", "p4", "p5"]));

    const first = await h.cp("GET", admin("/projects"));
    expect(first.json.projects.length).toBe(slugs.length); // default limit 20 covers them all
    expect(first.json.cursor).toBeNull();
    expect((await h.cp("GET", admin("/projects?limit=100"))).status).toBe(200);
    expect((await h.cp("GET", admin("/projects?limit=1"))).json.projects).toHaveLength(1);

    for (const limit of [
      "0",
      "101",
      "-1",
      "NaN",
      "1e309",
      "1.5",
      "abc",
      "",
      "0x10",
      "1e1",
      "20;drop table projects",
    ]) {
      const res = await h.cp("GET", admin(`/projects?limit=${encodeURIComponent(limit)}`));
      expect(res.status, limit).toBe(400);
      expect(res.json.error.message).toContain("limit");
    }
    const page = await h.cp("GET", admin("/projects?limit=2"));
    const cursor: string = page.json.cursor;
    const [payload, signature] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify({ s: `projects:${h.orgId}`, p: ["proj_0"] })).toString(
      "base64url",
    );
    for (const bad of [
      `${forged}.${signature}`,
      `${payload}.${signature}x`,
      `${payload}`,
      "' OR 1=1 --",
      `${cursor}.extra`,
    ]) {
      const res = await h.cp("GET", admin(`/projects?cursor=${encodeURIComponent(bad)}`));
      expect(res.status, bad).toBe(400);
      expect(res.json.error.message).toContain("cursor");
    }
    // A cursor minted for another list (another org's projects) is refused too.
    const other = (await h.op("POST", "/operator/v1/orgs", { name: "other" })).json;
    await h.cp(
      "POST",
      `/admin/v1/orgs/${other.org.id}/projects`,
      { slug: "a", name: "a" },
      other.api_key.value,
    );
    await h.cp(
      "POST",
      `/admin/v1/orgs/${other.org.id}/projects`,
      { slug: "b", name: "b" },
      other.api_key.value,
    );
    const foreign = await h.cp(
      "GET",
      `/admin/v1/orgs/${other.org.id}/projects?limit=1`,
      undefined,
      other.api_key.value,
    );
    const crossed = await h.cp("GET", admin(`/projects?cursor=${encodeURIComponent(foreign.json.cursor)}`));
    expect(crossed.status).toBe(400);
    expect((await h.cp("GET", admin("/projects?sort=slug"))).status).toBe(400);
  });

  it("refuses bad bodies with a 400 naming the field, and changes nothing", async () => {
    const before = await listAll();
    const cases: [unknown, string][] = [
      [{ slug: "Upper", name: "x" }, "slug"],
      [{ slug: "x".repeat(64), name: "x" }, "slug"],
      [{ slug: "has space", name: "x" }, "slug"],
      [{ slug: "-lead", name: "x" }, "slug"],
      [{ slug: "a'; drop table projects; --", name: "x" }, "slug"],
      [{ slug: 7, name: "x" }, "slug"],
      [{ slug: "ok-slug" }, "name"],
      [{ slug: "ok-slug", name: "" }, "name"],
      [{ slug: "ok-slug", name: "x".repeat(201) }, "name"],
      [{ slug: "ok-slug", name: "x", settings: {} }, "settings"],
      [[], "(body)"],
      ["slug", "(body)"],
    ];
    for (const [body, field] of cases) {
      const res = await h.cp("POST", admin("/projects"), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe("bad_request");
      expect(res.json.error.message).toContain(field);
    }
    const reserved = await h.cp("POST", admin("/projects"), { slug: "default", name: "x" });
    expect(reserved.status).toBe(409);
    for (const body of [{ name: "" }, { name: 5 }, {}, { name: "x", extra: 1 }]) {
      expect((await h.cp("PATCH", admin("/projects/default"), body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.cp("POST", admin("/projects/default"), { name: "x" })).status).toBe(400);
    expect((await h.cp("GET", admin("/projects/' OR '1'='1"))).status).toBe(404);
    expect(await listAll()).toEqual(before);
    expect((await h.cp("GET", admin("/projects/default"))).json.name).toBe("Default");
  });

  it("ensure-default recreates a deleted default project with its main workload", async () => {
    expect((await h.cp("DELETE", admin("/projects/default"))).status).toBe(204);
    await eventually(async () => ((await h.chat(h.apiKey)) === 404 ? true : undefined));
    const recreated = await h.cp("POST", admin("/projects/default"));
    expect(recreated.status).toBe(200);
    expect(recreated.json).toMatchObject({ slug: "default", deleted_at: null });
    expect(recreated.json.id).not.toBe(h.projectId);
    expect((await h.cp("POST", admin("/projects/default"))).json).toEqual(recreated.json);
    expect(await h.chat(h.apiKey)).toBe(200);
  });
});
