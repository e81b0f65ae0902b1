// What every app runs on: its env parsed once, then the logger, the metrics registry, the HTTP
// server, the probes, and the stop on signals with its drain. A consumer app's whole start is
// `@gateway/runtime/consumer-app` (it loads tracing, which the other apps start themselves).
export * from "./drain.ts";
export * from "./env.ts";
export * from "./http-server.ts";
export * from "./logger.ts";
export * from "./metrics.ts";
export * from "./probes.ts";
export * from "./process.ts";
export * from "./repeating.ts";
export * from "./secret-files.ts";
