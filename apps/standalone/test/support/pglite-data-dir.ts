import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessBus } from "@gateway/bus";
import { createInProcessCache } from "@gateway/cache";
import { callsTopic, silentLogger } from "@gateway/contracts";
import {
  buildServices,
  createControlPlaneApp,
  ensureFirstOrg,
  seedPricesAndQueueRepricing,
} from "@gateway/control-plane";
import { startCostingWorker } from "@gateway/costing-worker";
import { openPgliteStore } from "@gateway/db/pglite-upgrade";
import { createInProcessQueue } from "@gateway/jobs";
import { plainUsage, testCallEvent } from "@gateway/testkit";

/** What the old store holds that the test asks the upgraded process for. */
export interface OldStore {
  orgId: string;
  apiKey: string;
  projectId: string;
  /** The calls recorded and priced before the upgrade, a day before now. */
  requestIds: string[];
}

/**
 * A data dir as the release before SQLite left it: PGlite's store at `<dataDir>/pg`, written by
 * that release's apps on PGlite (the first org and its key, the default project, the seeded
 * prices, calls recorded and priced by the costing worker off the in-process bus).
 */
export async function writePgliteDataDir(dataDir: string, calls: number): Promise<OldStore> {
  const store = await openPgliteStore(join(dataDir, "pg"));
  const { db } = store;
  const jobs = createInProcessQueue();
  const bus = createInProcessBus();
  try {
    await seedPricesAndQueueRepricing(db, jobs);
    const services = buildServices(
      {
        db,
        cache: createInProcessCache(),
        blobs: createFsBlobStore(join(dataDir, "blobs")),
        log: silentLogger,
        jobs,
      },
      {},
    );
    const { orgId, apiKey } = (await ensureFirstOrg(services))!;
    const app = createControlPlaneApp(services);
    const get = async (method: string, path: string) =>
      (await app.request(path, { method, headers: { authorization: `Bearer ${apiKey}` } })).json();
    const projectId = ((await get("POST", `/admin/v1/orgs/${orgId}/projects/default`)) as { id: string }).id;
    const { workloads } = (await get(
      "GET",
      `/customer/v1/orgs/${orgId}/projects/${projectId}/workloads`,
    )) as {
      workloads: { id: string }[];
    };

    await startCostingWorker({ db, bus, jobs, log: silentLogger });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const events = Array.from({ length: calls }, () =>
      testCallEvent({
        org_id: orgId,
        project_id: projectId,
        workload_id: workloads[0]!.id,
        received_at: yesterday,
        usage: plainUsage(1_000, 500),
      }),
    );
    for (const event of events) bus.publish(callsTopic, event.request_id, event);
    await bus.flush();
    await jobs.idle();
    return { orgId, apiKey, projectId, requestIds: events.map((e) => e.request_id) };
  } finally {
    await bus.close();
    await jobs.close();
    await store.close();
  }
}
