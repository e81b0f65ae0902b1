export * from "./consumer-metrics.ts";
export * from "./dir-lock.ts";
export * from "./event-bus.ts";
export * from "./in-process-bus.ts";
export * from "./journal.ts";
export * from "./payload.ts";
export * from "./spool.ts";
