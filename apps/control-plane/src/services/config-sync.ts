import type {
  ApiKeyEntry,
  CatalogModelEntry,
  ConfigCache,
  DeploymentEntry,
  ProjectEntry,
  WorkloadEntry,
} from "@gateway/cache";
import { configKeys } from "@gateway/cache";
import { type Limits, type LimitsEntry, limitsEntry } from "@gateway/contracts";
import {
  type ApiKeyRow,
  type CatalogDeploymentRow,
  type CatalogModelRow,
  type Db,
  listAllLiveApiKeys,
  listAllLiveProjects,
  listCatalogDeployments,
  listCatalogModels,
  listWorkloadsOfLiveProjects,
  type ProjectRow,
  readLimitsOf,
  type WorkloadRow,
} from "@gateway/db";

/** An entry with its scope's limits; a scope without any has no `limits` field at all. */
function withLimits<T extends { limits?: LimitsEntry }>(entry: T, limits: Limits): T {
  const found = limitsEntry(limits);
  return found ? { ...entry, limits: found } : entry;
}

/**
 * Writes configuration through to the gateway's cache. Postgres stays the source of truth;
 * every change the control plane commits is published here right after, and `syncAll` rebuilds
 * the whole picture at start. A key, project or workload entry carries the scope's limits, so
 * whoever publishes one passes the limits it has now: an entry written without them would drop
 * them on the gateway.
 */
export function configSync(cache: ConfigCache) {
  const apiKeyEntry = (k: ApiKeyRow, limits: Limits) =>
    withLimits<ApiKeyEntry>({ id: k.id, orgId: k.orgId }, limits);
  const projectEntry = (p: ProjectRow, limits: Limits) =>
    withLimits<ProjectEntry>({ id: p.id, orgId: p.orgId, slug: p.slug }, limits);
  const workloadEntry = (w: WorkloadRow, limits: Limits) =>
    withLimits<WorkloadEntry>(
      {
        id: w.id,
        projectId: w.projectId,
        name: w.name,
        captureEnabled: w.captureEnabled,
        captureSampleRate: w.captureSampleRate,
        routeModelId: w.routeModelId,
        routeTrafficPct: w.routeTrafficPct,
      },
      limits,
    );

  const deploymentEntry = (d: CatalogDeploymentRow): DeploymentEntry => ({
    id: d.id,
    providerLabel: d.providerLabel,
    wireFormat: d.wireFormat,
    baseUrl: d.baseUrl,
    upstreamModel: d.upstreamModel,
    credentialEnv: d.credentialEnv,
    priority: d.priority,
  });

  const sync = {
    async apiKey(k: ApiKeyRow, limits: Limits) {
      await cache.set(configKeys.apiKey(k.keyHash), apiKeyEntry(k, limits));
    },
    async revokeApiKey(keyHash: string) {
      await cache.delete(configKeys.apiKey(keyHash));
    },
    async project(p: ProjectRow, limits: Limits) {
      const entry = projectEntry(p, limits);
      await cache.set(configKeys.project(p.orgId, p.slug), entry);
      if (p.isDefault) await cache.set(configKeys.defaultProject(p.orgId), entry);
    },
    /**
     * Dropping the project key is what makes the gateway stop resolving it; its workload keys
     * are unreachable from then on and are dropped by `deletedProjectWorkloads`.
     */
    async removeProject(p: ProjectRow) {
      await cache.delete(configKeys.project(p.orgId, p.slug));
      if (p.isDefault) await cache.delete(configKeys.defaultProject(p.orgId));
    },
    async workload(w: WorkloadRow, limits: Limits) {
      const entry = workloadEntry(w, limits);
      await cache.set(configKeys.workload(w.projectId, w.name), entry);
      if (w.isDefault) await cache.set(configKeys.defaultWorkload(w.projectId), entry);
    },
    async removeWorkload(w: WorkloadRow) {
      await cache.delete(configKeys.workload(w.projectId, w.name));
    },
    async deletedProjectWorkloads(projectId: string, rows: WorkloadRow[]) {
      for (const w of rows) await sync.removeWorkload(w);
      await cache.delete(configKeys.defaultWorkload(projectId));
    },
    /**
     * A catalog model with its deployments, lowest priority first. Inactive models stay in the
     * cache with `active: false`, so the gateway can tell "switched off" from "unknown".
     */
    async catalogModel(m: CatalogModelRow, deployments: CatalogDeploymentRow[]) {
      const entry: CatalogModelEntry = {
        id: m.id,
        displayName: m.displayName,
        active: m.active,
        created: Math.floor(m.createdAt.getTime() / 1000),
        deployments: deployments
          .map(deploymentEntry)
          .sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id)),
      };
      await cache.set(configKeys.catalogModel(m.id), entry);
    },
    /** Republishes the whole catalog (every model, then the index of all ids, oldest first). */
    async catalog(db: Db) {
      const models = await listCatalogModels(db, { activeOnly: false });
      const deployments = await listCatalogDeployments(db);
      for (const m of models) {
        await sync.catalogModel(
          m,
          deployments.filter((d) => d.modelId === m.id),
        );
      }
      await cache.set(
        configKeys.catalogIndex(),
        models.map((m) => m.id),
      );
    },
    /**
     * Publishes every live key, project, workload (each with its limits, read in one query per
     * kind) and catalog model, and deletes every other
     * entry in the cache: a revoked key or deleted project whose delete never reached the cache
     * (a lost write, a restored snapshot) would otherwise stay there for good. Run at start and
     * whenever the cache returns from an outage.
     */
    async syncAll(db: Db) {
      // Listed before Postgres is read: an entry published by a change committed after this
      // point is not in the list, so the sweep below cannot delete it as stale.
      const before = await cache.keys();
      const written = new Set<string>();
      const recording: ConfigCache = {
        ...cache,
        set: async (key, value) => {
          written.add(key);
          await cache.set(key, value);
        },
      };
      const live = configSync(recording);
      const keys = await listAllLiveApiKeys(db);
      const keyLimits = await readLimitsOf(
        db,
        "api_key",
        keys.map((k) => k.id),
      );
      for (const k of keys) await live.apiKey(k, keyLimits(k.id));
      const liveProjects = await listAllLiveProjects(db);
      const projectLimits = await readLimitsOf(
        db,
        "project",
        liveProjects.map((p) => p.id),
      );
      for (const p of liveProjects) await live.project(p, projectLimits(p.id));
      const liveWorkloads = await listWorkloadsOfLiveProjects(db);
      const workloadLimits = await readLimitsOf(
        db,
        "workload",
        liveWorkloads.map((w) => w.id),
      );
      for (const w of liveWorkloads) await live.workload(w, workloadLimits(w.id));
      await live.catalog(db);
      for (const key of before) if (!written.has(key)) await cache.delete(key);
    },
  };
  return sync;
}
export type ConfigSync = ReturnType<typeof configSync>;
