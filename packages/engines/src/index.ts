export * from "./env.ts";
export * from "./open.ts";
export * from "./run.ts";
