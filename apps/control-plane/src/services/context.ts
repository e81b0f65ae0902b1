import type { BlobStore } from "@gateway/blobstore";
import type { ConfigReader } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import type { Db } from "@gateway/db";
import type { JobProducer } from "@gateway/jobs";
import type { LimitStore } from "@gateway/limits";
import type { ConfigSync } from "./config-sync.ts";
import type { CursorCodec } from "./cursor.ts";

/** The typed record of services every route reads from the Hono context. */
export interface Services {
  db: Db;
  sync: ConfigSync;
  /** The gateway's config cache, which `sync` writes: read to authenticate org keys without PostgreSQL. */
  config: ConfigReader;
  blobs: BlobStore;
  cursors: CursorCodec;
  log: Logger;
  /** Where the control plane enqueues the costing worker's jobs (re-pricing); it runs none itself. */
  jobs: JobProducer;
  /** Bearer token of the operator surface; the surface is closed when null. */
  operatorToken: string | null;
  /** The gateway's limit counters, read for the limits-status report; null: their use is not shown. */
  limits: LimitStore | null;
}

export type AppEnv = {
  Variables: { services: Services; orgId: string; requestId: string };
};
