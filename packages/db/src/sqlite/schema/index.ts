export * from "./calls.ts";
export * from "./config.ts";
