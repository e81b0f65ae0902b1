export * from "./config-cache.ts";
export * from "./config-entries.ts";
export * from "./in-process-cache.ts";
