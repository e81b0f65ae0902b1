import {
  type LimitScope,
  type Limits,
  type LimitsUpdate,
  microsToUsd,
  noLimits,
  usdToMicros,
} from "@gateway/contracts";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { builder, inTransaction, query } from "./dialect.ts";
import { inJsonList } from "./json-rows.ts";
import type { limits } from "./schema/limits.ts";
import { dbNow } from "./sql-rows.ts";

type LimitsRow = typeof limits.$inferSelect;
type LimitColumns = Partial<
  Pick<
    typeof limits.$inferInsert,
    | "requestsPerMinute"
    | "tokensPerMinute"
    | "maxConcurrent"
    | "budgetUsd"
    | "budgetPeriod"
    | "budgetAppliesTo"
  >
>;

/** A scope whose limits are written; `orgId` is kept with the row so an org's limits can be listed. */
export interface LimitsTarget {
  scope: LimitScope;
  scopeId: string;
  orgId: string;
}

/** One scope's limits in the admin shape, and when they were last written (null: it has none). */
export interface ScopeLimits {
  limits: Limits;
  updatedAt: Date | null;
}

function limitsOfRow(row: LimitsRow): Limits {
  const { budgetUsd, budgetPeriod, budgetAppliesTo } = row;
  return {
    requests_per_minute: row.requestsPerMinute,
    tokens_per_minute: row.tokensPerMinute,
    max_concurrent: row.maxConcurrent,
    // numeric comes back with the scale it was written with ("250", "0.000125"); through whole
    // micro-dollars it reads the same way every time, exactly, with two decimals at least
    budget:
      budgetUsd === null || budgetPeriod === null || budgetAppliesTo === null
        ? null
        : { usd: microsToUsd(usdToMicros(budgetUsd)), period: budgetPeriod, applies_to: budgetAppliesTo },
  };
}

/** The columns an update writes: a field given is set (null clears it), a field left out is not touched. */
function limitColumns(update: LimitsUpdate): LimitColumns {
  const columns: LimitColumns = {};
  if (update.requests_per_minute !== undefined) columns.requestsPerMinute = update.requests_per_minute;
  if (update.tokens_per_minute !== undefined) columns.tokensPerMinute = update.tokens_per_minute;
  if (update.max_concurrent !== undefined) columns.maxConcurrent = update.max_concurrent;
  if (update.budget !== undefined) {
    columns.budgetUsd = update.budget?.usd ?? null;
    columns.budgetPeriod = update.budget?.period ?? null;
    columns.budgetAppliesTo = update.budget?.applies_to ?? null;
  }
  return columns;
}

const hasNoLimit = (l: Limits) =>
  l.requests_per_minute === null &&
  l.tokens_per_minute === null &&
  l.max_concurrent === null &&
  l.budget === null;

const scopeRow = (l: typeof limits, scope: LimitScope, scopeId: string) =>
  and(eq(l.scope, scope), eq(l.scopeId, scopeId));

export async function readLimits(db: Db, scope: LimitScope, scopeId: string): Promise<ScopeLimits> {
  const [row] = await query(db, (orm, t) =>
    orm
      .select()
      .from(t.limits)
      .where(scopeRow(t.limits, scope, scopeId)),
  );
  return row
    ? { limits: limitsOfRow(row), updatedAt: row.updatedAt }
    : { limits: noLimits(), updatedAt: null };
}

/**
 * Applies `update` to a scope's limits and returns them as they now are. A scope keeps a row only
 * while it has a limit: the update that clears the last one deletes it. Callers that must order
 * this against other changes to the scope run it under that scope's row lock.
 */
export async function writeLimits(db: Db, target: LimitsTarget, update: LimitsUpdate): Promise<ScopeLimits> {
  const columns = limitColumns(update);
  // nothing to change: no write, so updated_at still says when the limits last changed
  if (Object.keys(columns).length === 0) return readLimits(db, target.scope, target.scopeId);
  return inTransaction(db, async (tx) => {
    const { orm, t } = builder(tx);
    const [row] = await orm
      .insert(t.limits)
      .values({ ...target, ...columns })
      .onConflictDoUpdate({
        target: [t.limits.scope, t.limits.scopeId],
        set: { ...columns, updatedAt: sql`${dbNow(tx)}` },
      })
      .returning();
    const written = limitsOfRow(row!);
    if (!hasNoLimit(written)) return { limits: written, updatedAt: row!.updatedAt };
    await orm.delete(t.limits).where(scopeRow(t.limits, target.scope, target.scopeId));
    return { limits: written, updatedAt: null };
  });
}

/**
 * The limits of many scopes of one kind in one query (the config rebuild publishes every live
 * scope); a scope without a row has none.
 */
export async function readLimitsOf(
  db: Db,
  scope: LimitScope,
  scopeIds: readonly string[],
): Promise<(scopeId: string) => Limits> {
  const found = new Map<string, Limits>();
  if (scopeIds.length > 0) {
    const rows = await query(db, (orm, t) =>
      orm
        .select()
        .from(t.limits)
        .where(and(eq(t.limits.scope, scope), inJsonList(db, sql`${t.limits.scopeId}`, scopeIds))),
    );
    for (const row of rows) found.set(row.scopeId, limitsOfRow(row));
  }
  return (scopeId) => found.get(scopeId) ?? noLimits();
}
