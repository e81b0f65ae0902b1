import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { type ConfigCache, createInProcessCache } from "@gateway/cache";
import { createHttpServer, silentLogger } from "@gateway/contracts";
import type { Db } from "@gateway/db";
import { openTestDb } from "@gateway/db/testing";
import { createInProcessQueue } from "@gateway/jobs";
import { createInProcessLimits } from "@gateway/limits";
import { type ControlPlaneSession, firstOrgSession, operatorToken } from "@gateway/testkit";
import { getRequestListener } from "@hono/node-server";
import { createControlPlaneApp } from "../../src/app.ts";
import { buildServices } from "../../src/services/build-services.ts";
import { loadCatalogFile } from "../../src/services/catalog.ts";
import { ensureFirstOrg } from "../../src/services/orgs.ts";
import { seedPricesAndQueueRepricing } from "../../src/services/price-seed.ts";

export interface ControlPlaneHarness extends ControlPlaneSession {
  /** Where the control plane answers, over HTTP. */
  url: string;
  /** Its database, for tests that read or change rows directly. */
  db: Db;
  /** The config cache it publishes to (what a gateway would read). */
  cache: ConfigCache;
  close(): Promise<void>;
}

/**
 * The control plane alone, wired as the standalone process wires it on its embedded adapters:
 * SQLite in memory (or a fresh PostgreSQL database), the in-process cache, limits and job queue
 * (no worker takes the jobs), capture files under a temp dir. It starts as a first start on an
 * empty store does: prices seeded, the cache synced, `catalogFile` loaded, the first org made.
 */
export async function startControlPlane(
  options: { store?: "sqlite" | "postgres"; catalogFile?: string } = {},
): Promise<ControlPlaneHarness> {
  const handle = await openTestDb(options.store ?? "sqlite");
  const { db } = handle;
  const blobsDir = await mkdtemp(join(tmpdir(), "gw-cp-test-"));
  const jobs = createInProcessQueue();
  await seedPricesAndQueueRepricing(db, jobs);
  const cache = createInProcessCache();
  const services = buildServices(
    {
      db,
      cache,
      blobs: createFsBlobStore(blobsDir),
      log: silentLogger,
      limits: createInProcessLimits(),
      jobs,
    },
    { operatorToken },
  );
  await services.sync.syncAll(db);
  if (options.catalogFile) await loadCatalogFile(services, options.catalogFile);
  const first = await handle.exclusive(() => ensureFirstOrg(services));
  if (!first) throw new Error("expected a first start on an empty store");

  const server: Server = createHttpServer(getRequestListener(createControlPlaneApp(services).fetch), {
    log: silentLogger,
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    ...(await firstOrgSession(url, first.orgId, first.apiKey)),
    url,
    db,
    cache,
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await jobs.close();
      await cache.close();
      await handle.close();
      await rm(blobsDir, { recursive: true, force: true });
    },
  };
}
