export * from "./call-row.ts";
export * from "./costing-metrics.ts";
export * from "./costing-worker.ts";
