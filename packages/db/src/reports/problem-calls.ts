import { sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { isError, isFailing } from "../costing/measures.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import {
  callDim,
  type DimValues,
  type GroupTotals,
  selectDims,
  type TimeWindow,
  type WindowDim,
} from "./window.ts";

export interface ProblemSummary<D extends WindowDim> {
  keys: Record<D, string>;
  lastAt: Date;
  /** Newest first, at most `examples`. */
  requestIds: string[];
}

/** The first page; each next one is four times bigger, so a deep search takes few statements. */
const firstPage = 1_000;

/**
 * The newest problem calls of each group: `failing` (provider health) or `error` (the caller got
 * no complete answer). `totals` are the window's totals (by `dims`, or finer): they say how many
 * problem calls each group has, so the calls are read newest first, page by page, only until
 * every group has its examples. A day at 100M calls holds millions of problem calls; the examples
 * are usually in the newest few thousand.
 */
export async function problemCalls<D extends WindowDim>(
  db: Db,
  window: TimeWindow,
  dims: readonly D[],
  kind: "failing" | "error",
  totals: readonly GroupTotals<D>[],
  examples = 5,
): Promise<ProblemSummary<D>[]> {
  const d = sqlFor(db);
  const keyOf = (row: Record<string, unknown>) => JSON.stringify(dims.map((dim) => String(row[dim])));
  const wanted = new Map<string, number>();
  for (const row of totals) {
    const problems = kind === "failing" ? row.failing : row.errors;
    const id = keyOf(row);
    if (problems > 0) wanted.set(id, Math.min(examples, (wanted.get(id) ?? 0) + problems));
  }
  const groups = new Map<string, ProblemSummary<D>>();
  let missing = wanted.size;
  let after: { at: Date; requestId: string } | null = null;
  for (let size = Math.max(firstPage, 4 * examples * wanted.size); missing > 0; size *= 4) {
    const page: Record<string, unknown>[] = await newestProblems(db, window, dims, kind, after, size);
    for (const row of page) {
      const id = keyOf(row);
      const want = wanted.get(id);
      if (want === undefined) continue; // recorded after the totals were read
      let group = groups.get(id);
      if (!group) {
        // Newest first: the first call of a group is its newest problem.
        const keys = Object.fromEntries(dims.map((dim) => [dim, String(row[dim])])) as Pick<DimValues, D>;
        group = { keys, lastAt: d.instantIn(row.received_at), requestIds: [] };
        groups.set(id, group);
      }
      if (group.requestIds.length === want) continue;
      group.requestIds.push(String(row.request_id));
      if (group.requestIds.length === want) missing--;
    }
    const last = page.at(-1);
    if (!last || page.length < size) break;
    after = { at: d.instantIn(last.received_at), requestId: String(last.request_id) };
  }
  return [...groups.values()];
}

/** Up to `limit` problem calls of the window, newest first, older than `after` when given. */
function newestProblems(
  db: Db,
  window: TimeWindow,
  dims: readonly WindowDim[],
  kind: "failing" | "error",
  after: { at: Date; requestId: string } | null,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const d = sqlFor(db);
  const older = after
    ? sql`and c.received_at <= ${d.ts(after.at)}
          and (c.received_at < ${d.ts(after.at)} or c.request_id < ${after.requestId})`
    : sql``;
  return queryRows<Record<string, unknown>>(
    db,
    sql`
    select ${selectDims(dims, callDim(d))}, c.request_id, ${d.instantOut(sql`c.received_at`)} as received_at
    from calls c
    where c.project_id = ${window.projectId} and c.received_at >= ${d.ts(window.start)}
      and c.received_at <= ${d.ts(window.end)} and ${kind === "failing" ? isFailing : isError} ${older}
    order by c.received_at desc, c.request_id desc
    limit ${limit}`,
  );
}
