export * from "./in-process-limits.ts";
export * from "./limit-store.ts";
