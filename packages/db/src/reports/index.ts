export * from "./call-cost.ts";
export * from "./format.ts";
export * from "./limits-status.ts";
export * from "./provider-health.ts";
export * from "./routing-status.ts";
export * from "./usage-summary.ts";
export * from "./window.ts";
export * from "./workload-status.ts";
