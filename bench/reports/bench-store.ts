import type { Db } from "@gateway/db";
import { sql } from "drizzle-orm";

/** A throwaway store the report bench fills and times: PostgreSQL or SQLite, behind the same `Db`. */
export interface BenchStore {
  name: "postgres" | "sqlite";
  db: Db;
  /** Inserts calls number `from` to `to` (of `total`, spread evenly from `since` over 30 days) in one statement. */
  fill(from: number, to: number): Promise<void>;
  /** What the store does on its own after a bulk load (PostgreSQL's autovacuum); nothing on SQLite. */
  settle(): Promise<void>;
  /** Bytes on disk: the database, with its indexes and write-ahead log. */
  sizeBytes(): Promise<number>;
  /** Closes and drops the database (PostgreSQL) or removes its temp dir (SQLite). */
  dispose(): Promise<void>;
}

export interface FillPlan {
  total: number;
  since: Date;
  projectId: string;
}

/**
 * The columns both fills write, in this order. The values, in each dialect's SQL: eight workloads,
 * six models, 3% 5xx, 2% fallbacks, 5% routed; 95% priced at exact costs; total times spread from
 * 20 ms to 10 s (a tenth of a millisecond apart), the first byte at a quarter of them.
 */
export const filledColumns = sql.raw(`request_id, org_id, project_id, workload_id, api_key_id, received_at,
  endpoint, provider_label, mode, route, requested_model, served_model, stream, status, total_ms,
  first_byte_ms, stream_outcome, tags, input_tokens, cache_read_input_tokens, cache_creation_input_tokens,
  cache_creation_5m_input_tokens, cache_creation_1h_input_tokens, output_tokens, pricing_status,
  unpriced_reason, price_id, uncached_input_usd, cache_write_usd, cache_read_usd, output_usd,
  customer_cost_usd`);

/** The stores `BENCH_STORE` names (`both`, the default, `sqlite` or `postgres`). */
function storesAsked(): ("sqlite" | "postgres")[] {
  const stores = {
    both: ["sqlite", "postgres"] as const,
    sqlite: ["sqlite"] as const,
    postgres: ["postgres"] as const,
  }[process.env.BENCH_STORE ?? "both"];
  if (!stores)
    throw new Error(`BENCH_STORE must be both, sqlite or postgres, not ${process.env.BENCH_STORE}`);
  return [...stores];
}

/** `measure` on a store of each kind `BENCH_STORE` asks for, filled by `plan`, each disposed after. */
export async function measureOnEachStore<R>(
  plan: FillPlan,
  open: Record<"sqlite" | "postgres", (plan: FillPlan) => Promise<BenchStore>>,
  measure: (store: BenchStore, projectId: string) => Promise<R>,
): Promise<Map<string, R>> {
  const results = new Map<string, R>();
  for (const name of storesAsked()) {
    const store = await open[name](plan);
    try {
      results.set(name, await measure(store, plan.projectId));
    } finally {
      await store.dispose();
    }
  }
  return results;
}
