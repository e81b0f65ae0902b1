import { randomBytes } from "node:crypto";
import { type ConfigCache, configReader } from "@gateway/cache";
import { configSync } from "./config-sync.ts";
import type { Services } from "./context.ts";
import { cursorCodec } from "./cursor.ts";

/**
 * The control plane's service record from its stores and settings, the same in both
 * deployments: it writes the config cache through `sync` and reads it through `config`.
 * Without a cursor secret, a random one per start (cursors then end with the process).
 */
export function buildServices(
  stores: Pick<Services, "db" | "blobs" | "log" | "jobs"> & {
    cache: ConfigCache;
    limits?: Services["limits"];
  },
  settings: { cursorSecret?: string | undefined; operatorToken?: string | undefined },
): Services {
  const { cache, ...rest } = stores;
  return {
    ...rest,
    sync: configSync(cache),
    config: configReader(cache),
    limits: stores.limits ?? null,
    cursors: cursorCodec(settings.cursorSecret ? Buffer.from(settings.cursorSecret) : randomBytes(32)),
    operatorToken: settings.operatorToken ?? null,
  };
}
