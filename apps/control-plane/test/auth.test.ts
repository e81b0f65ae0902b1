import { configKeys } from "@gateway/cache";
import { revokeLiveApiKey } from "@gateway/db";
import { testStores } from "@gateway/db/testing";
import { keyHash } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

describe.each(testStores())("control plane: org keys from the config cache (%s)", (store) => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ store });
  });
  afterAll(() => h.close());

  const admin = (path = "") => `/admin/v1/orgs/${h.orgId}${path}`;
  const newKey = async () => (await h.cp("POST", admin("/api_keys"), {})).json;
  const listWith = async (key: string) => (await h.cp("GET", admin("/projects"), undefined, key)).status;
  const revokeInDatabaseOnly = (id: string) => revokeLiveApiKey(h.db, h.orgId, id);

  it("refuses a key on the very next request after its revoke, warm as it was", async () => {
    const { value, metadata } = await newKey();
    for (let i = 0; i < 3; i++) expect(await listWith(value)).toBe(200);
    expect((await h.cp("DELETE", admin(`/api_keys/${metadata.id}`), undefined, value)).status).toBe(204);
    expect(await listWith(value)).toBe(401);
  });

  // The cache is what answers: a revoke written to PostgreSQL alone (not through the API, so
  // nothing invalidates) goes unseen, which is only possible if no query was made.
  it("answers a known key without PostgreSQL, and asks PostgreSQL about any key the cache lacks", async () => {
    const { value, metadata } = await newKey();
    expect(await listWith(value)).toBe(200);
    await revokeInDatabaseOnly(metadata.id);
    expect(await listWith(value)).toBe(200);
    // the cache no longer vouches for it: PostgreSQL answers, and says revoked
    await h.cache.delete(configKeys.apiKey(keyHash(value)));
    expect(await listWith(value)).toBe(401);

    // a live key missing from the cache (its publication lost) still works, from PostgreSQL
    const missing = await newKey();
    await h.cache.delete(configKeys.apiKey(keyHash(missing.value)));
    expect(await listWith(missing.value)).toBe(200);
    expect(await listWith("sk_never_minted")).toBe(401);
  });
});
