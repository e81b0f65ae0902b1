import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Db,
  type DbHandle,
  insertPrice,
  priceCallsById,
  queryRows,
  repriceCallsFor,
} from "../src/index.ts";
import { testStores } from "../src/testing/index.ts";
import {
  model,
  newer,
  newerFrom,
  openSpendCallsDb,
  picoCost,
  picoToUsd,
  priceRow,
  ratesOf,
  spendCalls,
} from "./support/spend-calls.ts";

/** spend_daily as it should be, computed apart from the database: `scope|id|day|mode` → dollars. */
function expectedSpend(newerExists: boolean): Record<string, string> {
  const sums = new Map<string, bigint>();
  for (const c of spendCalls) {
    const rates = ratesOf(c, newerExists);
    if (!rates || !c.tokens) continue;
    for (const [scope, id] of [
      ["api_key", c.key],
      ["project", c.project],
      ["workload", c.workload],
    ]) {
      const key = `${scope}|${id}|${c.at.slice(0, 10)}|${c.mode}`;
      sums.set(key, (sums.get(key) ?? 0n) + picoCost(c.tokens, rates));
    }
  }
  return Object.fromEntries([...sums].map(([key, pico]) => [key, picoToUsd(pico)]));
}

/** Exact dollars of a money value as each store keeps it: `numeric` text, or SQLite's pico-dollars. */
const usdOf = (value: unknown, kind: DbHandle["kind"]) =>
  kind === "sqlite" ? picoToUsd(BigInt(Number(value))) : String(value);

/** The spend_daily rows, `scope|id|day|mode` → dollars. */
async function spendRows({ db, kind }: DbHandle): Promise<Record<string, string>> {
  const rows = await queryRows<{ key: string; usd: unknown }>(
    db,
    kind === "sqlite"
      ? sql`select scope || '|' || scope_id || '|' || day || '|' || mode as key, customer_cost_usd as usd
            from spend_daily order by 1`
      : sql`select scope || '|' || scope_id || '|' || day::text || '|' || mode as key,
                   trim_scale(customer_cost_usd)::text as usd
            from spend_daily order by 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, usdOf(r.usd, kind)]));
}

/** The database's own sums of the priced calls, by project, UTC day and mode, in the same keys. */
async function callSums({ db, kind }: DbHandle): Promise<{ key: string; usd: string }[]> {
  const rows = await queryRows<{ key: string; usd: unknown }>(
    db,
    kind === "sqlite"
      ? sql`select 'project|' || project_id || '|' || strftime('%Y-%m-%d', received_at / 1000, 'unixepoch')
                   || '|' || mode as key, sum(customer_cost_usd) as usd
            from calls where customer_cost_usd is not null group by 1`
      : sql`select 'project|' || project_id || '|' || (received_at at time zone 'UTC')::date::text || '|' || mode as key,
                   trim_scale(sum(customer_cost_usd))::text as usd
            from calls where customer_cost_usd is not null group by 1`,
  );
  return rows.map((r) => ({ key: r.key, usd: usdOf(r.usd, kind) }));
}

describe.each(testStores())("daily spend on %s", (store) => {
  let handle: DbHandle;
  let db: Db;
  beforeAll(async () => {
    handle = await openSpendCallsDb(store);
    db = handle.db;
  });
  afterAll(() => handle?.close());

  const ids = spendCalls.map((c) => c.id);

  it("pricing adds each priced call's cost to its key, project and workload, by UTC day and mode, exactly", async () => {
    expect(await spendRows(handle)).toEqual({});
    await priceCallsById(db, ids);
    const spend = await spendRows(handle);
    expect(spend).toEqual(expectedSpend(false));
    // the millisecond before midnight is the previous day
    expect(spend["project|p1|2026-11-24|byo"]).toBeDefined();
    // and the database's own sums of the calls agree
    const sums = await callSums(handle);
    expect(sums.length).toBeGreaterThan(2);
    for (const { key, usd } of sums) expect(spend[key], key).toBe(usd);
  });

  it("re-pricing with a newer price moves it by exactly the change", async () => {
    const before = await spendRows(handle);
    await insertPrice(db, priceRow("price_newer", newerFrom, newer));
    expect(await repriceCallsFor(db, model)).toBe(3);
    const after = await spendRows(handle);
    expect(after).toEqual(expectedSpend(true));
    // the day before the newer price did not move
    expect(after["project|p1|2026-11-24|byo"]).toBe(before["project|p1|2026-11-24|byo"]);
    expect(after["api_key|k1|2026-10-31|byo"]).toBe(before["api_key|k1|2026-10-31|byo"]);
  });

  it("pricing again (a redelivered job, a second re-price) changes nothing", async () => {
    const before = await spendRows(handle);
    expect(await priceCallsById(db, ids)).toBe(0);
    expect(await repriceCallsFor(db, model)).toBe(0);
    expect(await spendRows(handle)).toEqual(before);
  });
});
