import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessCache } from "@gateway/cache";
import { createHttpServer, silentLogger } from "@gateway/contracts";
import { type DbHandle, freshPostgresDatabase, openDb, runMigrations } from "@gateway/db";
import { createInProcessQueue } from "@gateway/jobs";
import { getRequestListener } from "@hono/node-server";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlaneApp } from "../src/app.ts";
import { buildServices } from "../src/services/build-services.ts";
import { ensureFirstOrg } from "../src/services/orgs.ts";

const serverUrl = process.env.GATEWAY_TEST_POSTGRES_URL;

/**
 * A write that loses a race for a unique name answers 409 like any other conflict, not 500. The
 * race is made, not hoped for: a second PostgreSQL session renames workload B to "taken" and
 * holds its transaction open, so the PATCH that renames A finds the name free (B's new name is
 * not committed), then waits on the unique index until B's rename commits, and fails with a
 * unique violation. PGlite runs one transaction at a time, so only PostgreSQL can interleave.
 */
describe.skipIf(!serverUrl)("one conflict path (GATEWAY_TEST_POSTGRES_URL)", () => {
  let handle: DbHandle;
  let dropDatabase: () => Promise<void>;
  let other: DbHandle;
  let blobsDir: string;
  let server: Server;
  let base: string;
  let apiKey: string;

  beforeAll(async () => {
    const database = await freshPostgresDatabase(serverUrl!);
    dropDatabase = database.drop;
    handle = await openDb(database.config);
    other = await openDb({ ...database.config, max: 1 });
    await runMigrations(handle);
    blobsDir = await mkdtemp(join(tmpdir(), "gw-conflict-"));
    const services = buildServices(
      {
        db: handle.db,
        cache: createInProcessCache(),
        blobs: createFsBlobStore(blobsDir),
        log: silentLogger,
        jobs: createInProcessQueue(),
      },
      {},
    );
    const first = (await ensureFirstOrg(services))!;
    apiKey = first.apiKey;
    server = createHttpServer(getRequestListener(createControlPlaneApp(services).fetch), {
      log: silentLogger,
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const projects = await call("GET", `/admin/v1/orgs/${first.orgId}/projects`);
    const projectId = (projects.body as { projects: { id: string }[] }).projects[0]!.id;
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/customer/v1/orgs/${first.orgId}/projects/${projectId}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
    await other?.close();
    await handle?.close();
    await dropDatabase?.();
    if (blobsDir) await rm(blobsDir, { recursive: true, force: true });
  });

  async function call(method: string, url: string, body?: unknown) {
    const target = url.startsWith("http")
      ? url
      : `http://127.0.0.1:${(server.address() as AddressInfo).port}${url}`;
    const res = await fetch(target, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  it("a rename that loses the name to a concurrent commit answers 409 in the error model", async () => {
    const a = (await call("POST", `${base}/workloads`, { name: "a" })).body as { id: string };
    const b = (await call("POST", `${base}/workloads`, { name: "b" })).body as { id: string };

    // wrapped, as the transaction would otherwise wait for the PATCH, which waits for its commit
    const { renamingA } = await other.db.transaction(async (tx) => {
      await tx.execute(sql`update workloads set name = 'taken' where id = ${b.id}`);
      const renamingA = call("PATCH", `${base}/workloads/${a.id}`, { name: "taken" });
      // The PATCH waits on the unique index once PostgreSQL shows a session blocked on a lock
      // (asked on another connection: a transaction sees its first snapshot of pg_stat_activity).
      await waitUntil(async () => {
        // postgres.js answers an array of rows
        const rows = (await handle.db.execute(sql`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`)) as unknown as { n: number }[];
        return rows[0]!.n > 0;
      });
      return { renamingA };
    });
    const answer = await renamingA;
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ error: { code: "conflict", message: expect.any(String) } });
    const names = (await call("GET", `${base}/workloads`)).body as { workloads: { name: string }[] };
    expect(names.workloads.map((w) => w.name).sort()).toEqual(["a", "main", "taken"]);
  });
});

async function waitUntil(check: () => Promise<boolean>) {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in 5 s");
}
