import { randomBytes } from "node:crypto";
import type { Services } from "./context.ts";
import { cursorCodec } from "./cursor.ts";

/**
 * The control plane's service record from its stores and settings, the same in both
 * deployments. Without a cursor secret, a random one per start (cursors then end with the process).
 */
export function buildServices(
  stores: Pick<Services, "db" | "sync" | "blobs" | "log" | "jobs"> & { limits?: Services["limits"] },
  settings: { cursorSecret?: string | undefined; operatorToken?: string | undefined },
): Services {
  return {
    ...stores,
    limits: stores.limits ?? null,
    cursors: cursorCodec(settings.cursorSecret ? Buffer.from(settings.cursorSecret) : randomBytes(32)),
    operatorToken: settings.operatorToken ?? null,
  };
}
