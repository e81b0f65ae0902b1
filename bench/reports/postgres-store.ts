import { execFileSync } from "node:child_process";
import { openDb, queryRows, runMigrations } from "@gateway/db";
import { freshPostgresDatabase } from "@gateway/db/testing";
import { sql } from "drizzle-orm";
import { type BenchStore, type FillPlan, filledColumns } from "./bench-store.ts";

/** A fresh database on `infra/postgres.sh`'s server (or BENCH_POSTGRES_URL), dropped at the end. */
export async function openPostgresBench({ total, since, projectId }: FillPlan): Promise<BenchStore> {
  const server =
    process.env.BENCH_POSTGRES_URL ??
    execFileSync("bash", ["infra/postgres.sh", "url"], { encoding: "utf8" }).trim();
  const fresh = await freshPostgresDatabase(server);
  const handle = await openDb({ ...fresh.config, max: 4 });
  await runMigrations(handle);
  const { db } = handle;
  // `calls` is partitioned by UTC day (migration 0006): the 30 days filled need theirs first
  await db.execute(sql`
    select gateway_day_partition('calls', (d at time zone 'UTC')::date)
    from generate_series(${since.toISOString()}::timestamptz, ${since.toISOString()}::timestamptz + interval '31 days', interval '1 day') d`);
  return {
    name: "postgres",
    db,
    async fill(from, to) {
      await db.execute(sql`
        insert into calls (${filledColumns})
        select 'req_' || lpad(g::text, 12, '0'), 'org_bench', ${projectId}, 'usp_w' || (g % 8), 'api_key_bench',
          ${since.toISOString()}::timestamptz + (g::float8 / ${total}) * interval '30 days',
          case when g % 2 = 0 then 'messages' else 'chat_completions' end,
          case when g % 2 = 0 then 'provider_a' else 'provider_b' end, 'byo',
          case when g % 50 = 0 then 'fallback' when g % 20 = 0 then 'gateway' else 'primary' end,
          'model-' || (g % 6), 'model-' || (g % 6), g % 3 = 0,
          case when g % 33 = 0 then 502 else 200 end, ((g * 7919) % 99800) / 10.0 + 20,
          (((g * 7919) % 99800) / 10.0 + 20) / 4, 'complete', '{}'::jsonb,
          g % 900, g % 4000, g % 300, g % 300, 0, g % 700,
          case when g % 20 = 7 then 'unpriced' else 'priced' end,
          case when g % 20 = 7 then 'no_price' end,
          case when g % 20 = 7 then null else 'price_bench' end,
          (g % 900) * 0.000003, (g % 300) * 0.00000375, (g % 4000) * 0.0000003, (g % 700) * 0.000015,
          case when g % 20 = 7 then null
            else (g % 900) * 0.000003 + (g % 300) * 0.00000375 + (g % 4000) * 0.0000003 + (g % 700) * 0.000015 end
        from generate_series(${from}::bigint, ${to}::bigint) g`);
    },
    async settle() {
      await db.execute(sql`vacuum analyze calls`);
      await db.execute(sql`vacuum analyze call_rollups_hourly`);
      await db.execute(sql`vacuum analyze call_latency_hourly`);
    },
    async sizeBytes() {
      const [row] = await queryRows<{ n: string }>(db, sql`select pg_database_size(current_database()) as n`);
      return Number(row?.n);
    },
    async dispose() {
      await handle.close();
      await fresh.drop();
    },
  };
}
