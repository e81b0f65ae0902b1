import type { LimitsEntry, ProviderLabel, WireFormat } from "@gateway/contracts";
import type { ConfigCache, ReadOptions } from "./config-cache.ts";

/** What the gateway needs to know about a live API key, found by the SHA-256 of its value. */
export interface ApiKeyEntry {
  id: string;
  orgId: string;
  limits?: LimitsEntry;
}

export interface ProjectEntry {
  id: string;
  orgId: string;
  slug: string;
  limits?: LimitsEntry;
}

export interface WorkloadEntry {
  id: string;
  projectId: string;
  name: string;
  captureEnabled: boolean;
  captureSampleRate: number;
  routeModelId: string | null;
  routeTrafficPct: number;
  limits?: LimitsEntry;
}

/** Where and how a catalog model is served. The credential is named, never stored. */
export interface DeploymentEntry {
  id: string;
  providerLabel: ProviderLabel;
  wireFormat: WireFormat;
  baseUrl: string;
  upstreamModel: string;
  credentialEnv: string;
  priority: number;
}

/** A public catalog model with its deployments (lowest `priority` first). */
export interface CatalogModelEntry {
  id: string;
  displayName: string;
  active: boolean;
  /** Unix seconds. */
  created: number;
  deployments: DeploymentEntry[];
}

/** Cache keys, in one place so that writer and reader cannot drift apart. */
export const configKeys = {
  apiKey: (keyHash: string) => `apikey:${keyHash}`,
  project: (orgId: string, slug: string) => `project:${orgId}:${slug}`,
  defaultProject: (orgId: string) => `project-default:${orgId}`,
  workload: (projectId: string, name: string) => `workload:${projectId}:${name}`,
  defaultWorkload: (projectId: string) => `workload-default:${projectId}`,
  catalogModel: (modelId: string) => `catalog:${modelId}`,
  /** The ids of every catalog model, in display order. */
  catalogIndex: () => "catalog-index",
};

/** Typed reads for the gateway. A null slug or name means "the default one". */
export function configReader(cache: ConfigCache) {
  return {
    apiKey: (keyHash: string, options?: ReadOptions) =>
      cache.get<ApiKeyEntry>(configKeys.apiKey(keyHash), options),
    project: (orgId: string, slug: string | null) =>
      cache.get<ProjectEntry>(
        slug === null ? configKeys.defaultProject(orgId) : configKeys.project(orgId, slug),
      ),
    workload: (projectId: string, name: string | null) =>
      cache.get<WorkloadEntry>(
        name === null ? configKeys.defaultWorkload(projectId) : configKeys.workload(projectId, name),
      ),
    catalogModel: (modelId: string) => cache.get<CatalogModelEntry>(configKeys.catalogModel(modelId)),
    catalogIndex: async () => (await cache.get<string[]>(configKeys.catalogIndex())) ?? [],
  };
}
export type ConfigReader = ReturnType<typeof configReader>;
