import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { type ConfigCache, createInProcessCache } from "@gateway/cache";
import { silentLogger } from "@gateway/contracts";
import type { Db } from "@gateway/db";
import { openTestDb } from "@gateway/db/testing";
import { createInProcessQueue, type JobQueue } from "@gateway/jobs";
import { createInProcessLimits } from "@gateway/limits";
import type { DrainSettings } from "@gateway/runtime";
import { type ControlPlaneSession, firstOrgSession, operatorToken } from "@gateway/testkit";
import { buildServices } from "../../src/services/build-services.ts";
import { seedPricesAndQueueRepricing } from "../../src/services/price-seed.ts";
import { serveControlPlane } from "../../src/start.ts";

export interface ControlPlaneHarness extends ControlPlaneSession {
  /** Where the control plane answers, over HTTP. */
  url: string;
  /** Its database, for tests that read or change rows directly. */
  db: Db;
  /** The config cache it publishes to (what a gateway would read). */
  cache: ConfigCache;
  /** The job queue it enqueues to, which no worker takes unless a test starts one on it. */
  jobs: JobQueue;
  /** Drains it as a SIGTERM does (`options.drain`; at once by default): `/readyz` 503 first. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The control plane alone, wired as the standalone process wires it on its embedded adapters:
 * SQLite in memory (or a fresh PostgreSQL database), the in-process cache, limits and job queue
 * (no worker takes the jobs), capture files under a temp dir. It starts as a first start on an
 * empty store does: prices seeded, the cache synced, then served as its own process serves it
 * (`serveControlPlane`: `catalogFile` loaded, the first org made, `/readyz` from the database).
 */
export async function startControlPlane(
  options: { store?: "sqlite" | "postgres"; catalogFile?: string; drain?: DrainSettings } = {},
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
  const served = await serveControlPlane(
    { services, exclusive: (work) => handle.exclusive(work) },
    {
      port: 0,
      host: "127.0.0.1",
      log: silentLogger,
      metrics: null,
      catalogFile: options.catalogFile,
      drain: options.drain ?? { delayMs: 0, timeoutMs: 0 },
    },
  );
  if (!served.firstStart) throw new Error("expected a first start on an empty store");
  const { url } = served;

  return {
    ...(await firstOrgSession(url, served.firstStart.orgId, served.firstStart.apiKey)),
    url,
    db,
    cache,
    jobs,
    stop: served.stop,
    async close() {
      await served.stop();
      await jobs.close();
      await cache.close();
      await handle.close();
      await rm(blobsDir, { recursive: true, force: true });
    },
  };
}
