export * from "./errors.ts";
export * from "./sse-facts.ts";
export * from "./sse-frames.ts";
export * from "./stream-errors.ts";
export * from "./usage.ts";
export * from "./wire-format.ts";
