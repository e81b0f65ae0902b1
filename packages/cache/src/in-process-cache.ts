import { type ConfigCache, noLookups } from "./config-cache.ts";

/** The embedded cache: a map in the one process that runs both the control plane and the gateway. */
export function createInProcessCache(): ConfigCache {
  const entries = new Map<string, unknown>();
  const lookups = noLookups();
  return {
    async get<T>(key: string) {
      lookups.local++;
      return entries.get(key) as T | undefined;
    },
    async set(key, value) {
      entries.set(key, value);
    },
    async delete(key) {
      entries.delete(key);
    },
    async keys() {
      return [...entries.keys()];
    },
    // the control plane writes into it in the same process, before the server answers anything
    synced: () => true,
    lookups: () => lookups,
    async close() {
      entries.clear();
    },
  };
}
