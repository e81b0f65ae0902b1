import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

/**
 * How the embedded PGlite is started, on the main thread or its own. Its PostgreSQL keeps the
 * initdb default of 128 MB of shared buffers inside the WebAssembly memory, and touches them:
 * most of the all-in-one process's idle memory. Its tables are files the OS caches anyway, so
 * 16 MB is kept (bench/RESULTS.md, "All-in-one memory").
 */
export const pgliteOptions: PGliteOptions = {
  startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
};
