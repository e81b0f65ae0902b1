export * from "./env.ts";
export * from "./open.ts";
export * from "./probes.ts";
export * from "./run.ts";
