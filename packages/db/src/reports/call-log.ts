import type {
  GatewayEndpoint,
  GatewayMode,
  GatewayRoute,
  PricingStatus,
  ProviderLabel,
  StreamOutcome,
} from "@gateway/contracts";
import { and, desc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import type { calls } from "../schema/calls.ts";
import { sqlFor } from "../sql-dialect.ts";
import { usd } from "./format.ts";

/**
 * Which calls a status filter keeps: one code, a class (`4xx` is 400-499), or `error`: the
 * caller got no complete answer (status >= 400 or a stream that broke, as the reports count it).
 */
export type CallStatusFilter = { code: number } | { from: number; to: number } | "error";

/** The call log's filters; every one given must hold. */
export interface CallLogFilter {
  projectId: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  workloadId?: string;
  /** The served or the requested model. */
  model?: string;
  mode?: GatewayMode;
  route?: GatewayRoute;
  status?: CallStatusFilter;
  streamOutcome?: StreamOutcome;
  requestId?: string;
}

/** Where a page of the log ends: its last call, in (received_at, request_id) order. */
export interface CallLogPosition {
  receivedAt: Date;
  requestId: string;
}

/** One call as the log lists it: everything but its bodies, headers and tags. */
export interface CallLogItem {
  request_id: string;
  received_at: string;
  workload_id: string;
  endpoint: GatewayEndpoint;
  mode: GatewayMode;
  route: GatewayRoute;
  arm_source: "affinity" | "draw" | null;
  requested_model: string | null;
  served_model: string | null;
  provider_label: ProviderLabel;
  stream: boolean;
  status: number;
  stream_outcome: StreamOutcome;
  first_byte_ms: number | null;
  total_ms: number;
  input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  output_tokens: number | null;
  pricing_status: PricingStatus;
  customer_cost_usd: number | null;
  captured: boolean;
}

type Calls = typeof calls;

/**
 * How many calls a page of the log examines at most when it filters by a field no index serves
 * (mode, route, status, stream outcome): a filter that matches nothing would otherwise walk the
 * project's whole history (557 ms over a million calls on SQLite). Such a page may come back
 * short, or empty, with a cursor: nothing matched back to `scannedThrough` yet.
 */
export const callLogScanBudget = 5_000;

/** The filters an index serves (the project's time, workload and model indexes, the key). */
function indexedFilterOf(c: Calls, f: CallLogFilter): SQL | undefined {
  return and(
    eq(c.projectId, f.projectId),
    f.from ? gte(c.receivedAt, f.from) : undefined,
    f.to ? lt(c.receivedAt, f.to) : undefined,
    f.workloadId === undefined ? undefined : eq(c.workloadId, f.workloadId),
    f.model === undefined ? undefined : or(eq(c.servedModel, f.model), eq(c.requestedModel, f.model)),
    f.requestId === undefined ? undefined : eq(c.requestId, f.requestId),
  );
}

const scanned = (f: CallLogFilter) =>
  f.mode !== undefined || f.route !== undefined || f.status !== undefined || f.streamOutcome !== undefined;

/** Calls strictly older than `after` in (received_at, request_id) order; none when null. */
function olderThan(c: Calls, after: CallLogPosition | null): SQL | undefined {
  return after
    ? and(
        lte(c.receivedAt, after.receivedAt),
        or(lt(c.receivedAt, after.receivedAt), lt(c.requestId, after.requestId)),
      )
    : undefined;
}

function filterOf(c: Calls, f: CallLogFilter): SQL | undefined {
  const { status } = f;
  return and(
    indexedFilterOf(c, f),
    f.mode === undefined ? undefined : eq(c.mode, f.mode),
    f.route === undefined ? undefined : eq(c.route, f.route),
    f.streamOutcome === undefined ? undefined : eq(c.streamOutcome, f.streamOutcome),
    status === undefined
      ? undefined
      : status === "error"
        ? sql`(${c.status} >= 400 or ${c.streamOutcome} in ('truncated', 'upstream_error'))`
        : "code" in status
          ? eq(c.status, status.code)
          : and(gte(c.status, status.from), lte(c.status, status.to)),
  );
}

/**
 * The last call a page filtering by unindexed fields may examine: the `budget`-th call (newest
 * first) the indexed filters keep after `after`; null when fewer remain.
 */
async function scanLimit(db: Db, filter: CallLogFilter, after: CallLogPosition | null, budget: number) {
  const [row] = await query(db, (orm, { calls: c }) =>
    orm
      .select({ receivedAt: c.receivedAt, requestId: c.requestId })
      .from(c)
      .where(and(indexedFilterOf(c, filter), olderThan(c, after)))
      .orderBy(desc(c.receivedAt), desc(c.requestId))
      .limit(1)
      .offset(budget - 1),
  );
  return row ?? null;
}

/**
 * Up to `limit` calls of the project matching `filter`, newest first, after `after` when given.
 * The bound on `received_at` is a plain range (the tie on the same instant a filter), so each
 * page is one backward walk of the project's time index from where the last one stopped. No
 * body, header or tag is read. A page filtering by a field no index serves examines at most
 * `scanBudget` calls: when it comes back short for that reason, `scannedThrough` is the last call
 * it examined, where the next page goes on from.
 */
export async function callLogPage(
  db: Db,
  filter: CallLogFilter,
  after: CallLogPosition | null,
  limit: number,
  scanBudget = callLogScanBudget,
): Promise<{ items: CallLogItem[]; last: CallLogPosition | null; scannedThrough: CallLogPosition | null }> {
  const exact = sqlFor(db).exactMoney;
  const through = scanned(filter) ? await scanLimit(db, filter, after, scanBudget) : null;
  const rows = await query(db, (orm, t) => {
    const c = t.calls;
    // the scanned calls: from `after` (excluded) back to `through` (included)
    const examined = through
      ? and(
          gte(c.receivedAt, through.receivedAt),
          or(gt(c.receivedAt, through.receivedAt), gte(c.requestId, through.requestId)),
        )
      : undefined;
    return orm
      .select({
        requestId: c.requestId,
        receivedAt: c.receivedAt,
        workloadId: c.workloadId,
        endpoint: c.endpoint,
        mode: c.mode,
        route: c.route,
        armSource: c.armSource,
        requestedModel: c.requestedModel,
        servedModel: c.servedModel,
        providerLabel: c.providerLabel,
        stream: c.stream,
        status: c.status,
        streamOutcome: c.streamOutcome,
        firstByteMs: c.firstByteMs,
        totalMs: c.totalMs,
        inputTokens: c.inputTokens,
        cacheReadInputTokens: c.cacheReadInputTokens,
        cacheCreationInputTokens: c.cacheCreationInputTokens,
        outputTokens: c.outputTokens,
        pricingStatus: c.pricingStatus,
        customerCostUsd: exact(c.customerCostUsd),
        // qualified by hand: drizzle leaves a column of the outer table unqualified in a select
        // with the call's time, which is the index row's too: one day's partition on PostgreSQL
        captured: sql<unknown>`exists (select 1 from capture_index ci
          where ci.request_id = calls.request_id and ci.received_at = calls.received_at)`,
      })
      .from(c)
      .where(and(filterOf(c, filter), olderThan(c, after), examined))
      .orderBy(desc(c.receivedAt), desc(c.requestId))
      .limit(limit);
  });
  const items = rows.map(
    (r): CallLogItem => ({
      request_id: r.requestId,
      received_at: r.receivedAt.toISOString(),
      workload_id: r.workloadId,
      endpoint: r.endpoint as GatewayEndpoint,
      mode: r.mode as GatewayMode,
      route: r.route as GatewayRoute,
      arm_source: r.armSource,
      requested_model: r.requestedModel,
      served_model: r.servedModel,
      provider_label: r.providerLabel as ProviderLabel,
      stream: r.stream,
      status: r.status,
      stream_outcome: r.streamOutcome as StreamOutcome,
      first_byte_ms: r.firstByteMs,
      total_ms: r.totalMs,
      input_tokens: r.inputTokens,
      cache_read_input_tokens: r.cacheReadInputTokens,
      cache_creation_input_tokens: r.cacheCreationInputTokens,
      output_tokens: r.outputTokens,
      pricing_status: r.pricingStatus,
      customer_cost_usd:
        r.pricingStatus === "priced" && r.customerCostUsd !== null ? usd(r.customerCostUsd) : null,
      // true on PostgreSQL, 1 on SQLite
      captured: r.captured === true || r.captured === 1,
    }),
  );
  const lastRow = rows.at(-1);
  return {
    items,
    last: lastRow ? { receivedAt: lastRow.receivedAt, requestId: lastRow.requestId } : null,
    scannedThrough: rows.length < limit ? through : null,
  };
}
