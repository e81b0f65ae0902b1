export * from "./call-rollups.ts";
export * from "./calls.ts";
export * from "./config.ts";
