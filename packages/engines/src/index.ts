// What every app needs, and nothing that opens an engine: each engine's adapter is a subpath of
// its own (`@gateway/engines/kafka`, `/redis-cache`, `/bullmq`, `/postgres`, `/s3`,
// `/consumer-readiness`), so an app loads only the drivers of the engines it opens (the gateway
// never loads PostgreSQL's, BullMQ's or the AWS SDK: packages/engines/test/import-closure.test.ts).

export { checkEngineSettings } from "./engine-settings-check.ts";
export * from "./env.ts";
