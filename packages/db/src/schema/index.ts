export * from "./api-keys.ts";
export * from "./calls.ts";
export * from "./capture-index.ts";
export * from "./catalog.ts";
export * from "./orgs.ts";
export * from "./prices.ts";
export * from "./projects.ts";
export * from "./workloads.ts";
