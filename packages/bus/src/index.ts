export * from "./event-bus.ts";
export * from "./in-process-bus.ts";
