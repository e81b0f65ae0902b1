export * from "./capture-envelope.ts";
export * from "./capture-writer.ts";
export { captureWriterDeps } from "./deps.ts";
export { parseCaptureWriterEnv } from "./env.ts";
