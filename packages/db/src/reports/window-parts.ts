import { type SQL, sql } from "drizzle-orm";
import type { SqlDialect } from "../sql-dialect.ts";

/** Instants from `from` to `to`: `to` excluded, or included when `closed`. */
export interface TimeRange {
  from: Date;
  to: Date;
  closed?: boolean;
}

/** Where a report reads each part of its window from. */
export interface WindowParts {
  /** Whole UTC hours: `call_rollups_hourly`. */
  hours: TimeRange | null;
  /** Whole UTC minutes of the edge hours: `call_rollups_minutely`. */
  minutes: TimeRange[];
  /** The partial minutes at the window's edges: `calls`. */
  raw: TimeRange[];
}

const hourMs = 3_600_000;
const minuteMs = 60_000;
const floorTo = (t: Date, stepMs: number) => new Date(Math.floor(t.getTime() / stepMs) * stepMs);
const ceilTo = (t: Date, stepMs: number) => new Date(Math.ceil(t.getTime() / stepMs) * stepMs);

/** An edge of the window: its whole minutes, and the partial minutes either side of them raw. */
function splitEdge(edge: TimeRange, parts: WindowParts) {
  const first = ceilTo(edge.from, minuteMs);
  const last = floorTo(edge.to, minuteMs);
  if (first >= last) {
    parts.raw.push(edge);
    return;
  }
  parts.minutes.push({ from: first, to: last });
  if (edge.from < first) parts.raw.push({ from: edge.from, to: first });
  if (last < edge.to || edge.closed) parts.raw.push({ from: last, to: edge.to, closed: edge.closed });
}

/**
 * Splits a window [start, end] (both included) into the whole UTC hours inside it, the whole
 * minutes of its edge hours and the partial minutes left at its ends: a report reads at most two
 * partial minutes of raw calls, whatever the window. Every part sums the same measures, so the
 * result is what a scan of every call in the window would give. A start older than the org keeps
 * call rows (`rawSince`; its minute rollups go with them) has no rows to read: its whole hour comes
 * from the hourly rollups instead, so the window reported starts up to an hour early rather than
 * missing calls (docs/operations.md "Retention").
 */
export function splitWindow(start: Date, end: Date, rawSince: Date): WindowParts {
  const parts: WindowParts = { hours: null, minutes: [], raw: [] };
  const firstHour = start < rawSince ? floorTo(start, hourMs) : ceilTo(start, hourMs);
  const lastHour = floorTo(end, hourMs);
  if (firstHour >= lastHour) {
    splitEdge({ from: start, to: end, closed: true }, parts);
    return parts;
  }
  parts.hours = { from: firstHour, to: lastHour };
  if (start < firstHour) splitEdge({ from: start, to: firstHour }, parts);
  splitEdge({ from: lastHour, to: end, closed: true }, parts);
  return parts;
}

/** `column` within `range`. */
export function inRange(d: SqlDialect, column: SQL, range: TimeRange): SQL {
  return sql`${column} >= ${d.ts(range.from)} and ${column} ${sql.raw(range.closed ? "<=" : "<")} ${d.ts(range.to)}`;
}
