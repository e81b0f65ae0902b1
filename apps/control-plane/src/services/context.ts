import type { BlobStore } from "@gateway/blobstore";
import type { ConfigReader } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import type { Db } from "@gateway/db";
import type { JobProducer } from "@gateway/jobs";
import type { LimitStore } from "@gateway/limits";
import type { ConsolePrincipal } from "../console/session.ts";
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
  /**
   * `consolePrincipal` is set only by the console's in-process requests (`app.request(path, init,
   * { consolePrincipal })`), after it verified the session cookie; over HTTP the bindings are the
   * node request and response, so no caller can set it.
   */
  Bindings: { consolePrincipal?: ConsolePrincipal };
  Variables: { services: Services; orgId: string; requestId: string };
};
