/** `@gateway/db/testing`: what only tests use (no app loads it). */
export * from "./databases.ts";
export * from "./idempotency-rows.ts";
