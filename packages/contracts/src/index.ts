export * from "./call-event.ts";
export * from "./control-plane-errors.ts";
export * from "./headers.ts";
export * from "./ids.ts";
export * from "./logger.ts";
export * from "./pricing.ts";
export * from "./provider.ts";
export * from "./usage.ts";
