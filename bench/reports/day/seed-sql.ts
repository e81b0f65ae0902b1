import { callColumns, callSelect, isProblem, offset, type RowDialect } from "./call-rows.ts";
import {
  type CallSegment,
  dayStart,
  edgeHours,
  minuteRollupHours,
  orgId,
  projectId,
  rollupHours,
} from "./shape.ts";

/**
 * The bulk statements that seed the day, per store: PostgreSQL counts with `generate_series`,
 * SQLite (no generate_series in node:sqlite) with a recursive CTE; one statement per chunk, never
 * a row at a time.
 */
export interface SeedSql {
  calls(segment: CallSegment): string;
  /** Deletes the rollups (hourly and per minute) of every hour but the edge hours (rebuilt from their calls before). */
  keepEdgeRollups(): string[];
  rollups(): string;
  minuteRollups(): string;
}

const keepOnly = (edges: string, hourOfMinute: string) => [
  `delete from call_rollups_hourly where hour not in (${edges})`,
  `delete from call_rollups_minutely where ${hourOfMinute} not in (${edges})`,
];

const measures = `requests, errors, errors_5xx, failing, timeouts, input_tokens, cache_read_input_tokens,
    cache_creation_input_tokens, output_tokens, priced_requests, customer_cost_usd`;

/**
 * Every other hour of the 30 days gets the rollups of a whole raw hour (the 7-day window's edge
 * hour): the same groups, with the same problem counts, as the raw calls of any hour, so the totals
 * and the raw problem calls agree as they do in a store the product fills.
 */
function copiedRollups(hour: (h: string) => string, model: string, edges: string): string {
  return `insert into call_rollups_hourly (project_id, hour, workload_id, provider_label, model, route, ${measures})
    select r.project_id, ${hour("hours.h")}, r.workload_id, r.provider_label, r.model, r.route, ${measures}
    from call_rollups_hourly r, hours
    where r.hour = ${model} and ${hour("hours.h")} not in (${edges})`;
}

/**
 * Every other hour of the last 24 gets the per-minute rollups of the same whole raw hour as the
 * hourly copies (`model`, ending `modelEnd`), moved to its own minutes.
 */
function copiedMinuteRollups(hour: (h: string) => string, model: string, modelEnd: string, edges: string) {
  return `insert into call_rollups_minutely (project_id, minute, workload_id, provider_label, model, route, ${measures})
    select r.project_id, r.minute + (${hour("hours.h")} - ${model}), r.workload_id, r.provider_label, r.model, r.route, ${measures}
    from call_rollups_minutely r, hours
    where r.minute >= ${model} and r.minute < ${modelEnd} and ${hour("hours.h")} not in (${edges})`;
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
  keepEdgeRollups: () => keepOnly(postgresEdges, "date_trunc('hour', minute)"),
  calls: (segment) => `insert into calls (${callColumns})
    select ${callSelect(postgresRows, orgId, projectId)}
    from generate_series(${segment.from + offset}::bigint, ${segment.to + offset}::bigint) n ${keepWhere(segment)}`,
  rollups: () => `with hours as (select generate_series(0, ${rollupHours.count - 1}) as h)
    ${copiedRollups((h) => `'${rollupHours.first.toISOString()}'::timestamptz + ${h} * interval '1 hour'`, postgresEdges.split(", ")[1]!, postgresEdges)}`,
  minuteRollups: () => `with hours as (select generate_series(0, ${minuteRollupHours.count - 1}) as h)
    ${copiedMinuteRollups((h) => `'${minuteRollupHours.first.toISOString()}'::timestamptz + ${h} * interval '1 hour'`, postgresEdges.split(", ")[1]!, `${postgresEdges.split(", ")[1]!} + interval '1 hour'`, postgresEdges)}`,
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
  keepEdgeRollups: () => keepOnly(sqliteEdges, "minute - minute % 3600000"),
  calls: (segment) => `with recursive ${counting("s", "n", segment.from + offset, segment.to + offset)}
    insert into calls (${callColumns})
    select ${callSelect(sqliteRows, orgId, projectId)} from s ${keepWhere(segment)}`,
  rollups: () => `with recursive ${counting("hours", "h", 0, rollupHours.count - 1)}
    ${copiedRollups((h) => `(${rollupHours.first.getTime()} + ${h} * 3600000)`, sqliteEdges.split(", ")[1]!, sqliteEdges)}`,
  minuteRollups: () => `with recursive ${counting("hours", "h", 0, minuteRollupHours.count - 1)}
    ${copiedMinuteRollups((h) => `(${minuteRollupHours.first.getTime()} + ${h} * 3600000)`, sqliteEdges.split(", ")[1]!, `${sqliteEdges.split(", ")[1]!} + 3600000`, sqliteEdges)}`,
};
