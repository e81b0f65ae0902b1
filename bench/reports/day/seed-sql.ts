import { callColumns, callSelect, isProblem, offset, type RowDialect } from "./call-rows.ts";
import {
  type CallSegment,
  callsPerDay,
  dayStart,
  edgeHours,
  orgId,
  projectId,
  rollupHours,
  routeShares,
} from "./shape.ts";

/**
 * The bulk statements that seed the day, per store: PostgreSQL counts with `generate_series`,
 * SQLite (no generate_series in node:sqlite) with a recursive CTE; one statement per chunk, never
 * a row at a time.
 */
export interface SeedSql {
  calls(segment: CallSegment): string;
  /** Deletes the rollups of every hour but the edge hours (rebuilt from their calls before). */
  keepEdgeRollups(): string;
  rollups(): string;
}

const keepOnly = (edges: string) => `delete from call_rollups_hourly where hour not in (${edges})`;

const perHourGroup = callsPerDay / 24 / (40 * 11);
/** What one call adds on average, from the raw fill's residues (tokens: about the mean of `n % k`). */
const mean = { input: 450, cacheRead: 2000, cacheWrite: 150, output: 350 };
const costPerPriced =
  (mean.input * 3 + mean.cacheWrite * 3.75 + mean.cacheRead * 0.3 + mean.output * 15) / 1e6;

/**
 * The 30 days' rollups: 40 workloads x 11 models x 3 routes an hour, at 100M calls a day; not
 * the edge hours, whose rollups are built from their raw calls.
 */
function rollupSelect(hour: string, money: (usd: string) => string, edges: string): string {
  const routes = routeShares
    .map(([route, share]) => `select '${route}' as route, ${Math.round(perHourGroup * share)} as r`)
    .join(" union all ");
  return `insert into call_rollups_hourly (project_id, hour, workload_id, provider_label, model, route, requests,
      errors, errors_5xx, failing, timeouts, input_tokens, cache_read_input_tokens, cache_creation_input_tokens,
      output_tokens, priced_requests, customer_cost_usd)
    select '${projectId}', ${hour}, 'wl_bench_' || w, case m % 3 when 0 then 'provider_a' when 1 then 'provider_b'
        else 'managed' end, 'model-' || m, rt.route, rt.r, rt.r * 4 / 100, rt.r / 33,
      rt.r / 33 + rt.r / 400 + case rt.route when 'fallback' then rt.r else 0 end,
      case rt.route when 'fallback' then rt.r / 4 else 0 end,
      rt.r * ${mean.input}, rt.r * ${mean.cacheRead}, rt.r * ${mean.cacheWrite}, rt.r * ${mean.output},
      rt.r * 91 / 100, ${money(`(rt.r * 91 / 100) * ${costPerPriced}`)}`.concat(
    ` from hours, workload_numbers, model_numbers, (${routes}) rt where ${hour} not in (${edges})`,
  );
}

const keepWhere = (segment: CallSegment) => (segment.problemsOnly ? `where ${isProblem}` : "");

const postgresRows: RowDialect = {
  receivedAt: (micros) =>
    `'${dayStart.toISOString()}'::timestamptz + (${micros} / 1000) * interval '1 millisecond'`,
  money: (tokens, micros) => `(${tokens}) * ${micros}::numeric / 1000000`,
  emptyJson: "{}",
};

const postgresEdges = edgeHours.map((h) => `'${h.toISOString()}'::timestamptz`).join(", ");
const sqliteEdges = edgeHours.map((h) => h.getTime()).join(", ");

export const postgresSeed: SeedSql = {
  keepEdgeRollups: () => keepOnly(postgresEdges),
  calls: (segment) => `insert into calls (${callColumns})
    select ${callSelect(postgresRows, orgId, projectId)}
    from generate_series(${segment.from + offset}::bigint, ${segment.to + offset}::bigint) n ${keepWhere(segment)}`,
  rollups:
    () => `with hours as (select '${rollupHours.first.toISOString()}'::timestamptz + h * interval '1 hour' as hour
      from generate_series(0, ${rollupHours.count - 1}) h),
    workload_numbers as (select generate_series(0, 39) as w), model_numbers as (select generate_series(0, 10) as m)
    ${rollupSelect("hours.hour", (usd) => `(${usd})::numeric`, postgresEdges)}`,
};

const sqliteRows: RowDialect = {
  receivedAt: (micros) => `${dayStart.getTime()} + ${micros} / 1000`,
  // pico-dollars: micro-dollars per token times 10^6
  money: (tokens, micros) => `(${tokens}) * ${Math.round(micros * 1_000_000)}`,
  emptyJson: "{}",
};

/** A recursive CTE `table(column)` counting from `from` to `to`. */
const counting = (table: string, column: string, from: number, to: number) =>
  `${table}(${column}) as (select ${from} union all select ${column} + 1 from ${table} where ${column} < ${to})`;

export const sqliteSeed: SeedSql = {
  keepEdgeRollups: () => keepOnly(sqliteEdges),
  calls: (segment) => `with recursive ${counting("s", "n", segment.from + offset, segment.to + offset)}
    insert into calls (${callColumns})
    select ${callSelect(sqliteRows, orgId, projectId)} from s ${keepWhere(segment)}`,
  rollups: () => `with recursive ${counting("numbered", "h", 0, rollupHours.count - 1)},
    hours(hour) as (select ${rollupHours.first.getTime()} + h * 3600000 from numbered),
    ${counting("workload_numbers", "w", 0, 39)}, ${counting("model_numbers", "m", 0, 10)}
    ${rollupSelect("hours.hour", (usd) => `cast(${usd} * 1000000000000 as integer)`, sqliteEdges)}`,
};
