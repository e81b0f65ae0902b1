import type { ConfigCache } from "./config-cache.ts";

/** The embedded cache: a map in the one process that runs both the control plane and the gateway. */
export function createInProcessCache(): ConfigCache {
  const entries = new Map<string, unknown>();
  return {
    async get<T>(key: string) {
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
    async close() {
      entries.clear();
    },
  };
}
