import type { ApiKeyEntry, ConfigCache, ProjectEntry, WorkloadEntry } from "@gateway/cache";
import { configKeys } from "@gateway/cache";
import { apiKeys, type Db, projects, workloads } from "@gateway/db";
import { and, eq, isNull } from "drizzle-orm";

type ProjectRow = typeof projects.$inferSelect;
type WorkloadRow = typeof workloads.$inferSelect;

/**
 * Writes configuration through to the gateway's cache. Postgres stays the source of truth;
 * every change the control plane commits is published here right after, and `syncAll` rebuilds
 * the whole picture at start.
 */
export function configSync(cache: ConfigCache) {
  const projectEntry = (p: ProjectRow): ProjectEntry => ({ id: p.id, orgId: p.orgId, slug: p.slug });
  const workloadEntry = (w: WorkloadRow): WorkloadEntry => ({
    id: w.id,
    projectId: w.projectId,
    name: w.name,
    captureEnabled: w.captureEnabled,
    captureSampleRate: w.captureSampleRate,
    routeModelId: w.routeModelId,
    routeTrafficPct: w.routeTrafficPct,
  });

  const sync = {
    async apiKey(keyHash: string, entry: ApiKeyEntry) {
      await cache.set(configKeys.apiKey(keyHash), entry);
    },
    async revokeApiKey(keyHash: string) {
      await cache.delete(configKeys.apiKey(keyHash));
    },
    async project(p: ProjectRow) {
      if (p.deletedAt) {
        await cache.delete(configKeys.project(p.orgId, p.slug));
        if (p.isDefault) await cache.delete(configKeys.defaultProject(p.orgId));
        return;
      }
      await cache.set(configKeys.project(p.orgId, p.slug), projectEntry(p));
      if (p.isDefault) await cache.set(configKeys.defaultProject(p.orgId), projectEntry(p));
    },
    async workload(w: WorkloadRow) {
      await cache.set(configKeys.workload(w.projectId, w.name), workloadEntry(w));
      if (w.isDefault) await cache.set(configKeys.defaultWorkload(w.projectId), workloadEntry(w));
    },
    async removeWorkload(w: WorkloadRow) {
      await cache.delete(configKeys.workload(w.projectId, w.name));
    },
    /** Publishes every live key, project and workload; run once when the control plane starts. */
    async syncAll(db: Db) {
      const keys = await db.select().from(apiKeys).where(isNull(apiKeys.revokedAt));
      for (const k of keys) await sync.apiKey(k.keyHash, { id: k.id, orgId: k.orgId });
      const live = await db.select().from(projects).where(isNull(projects.deletedAt));
      for (const p of live) await sync.project(p);
      const rows = await db
        .select({ w: workloads })
        .from(workloads)
        .innerJoin(projects, and(eq(projects.id, workloads.projectId), isNull(projects.deletedAt)));
      for (const { w } of rows) await sync.workload(w);
    },
  };
  return sync;
}
export type ConfigSync = ReturnType<typeof configSync>;
