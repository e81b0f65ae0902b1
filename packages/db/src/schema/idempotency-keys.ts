import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The first answer of each create sent with an `Idempotency-Key`, so that a retry gets it again
 * instead of a second object. One row per (scope, route, key): `scope` is the org (or `operator`),
 * `route` the method and path pattern. While `status` is null the first request is still running,
 * held by `owner` (its request id). `response` never holds a secret: a key's value is removed
 * before it is stored. Rows older than the retention are ignored and swept.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    route: text("route").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the request's path and canonical body: the same key on another request is refused. */
    requestHash: text("request_hash").notNull(),
    owner: text("owner").notNull(),
    status: integer("status"),
    /** The first answer's JSON text as sent (minus its secrets), so a replay is the same bytes. */
    response: text("response"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pk", columns: [t.scope, t.route, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);
