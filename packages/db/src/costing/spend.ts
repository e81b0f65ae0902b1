import { sql } from "drizzle-orm";

/** The budget day of a call over `calls c`: its UTC calendar date. */
export const dayOf = sql`(c.received_at at time zone 'UTC')::date`;

/**
 * The scopes a call's cost is counted in (its key, project and workload), as rows
 * `s(scope, scope_id)` of a call row aliased `alias`: join it with `cross join lateral`.
 */
export function scopesOfCall(alias: string) {
  const a = sql.raw(alias);
  return sql`lateral (
    values ('api_key', ${a}.api_key_id), ('project', ${a}.project_id), ('workload', ${a}.workload_id)
  ) s(scope, scope_id)`;
}

/**
 * Inside the pricing statement: adds the cost change of the `changed` calls to `spend_daily` in
 * each scope of the call, by UTC day and mode. Calls that were unpriced and stay so change
 * nothing and make no row. Ordered like the rollups, so concurrent pricing statements take the
 * rows' locks in one order.
 */
export const addToSpend = sql`
  insert into spend_daily (scope, scope_id, day, mode, customer_cost_usd)
  select s.scope, s.scope_id, ch.day, ch.mode, sum(coalesce(ch.new_cost, 0) - coalesce(ch.old_cost, 0))
  from changed ch
  cross join ${scopesOfCall("ch")}
  where ch.new_cost is not null or ch.old_cost is not null
  group by 1, 2, 3, 4
  order by 1, 2, 3, 4
  on conflict (scope, scope_id, day, mode)
    do update set customer_cost_usd = spend_daily.customer_cost_usd + excluded.customer_cost_usd`;
