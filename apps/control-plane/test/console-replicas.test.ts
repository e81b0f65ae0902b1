import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessCache } from "@gateway/cache";
import { silentLogger } from "@gateway/contracts";
import { testStores } from "@gateway/db/testing";
import { createInProcessQueue } from "@gateway/jobs";
import { operatorToken } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlaneApp } from "../src/app.ts";
import { buildServices } from "../src/services/build-services.ts";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

// The split control plane serves the console itself, and a session signed in on one replica is
// good on another that shares only the database: the cookie is checked against the key's stored
// hash, with no session table and no secret shared between replicas.
describe.each(testStores())("the console on the control plane alone (%s)", (store) => {
  let h: ControlPlaneHarness;
  let other: ReturnType<typeof createControlPlaneApp>;
  let blobsDir: string;
  beforeAll(async () => {
    h = await startControlPlane({ store });
    blobsDir = await mkdtemp(join(tmpdir(), "gw-cp-replica-"));
    const services = buildServices(
      {
        db: h.db,
        cache: createInProcessCache(),
        blobs: createFsBlobStore(blobsDir),
        log: silentLogger,
        limits: null,
        jobs: createInProcessQueue(),
      },
      { operatorToken },
    );
    await services.sync.syncAll(h.db);
    other = createControlPlaneApp(services);
  });
  afterAll(async () => {
    await h?.close();
    if (blobsDir) await rm(blobsDir, { recursive: true, force: true });
  });

  it("signs in on one replica and reads pages on the other, until the key is revoked", async () => {
    const signIn = await fetch(`${h.url}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: h.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ credential: h.apiKey }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const keys = await other.request("/console/keys", { headers: { cookie } });
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain("API keys of the org");

    const [key] = (await h.cp("GET", `/admin/v1/orgs/${h.orgId}/api_keys`)).json.api_keys;
    expect((await h.cp("DELETE", `/admin/v1/orgs/${h.orgId}/api_keys/${key.id}`)).status).toBe(204);
    const after = await other.request("/console/keys", { headers: { cookie } });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/console/sign-in");
  });
});
