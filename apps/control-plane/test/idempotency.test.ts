import { randomUUID } from "node:crypto";
import { ageIdempotencyKey, idempotencyRows, reopenIdempotencyKey, testStores } from "@gateway/db/testing";
import { type Json, operatorToken } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

describe.each(testStores())("control plane: Idempotency-Key on creates (%s)", (store) => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ store });
  });
  afterAll(() => h.close());

  const admin = (path = "") => `/admin/v1/orgs/${h.orgId}${path}`;
  const customer = (path = "") => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}${path}`;

  /** A POST with `idempotencyKey` (none when null) and the org's key, or `credential`. */
  async function post(path: string, body: unknown, idempotencyKey: string | null, credential = h.apiKey) {
    const res = await fetch(h.url + path, {
      method: "POST",
      headers: {
        authorization: `Bearer ${credential}`,
        "content-type": "application/json",
        ...(idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      // compared too: a replay is the first answer's bytes
      text,
      json: (text ? JSON.parse(text) : null) as Json,
      replayed: res.headers.get("idempotent-replayed"),
      retryAfter: res.headers.get("retry-after"),
    };
  }
  const count = async (path: string, list: string) => ((await h.cp("GET", path)).json[list] as Json[]).length;
  const stored = (key: string) => idempotencyRows(h.db, key);
  const age = (key: string, seconds: number) => ageIdempotencyKey(h.db, key, seconds);

  it("answers a retried create with its first answer, marked as a replay, and creates nothing more", async () => {
    const creates = [
      {
        path: admin("/projects"),
        body: { slug: "retried", name: "Retried" },
        status: 201,
        list: admin("/projects"),
      },
      { path: admin("/projects/default"), body: {}, status: 200, list: admin("/projects") },
      { path: customer("/workloads"), body: { name: "retried" }, status: 201, list: customer("/workloads") },
    ];
    for (const create of creates) {
      const key = randomUUID();
      const listed = create.list.endsWith("/workloads") ? "workloads" : "projects";
      const first = await post(create.path, create.body, key);
      expect(first.status, create.path).toBe(create.status);
      expect(first.replayed).toBeNull();
      const before = await count(create.list, listed);
      const again = await post(create.path, create.body, key);
      expect(again, create.path).toEqual({ ...first, replayed: "true" });
      expect(await count(create.list, listed)).toBe(before);
    }
    // without the key, the same create is a second attempt: the slug is taken
    expect((await post(admin("/projects"), { slug: "retried", name: "Retried" }, null)).status).toBe(409);
  });

  it("replays a created API key's metadata with a null value, and never stores the value", async () => {
    const key = randomUUID();
    const before = await count(admin("/api_keys"), "api_keys");
    const first = await post(admin("/api_keys"), { name: "dashboard" }, key);
    expect(first.status).toBe(201);
    expect(first.json.value).toMatch(/^sk_/);
    const again = await post(admin("/api_keys"), { name: "dashboard" }, key);
    expect(again).toMatchObject({ status: 201, replayed: "true" });
    expect(again.text).toBe(first.text.replace(JSON.stringify(first.json.value), "null"));
    expect(await count(admin("/api_keys"), "api_keys")).toBe(before + 1);
    const [row] = await stored(key);
    expect(JSON.stringify(row)).not.toContain(first.json.value);
    // the key the first answer showed is the one that exists
    expect((await h.cp("GET", admin("/projects"), undefined, first.json.value)).status).toBe(200);
  });

  it("replays an org's creation with the starter key's value null, on the operator's scope", async () => {
    const key = randomUUID();
    const first = await post("/operator/v1/orgs", { name: "retried-org" }, key, operatorToken);
    expect(first.status).toBe(201);
    const again = await post("/operator/v1/orgs", { name: "retried-org" }, key, operatorToken);
    expect(again).toMatchObject({ status: 201, replayed: "true" });
    expect(again.json).toEqual({
      ...first.json,
      api_key: { value: null, metadata: first.json.api_key.metadata },
    });
    expect(JSON.stringify(await stored(key))).not.toContain(first.json.api_key.value);
    const orgs = (await h.op("GET", "/operator/v1/orgs?limit=100")).json.orgs as Json[];
    expect(orgs.filter((o) => o.name === "retried-org")).toHaveLength(1);
  });

  it("refuses the key on another request (422) but not on another route or org, and compares bodies canonically", async () => {
    const key = randomUUID();
    const first = await post(admin("/projects"), { slug: "canon", name: "Canon" }, key);
    expect(first.status).toBe(201);
    // the same request with its fields in another order is the same request
    expect(await post(admin("/projects"), { name: "Canon", slug: "canon" }, key)).toEqual({
      ...first,
      replayed: "true",
    });
    const other = await post(admin("/projects"), { slug: "canon-2", name: "Canon" }, key);
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe("idempotency_key_reused");
    expect(other.json.error.message).toContain("Idempotency-Key");

    // another route, another org: keys of their own
    expect((await post(admin("/api_keys"), {}, key)).status).toBe(201);
    const org = (await post("/operator/v1/orgs", { name: "other-org" }, null, operatorToken)).json;
    const foreign = await post(
      `/admin/v1/orgs/${org.org.id}/projects`,
      { slug: "canon", name: "Canon" },
      key,
      org.api_key.value,
    );
    expect(foreign).toMatchObject({ status: 201, replayed: null });
    expect(foreign.json.org_id).toBe(org.org.id);
  });

  it("answers 409 while the first request runs, and lets a retry take over a claim abandoned for a minute", async () => {
    const key = randomUUID();
    expect((await post(admin("/api_keys"), { name: "held" }, key)).status).toBe(201);
    // as it was while the first request ran
    await reopenIdempotencyKey(h.db, key);
    const running = await post(admin("/api_keys"), { name: "held" }, key);
    expect(running).toMatchObject({ status: 409, retryAfter: "1" });
    expect(running.json.error.code).toBe("idempotency_in_progress");
    // another request with it is still another request
    expect((await post(admin("/api_keys"), { name: "other" }, key)).status).toBe(422);

    await age(key, 2 * 60);
    const takenOver = await post(admin("/api_keys"), { name: "held" }, key);
    expect(takenOver).toMatchObject({ status: 201, replayed: null });
    expect(takenOver.json.value).toMatch(/^sk_/);
  });

  it("keeps no failure: a create refused for a conflict runs again on retry", async () => {
    expect((await post(customer("/workloads"), { name: "taken" }, null)).status).toBe(201);
    const key = randomUUID();
    const refused = await post(customer("/workloads"), { name: "taken" }, key);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("conflict");
    expect(await stored(key)).toEqual([]);
    const workloads = (await h.cp("GET", customer("/workloads"))).json.workloads as Json[];
    const taken = workloads.find((w) => w.name === "taken");
    expect((await h.cp("DELETE", customer(`/workloads/${taken.id}`))).status).toBe(204);
    expect(await post(customer("/workloads"), { name: "taken" }, key)).toMatchObject({
      status: 201,
      replayed: null,
    });
  });

  it("forgets keys after 24 hours: an older one starts over, and older rows are swept", async () => {
    const [expiring, swept] = [randomUUID(), randomUUID()];
    const first = await post(admin("/api_keys"), { name: "day-old" }, expiring);
    expect((await post(admin("/api_keys"), {}, swept)).status).toBe(201);
    await age(expiring, 25 * 3600);
    await age(swept, 25 * 3600);
    const again = await post(admin("/api_keys"), { name: "day-old" }, expiring);
    expect(again).toMatchObject({ status: 201, replayed: null });
    expect(again.json.metadata.id).not.toBe(first.json.metadata.id);
    expect(await stored(swept)).toEqual([]);
  });

  it("refuses a key that is empty, longer than 255 characters or not printable ASCII, before creating anything", async () => {
    const before = await count(admin("/api_keys"), "api_keys");
    for (const bad of ["", "k".repeat(256), "caf\u00e9", "tab\there"]) {
      const res = await post(admin("/api_keys"), {}, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error.message).toContain("Idempotency-Key");
    }
    expect(await count(admin("/api_keys"), "api_keys")).toBe(before);
    expect((await post(admin("/api_keys"), {}, `${"k".repeat(250)} ~!@#`)).status).toBe(201);
  });

  it("creates once when the same create races itself", async () => {
    const key = randomUUID();
    const before = await count(admin("/api_keys"), "api_keys");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(admin("/api_keys"), { name: "raced" }, key)),
    );
    const created = answers.filter((a) => a.status === 201 && a.replayed === null);
    expect(created).toHaveLength(1);
    for (const a of answers) {
      if (a === created[0]) continue;
      if (a.status === 201) expect(a.json).toEqual({ ...created[0]!.json, value: null });
      else expect(a.json.error.code).toBe("idempotency_in_progress");
    }
    expect(await count(admin("/api_keys"), "api_keys")).toBe(before + 1);
  });
});
