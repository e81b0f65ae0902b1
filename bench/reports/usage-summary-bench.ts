/**
 * The 30-day usage summary over ten million calls, on PostgreSQL (`infra/postgres.sh start`).
 *
 *   pnpm bench:reports            # BENCH_CALLS=10000000 by default; BENCH_POSTGRES_URL to override
 *
 * Builds a throwaway database (dropped at the end), fills `calls` with SQL generate_series (never row by row) spread
 * over 30 days, builds the hourly rollups from them, then times the report queries the
 * control plane runs (the same functions), warm, as the median of several runs.
 */
import { execFileSync } from "node:child_process";
import {
  openDb,
  providerHealth,
  rebuildRollups,
  runMigrations,
  usageSummaryGroups,
  workloadStatuses,
} from "@gateway/db";
import { freshPostgresDatabase } from "@gateway/db/testing";
import { sql } from "drizzle-orm";

const total = Number(process.env.BENCH_CALLS ?? 10_000_000);
const chunk = 1_000_000;
const server =
  process.env.BENCH_POSTGRES_URL ??
  execFileSync("bash", ["infra/postgres.sh", "url"], { encoding: "utf8" }).trim();
const fresh = await freshPostgresDatabase(server);
const handle = await openDb({ ...fresh.config, max: 4 });
await runMigrations(handle);
const { db } = handle;

const projectId = "proj_bench";
const now = new Date();
const since = new Date(now.getTime() - 30 * 86_400_000);
const t = Date.now();
for (let from = 1; from <= total; from += chunk) {
  const to = Math.min(total, from + chunk - 1);
  // Eight workloads, six models, 3% 5xx, 2% fallbacks, 5% routed; 95% priced at exact numeric costs.
  await db.execute(sql`
    insert into calls (request_id, org_id, project_id, workload_id, api_key_id, received_at, endpoint,
      provider_label, mode, route, requested_model, served_model, stream, status, total_ms, stream_outcome,
      tags, input_tokens, cache_read_input_tokens, cache_creation_input_tokens, cache_creation_5m_input_tokens,
      cache_creation_1h_input_tokens, output_tokens, pricing_status, unpriced_reason, price_id,
      uncached_input_usd, cache_write_usd, cache_read_usd, output_usd, customer_cost_usd)
    select 'req_' || lpad(g::text, 12, '0'), 'org_bench', ${projectId}, 'usp_w' || (g % 8), 'api_key_bench',
      ${since.toISOString()}::timestamptz + (g::float8 / ${total}) * interval '30 days',
      case when g % 2 = 0 then 'messages' else 'chat_completions' end,
      case when g % 2 = 0 then 'provider_a' else 'provider_b' end, 'byo',
      case when g % 50 = 0 then 'fallback' when g % 20 = 0 then 'gateway' else 'primary' end,
      'model-' || (g % 6), 'model-' || (g % 6), g % 3 = 0,
      case when g % 33 = 0 then 502 else 200 end, 100, 'complete', '{}'::jsonb,
      g % 900, g % 4000, g % 300, g % 300, 0, g % 700,
      case when g % 20 = 7 then 'unpriced' else 'priced' end,
      case when g % 20 = 7 then 'no_price' end,
      case when g % 20 = 7 then null else 'price_bench' end,
      (g % 900) * 0.000003, (g % 300) * 0.00000375, (g % 4000) * 0.0000003, (g % 700) * 0.000015,
      case when g % 20 = 7 then null
        else (g % 900) * 0.000003 + (g % 300) * 0.00000375 + (g % 4000) * 0.0000003 + (g % 700) * 0.000015 end
    from generate_series(${from}::bigint, ${to}::bigint) g`);
  process.stdout.write(`  inserted ${to} calls (${((Date.now() - t) / 1000).toFixed(0)} s)\n`);
}
await rebuildRollups(db);
await db.execute(sql`vacuum analyze calls`);
await db.execute(sql`vacuum analyze call_rollups_hourly`);
const loadSeconds = (Date.now() - t) / 1000;

async function median(label: string, run: () => Promise<unknown>) {
  await run(); // warm
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = times[2]!;
  process.stdout.write(
    `${label}: median ${ms.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times[4]!.toFixed(1)})\n`,
  );
  return ms;
}

const window30d = { projectId, start: new Date(Date.now() - 30 * 86_400_000), end: new Date() };
const window24h = { projectId, start: new Date(Date.now() - 86_400_000), end: new Date() };
const [rollups] = (await db.execute(sql`select count(*)::int as n from call_rollups_hourly`)) as unknown as {
  n: number;
}[];
process.stdout.write(`\n${total} calls, ${rollups?.n} rollup rows, loaded in ${loadSeconds.toFixed(0)} s\n`);
await median("usage-summary 30d group_by=workload", () => usageSummaryGroups(db, window30d, ["workload"]));
await median("usage-summary 30d group_by=workload,model,day", () =>
  usageSummaryGroups(db, window30d, ["workload", "model", "day"]),
);
await median("provider-health 24h", () => providerHealth(db, window24h));
await median("workload-status 24h", () => workloadStatuses(db, window24h));
await handle.close();
await fresh.drop();
