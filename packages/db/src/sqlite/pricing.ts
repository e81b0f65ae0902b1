import type { SQLInputValue } from "node:sqlite";
import { type SQL, sql } from "drizzle-orm";
import { type CostInputs, costOf } from "../costing/cost-math.ts";
import { modelKey, rollupPeriods, rollupTables } from "../costing/measures.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import type { SqliteDb } from "./sqlite-db.ts";

/** A call `priceCalls` looks at, with the price row that covers it (null columns when none). */
interface Target extends CostInputs {
  request_id: string;
  project_id: string;
  /** The call's period in each rollup table (`hour`, `minute`). */
  hour: number;
  minute: number;
  workload_id: string;
  provider_label: string;
  model: string;
  route: string;
  api_key_id: string;
  mode: string;
  day: string;
  /** Pico-dollars as text: a call's cost may pass 2^53, which node:sqlite will not read as a number. */
  old_cost: string | null;
  old_status: string;
  old_reason: string | null;
  old_price_id: string | null;
  price_id: string | null;
}

/**
 * `priceCalls` on SQLite (see costing/pricing.ts), inside the caller's transaction: the targets and
 * their prices read in one query, the costs computed in BigInt pico-dollars, the changed calls,
 * their rollups and their spend written with prepared statements.
 */
export async function priceCallsSqlite(tx: SqliteDb, scope: SQL): Promise<number> {
  const d = sqlFor(tx);
  const targets = await queryRows<Target & Record<string, unknown>>(
    tx,
    sql`
    select c.request_id, c.project_id, ${rollupPeriods(d)}, c.workload_id, c.provider_label,
           ${modelKey} as model, c.route, c.api_key_id, c.mode, ${d.dayOf(sql`c.received_at`)} as day,
           cast(c.customer_cost_usd as text) as old_cost, c.pricing_status as old_status, c.unpriced_reason as old_reason,
           c.price_id as old_price_id, c.input_tokens, c.cache_creation_5m_input_tokens as w5m,
           c.cache_creation_1h_input_tokens as w1h, c.cache_read_input_tokens as read, c.output_tokens as output,
           p.id as price_id, p.input_usd_per_mtok as p_in, p.cache_write_5m_usd_per_mtok as p_w5m,
           p.cache_write_1h_usd_per_mtok as p_w1h, p.cache_read_usd_per_mtok as p_read, p.output_usd_per_mtok as p_out
    from calls c
    left join prices p on p.id = (
      select p2.id from prices p2
      where p2.model = c.served_model and p2.effective_from <= c.received_at
      order by p2.effective_from desc limit 1)
    where c.input_tokens is not null and (${scope})`,
  );
  const conn = tx.connection;
  const updateCall = conn.statement(`update calls set pricing_status = ?, unpriced_reason = ?, price_id = ?,
    priced_at = ?, repriced_at = ?, repriced_from_price_id = ?, uncached_input_usd = ?, cache_write_usd = ?,
    cache_read_usd = ?, output_usd = ?, customer_cost_usd = ? where request_id = ?`);
  const rollups = new Map(
    rollupTables.map((table) => [
      table,
      new Map<string, { key: SQLInputValue[]; cost: bigint; priced: number }>(),
    ]),
  );
  const spend = new Map<string, { key: SQLInputValue[]; cost: bigint }>();
  const now = Date.now();
  let changed = 0;
  for (const t of targets) {
    const cost = costOf(t);
    const oldCost = t.old_cost === null ? null : BigInt(t.old_cost);
    const reason = t.price_id === null ? "no_price" : null;
    if (t.old_reason === reason && t.old_price_id === t.price_id && oldCost === cost.total) continue;
    changed += 1;
    const priced = t.price_id !== null;
    // a call costed before (not waiting for its first costing) is being re-priced
    const repriced = t.old_reason !== "pricing_pending";
    updateCall.run(
      priced ? "priced" : "unpriced",
      reason,
      t.price_id,
      priced ? now : null,
      repriced ? now : null,
      repriced ? t.old_price_id : null,
      cost.uncached,
      cost.write,
      cost.read,
      cost.output,
      cost.total,
      t.request_id,
    );
    const delta = (cost.total ?? 0n) - (oldCost ?? 0n);
    for (const [table, moves] of rollups) {
      const key = [t.project_id, t[table.period], t.workload_id, t.provider_label, t.model, t.route];
      const move = moves.get(JSON.stringify(key)) ?? { key, cost: 0n, priced: 0 };
      move.cost += delta;
      move.priced += (priced ? 1 : 0) - (t.old_status === "priced" ? 1 : 0);
      moves.set(JSON.stringify(key), move);
    }
    if (cost.total === null && oldCost === null) continue;
    for (const [scope, id] of [
      ["api_key", t.api_key_id],
      ["project", t.project_id],
      ["workload", t.workload_id],
    ] as const) {
      const key = [scope, id, t.day, t.mode];
      const entry = spend.get(JSON.stringify(key)) ?? { key, cost: 0n };
      entry.cost += delta;
      spend.set(JSON.stringify(key), entry);
    }
  }
  for (const [table, moves] of rollups) {
    const moveRollup = conn.statement(`update ${table.name}
      set customer_cost_usd = customer_cost_usd + ?, priced_requests = priced_requests + ?
      where project_id = ? and ${table.period} = ? and workload_id = ? and provider_label = ? and model = ? and route = ?`);
    for (const r of moves.values()) moveRollup.run(r.cost, r.priced, ...r.key);
  }
  const addSpend = conn.statement(`insert into spend_daily (scope, scope_id, day, mode, customer_cost_usd)
    values (?, ?, ?, ?, ?) on conflict (scope, scope_id, day, mode)
    do update set customer_cost_usd = spend_daily.customer_cost_usd + excluded.customer_cost_usd`);
  for (const s of spend.values()) addSpend.run(...s.key, s.cost);
  return changed;
}
