/** `@gateway/db/testing`: what only tests use (no app loads it). */

export * from "./call-rows.ts";
export * from "./databases.ts";
export * from "./idempotency-rows.ts";
