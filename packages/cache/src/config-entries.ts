import type { ConfigCache } from "./config-cache.ts";

/** What the gateway needs to know about a live API key, found by the SHA-256 of its value. */
export interface ApiKeyEntry {
  id: string;
  orgId: string;
}

export interface ProjectEntry {
  id: string;
  orgId: string;
  slug: string;
}

export interface WorkloadEntry {
  id: string;
  projectId: string;
  name: string;
  captureEnabled: boolean;
  captureSampleRate: number;
  routeModelId: string | null;
  routeTrafficPct: number;
}

/** Cache keys, in one place so that writer and reader cannot drift apart. */
export const configKeys = {
  apiKey: (keyHash: string) => `apikey:${keyHash}`,
  project: (orgId: string, slug: string) => `project:${orgId}:${slug}`,
  defaultProject: (orgId: string) => `project-default:${orgId}`,
  workload: (projectId: string, name: string) => `workload:${projectId}:${name}`,
  defaultWorkload: (projectId: string) => `workload-default:${projectId}`,
};

/** Typed reads for the gateway. A null slug or name means "the default one". */
export function configReader(cache: ConfigCache) {
  return {
    apiKey: (keyHash: string) => cache.get<ApiKeyEntry>(configKeys.apiKey(keyHash)),
    project: (orgId: string, slug: string | null) =>
      cache.get<ProjectEntry>(
        slug === null ? configKeys.defaultProject(orgId) : configKeys.project(orgId, slug),
      ),
    workload: (projectId: string, name: string | null) =>
      cache.get<WorkloadEntry>(
        name === null ? configKeys.defaultWorkload(projectId) : configKeys.workload(projectId, name),
      ),
  };
}
export type ConfigReader = ReturnType<typeof configReader>;
