import { type SQL, sql } from "drizzle-orm";
import type { PgDb } from "../client.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows, toCount } from "../sql-rows.ts";
import { modelKey, type RollupTable, rollupPeriods, rollupTables } from "./measures.ts";

/** The budget day of a call over `calls c`: its UTC calendar date. */
const dayOf = sql`(c.received_at at time zone 'UTC')::date`;

/**
 * Inside the pricing statement: adds the cost change of the `changed` calls to `spend_daily` in
 * each scope of the call (its key, project and workload), by UTC day and mode. Calls that were unpriced and stay so change
 * nothing and make no row. Ordered like the rollups, so concurrent pricing statements take the
 * rows' locks in one order.
 */
const addToSpend = sql`
  insert into spend_daily (scope, scope_id, day, mode, customer_cost_usd)
  select s.scope, s.scope_id, ch.day, ch.mode, sum(coalesce(ch.new_cost, 0) - coalesce(ch.old_cost, 0))
  from changed ch
  cross join lateral (
    values ('api_key', ch.api_key_id), ('project', ch.project_id), ('workload', ch.workload_id)
  ) s(scope, scope_id)
  where ch.new_cost is not null or ch.old_cost is not null
  group by 1, 2, 3, 4
  order by 1, 2, 3, 4
  on conflict (scope, scope_id, day, mode)
    do update set customer_cost_usd = spend_daily.customer_cost_usd + excluded.customer_cost_usd`;

/**
 * Inside the pricing statement: moves the `changed` calls' cost and priced count in a rollup
 * table (its rows exist: the calls were added to them when inserted). A CTE named `moved_<period>`.
 */
function moveRollups(table: RollupTable): SQL {
  const period = sql.raw(table.period);
  return sql`${sql.raw(`moved_${table.period}`)} as (
      update ${sql.raw(table.name)} r set
        customer_cost_usd = r.customer_cost_usd + d.cost_delta,
        priced_requests = r.priced_requests + d.priced_delta
      from (
        select project_id, ${period}, workload_id, provider_label, model, route,
               sum(coalesce(new_cost, 0) - coalesce(old_cost, 0)) as cost_delta,
               sum((case when price_id is null then 0 else 1 end)
                 - (case when old_status = 'priced' then 1 else 0 end)) as priced_delta
        from changed
        group by 1, 2, 3, 4, 5, 6
      ) d
      where r.project_id = d.project_id and r.${period} = d.${period} and r.workload_id = d.workload_id
        and r.provider_label = d.provider_label and r.model = d.model and r.route = d.route
      returning 1
    )`;
}

/**
 * `priceCalls` on PostgreSQL (see pricing.ts for what it does): one statement, money in
 * `numeric`, per-million prices times integer token counts times 0.000001, exact.
 */
export async function priceCallsPostgres(db: PgDb, scope: SQL): Promise<number> {
  const rows = await queryRows<{ changed: unknown }>(
    db,
    sql`
    with target as (
      select c.request_id, c.project_id, ${rollupPeriods(sqlFor(db))}, c.workload_id, c.provider_label,
             ${modelKey} as model, c.route, c.api_key_id, c.mode, ${dayOf} as day,
             c.customer_cost_usd as old_cost, c.pricing_status as old_status, c.unpriced_reason as old_reason,
             c.price_id as old_price_id,
             p.id as price_id,
             c.input_tokens * p.input_usd_per_mtok * 0.000001 as uncached_input_usd,
             (c.cache_creation_5m_input_tokens * p.cache_write_5m_usd_per_mtok
               + c.cache_creation_1h_input_tokens * p.cache_write_1h_usd_per_mtok) * 0.000001 as cache_write_usd,
             c.cache_read_input_tokens * p.cache_read_usd_per_mtok * 0.000001 as cache_read_usd,
             c.output_tokens * p.output_usd_per_mtok * 0.000001 as output_usd
      from calls c
      left join lateral (
        select * from prices p
        where p.model = c.served_model and p.effective_from <= c.received_at
        order by p.effective_from desc
        limit 1
      ) p on true
      where c.input_tokens is not null and (${scope})
      for update of c
    ),
    computed as (
      select t.*, t.uncached_input_usd + t.cache_write_usd + t.cache_read_usd + t.output_usd as new_cost
      from target t
    ),
    changed as (
      select * from computed
      where old_reason is distinct from (case when price_id is null then 'no_price' end)
         or old_price_id is distinct from price_id
         or old_cost is distinct from new_cost
    ),
    updated as (
      update calls set
        pricing_status = case when ch.price_id is null then 'unpriced' else 'priced' end,
        unpriced_reason = case when ch.price_id is null then 'no_price' end,
        price_id = ch.price_id,
        priced_at = case when ch.price_id is null then null else now() end,
        -- a call costed before (not waiting for its first costing) is being re-priced
        repriced_at = case when ch.old_reason is distinct from 'pricing_pending' then now() end,
        repriced_from_price_id = case when ch.old_reason is distinct from 'pricing_pending' then ch.old_price_id end,
        uncached_input_usd = ch.uncached_input_usd,
        cache_write_usd = ch.cache_write_usd,
        cache_read_usd = ch.cache_read_usd,
        output_usd = ch.output_usd,
        customer_cost_usd = ch.new_cost
      from changed ch
      where calls.request_id = ch.request_id
      returning 1
    ),
    ${sql.join(rollupTables.map(moveRollups), sql`, `)},
    spent as (
      ${addToSpend}
      returning 1
    )
    select (select count(*) from updated) as changed, ${sql.join(
      rollupTables.map((t) => sql`(select count(*) from ${sql.raw(`moved_${t.period}`)})`),
      sql`, `,
    )}, (select count(*) from spent) as spent`,
  );
  return toCount(rows[0]?.changed);
}
