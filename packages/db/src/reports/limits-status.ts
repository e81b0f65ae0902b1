import {
  type Budget,
  budgetPeriodBounds,
  type LimitName,
  type LimitScope,
  type Limits,
  limitNames,
} from "@gateway/contracts";
import { sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { type PeriodSpend, scopeSpend } from "../costing/spend-totals.ts";
import { readLimitsOf } from "../limits.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows, toCount } from "../sql-rows.ts";
import type { TimeWindow } from "./window.ts";
import { projectWorkloads } from "./workload-names.ts";

interface BudgetStatus extends Budget {
  /** Exact decimal text of the priced spend the budget counts in its current period. */
  spent_usd: string;
  period_start: string;
  resets_at: string;
}

interface RefusalCounts {
  total: number;
  by_limit: Record<LimitName, number>;
}

/** One scope of the limits-status report, without its live use (that is the limiter's). */
export interface LimitsStatusEntry {
  scope: LimitScope;
  scope_id: string;
  /** The project's slug, the workload's name, the key's name (null when it has none). */
  name: string | null;
  limits: Limits;
  budget: BudgetStatus | null;
  refused: RefusalCounts;
}

export interface LimitsStatusQuery extends TimeWindow {
  orgId: string;
  projectSlug: string;
}

/**
 * The limits of a project, of each of its workloads and of each live key of its org that has
 * limits, with each budget's spend in its current period (from `spend_daily`, the same priced
 * cost the usage summary sums) and the project's calls each scope refused in the window.
 */
export async function limitsStatus(
  db: Db,
  query: LimitsStatusQuery,
  now: Date,
): Promise<LimitsStatusEntry[]> {
  const [workloads, keys, refusals] = await Promise.all([
    projectWorkloads(db, query.projectId),
    keysWithLimits(db, query.orgId),
    refusedCalls(db, query),
  ]);
  const named: { scope: LimitScope; id: string; name: string | null }[] = [
    { scope: "project", id: query.projectId, name: query.projectSlug },
    ...workloads.map((w) => ({ scope: "workload" as const, id: w.id, name: w.name })),
    ...keys.map((k) => ({ scope: "api_key" as const, id: k.id, name: k.name })),
  ];
  const [projectLimits, workloadLimits, keyLimits] = await Promise.all([
    readLimitsOf(db, "project", [query.projectId]),
    readLimitsOf(
      db,
      "workload",
      workloads.map((w) => w.id),
    ),
    readLimitsOf(
      db,
      "api_key",
      keys.map((k) => k.id),
    ),
  ]);
  const limitsOf = { project: projectLimits, workload: workloadLimits, api_key: keyLimits };
  const scopes = named.map((s) => ({ ...s, limits: limitsOf[s.scope](s.id) }));
  const spend = await scopeSpend(
    db,
    scopes.filter((s) => s.limits.budget),
    now,
  );
  return scopes.map((s) => {
    const spent = spend.filter((p) => p.scope === s.scope && p.scopeId === s.id);
    return {
      scope: s.scope,
      scope_id: s.id,
      name: s.name,
      limits: s.limits,
      budget: s.limits.budget && budgetStatus(s.limits.budget, spent, now),
      refused: refusals(s.scope, s.id),
    };
  });
}

/** A budget with what it counts of its scope's spend in the period holding `now`. */
function budgetStatus(budget: Budget, spend: PeriodSpend[], now: Date): BudgetStatus {
  const spent = spend.find((p) => p.period === budget.period);
  const bounds = budgetPeriodBounds(budget.period, now);
  return {
    ...budget,
    spent_usd: (budget.applies_to === "managed" ? spent?.managedUsd : spent?.allUsd) ?? "0",
    period_start: bounds.start.toISOString(),
    resets_at: bounds.end.toISOString(),
  };
}

/** The org's live keys that have limits, oldest first. */
function keysWithLimits(db: Db, orgId: string) {
  return queryRows<{ id: string; name: string | null }>(
    db,
    sql`select k.id, k.name from api_keys k
        join limits l on l.scope = 'api_key' and l.scope_id = k.id
        where k.org_id = ${orgId} and k.revoked_at is null
        order by k.created_at, k.id`,
  );
}

/**
 * The project's calls in the window that a limit refused, by the scope that refused them (the
 * project, the call's workload or its key) and the limit. Reads the partial index of refused calls.
 */
async function refusedCalls(
  db: Db,
  window: TimeWindow,
): Promise<(scope: LimitScope, id: string) => RefusalCounts> {
  const d = sqlFor(db);
  const refusedBy = sql`c.refused_by`;
  const rows = await queryRows<{ scope: LimitScope; scope_id: string; limit_name: LimitName; n: unknown }>(
    db,
    sql`
    select r.scope, case r.scope when 'project' then r.project_id when 'workload' then r.workload_id
                                 else r.api_key_id end as scope_id,
           r.limit_name, sum(r.n) as n
    from (
      select ${d.refusedScope(refusedBy)} as scope, ${d.refusedLimit(refusedBy)} as limit_name,
             c.project_id, c.workload_id, c.api_key_id, c.n
      from (
        -- counted by refusal and ids first: the scope and limit are split out of a few groups, not every row
        select c.refused_by, c.project_id, c.workload_id, c.api_key_id, count(*) as n
        from calls c
        where c.project_id = ${window.projectId} and c.received_at >= ${d.ts(window.start)}
          and c.received_at <= ${d.ts(window.end)} and c.refused_by is not null
        group by 1, 2, 3, 4
      ) c
    ) r
    group by 1, 2, 3`,
  );
  return (scope, id) => {
    const byLimit = Object.fromEntries(limitNames.map((name) => [name, 0])) as Record<LimitName, number>;
    for (const row of rows)
      if (row.scope === scope && row.scope_id === id && row.limit_name in byLimit)
        byLimit[row.limit_name] += toCount(row.n);
    return { total: Object.values(byLimit).reduce((a, b) => a + b, 0), by_limit: byLimit };
  };
}
