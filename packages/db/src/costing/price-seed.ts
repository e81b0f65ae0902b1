import type { Db } from "../client.ts";
import { query } from "../dialect.ts";

/** US dollars per million tokens, as exact decimal strings. */
export interface SeedPrice {
  model: string;
  /** ISO date the price took effect; the seed's own rows start at `seedEpoch`. */
  effectiveFrom: string;
  input: string;
  cacheWrite5m: string;
  cacheWrite1h: string;
  cacheRead: string;
  output: string;
}

/** Seed rows cover every call, however old, until a later row supersedes them. */
const seedEpoch = "2000-01-01T00:00:00Z";

type Rates = [input: string, write5m: string, write1h: string, read: string, output: string];

const a = (models: string[], rates: Rates, effectiveFrom = seedEpoch): SeedPrice[] =>
  models.map((model) => ({
    model,
    effectiveFrom,
    input: rates[0],
    cacheWrite5m: rates[1],
    cacheWrite1h: rates[2],
    cacheRead: rates[3],
    output: rates[4],
  }));

/** Provider B reports one kind of cache write; it is billed at the one write rate (both columns). */
const b = (models: string[], input: string, cached: string, write: string, output: string) =>
  a(models, [input, write, write, cached, output]);

/**
 * The price table seed, from the reference's section 6: standard tier, short context only (the
 * long-context tiers of gpt-5.4/5.5/5.6 and claude-haiku-5-5's >100k tier are omitted; a call is
 * priced at its model's short-context rate). Batch, flex, priority, fast mode, `inference_geo`
 * surcharges, web-search requests and the gpt-5.6-sol promotion are not modelled.
 *
 * Uncertain (🟡 in the reference, secondary sources): every provider B price; the cache rates of
 * claude-opus-5-5 and claude-sonnet-5-5 (and the latter's read cut to 0.10 on 2026-10-07); the
 * haiku-5-5 tiers; the `-5-1` id spelling. Models before GPT-5.6 charge nothing for cache writes
 * (0 is their real rate, not a guess). gpt-6.1-sol's write rate is not published: 1.25 × input,
 * the reference's rule for GPT-5.6 and later. The -pro models have no cached rate: reads are
 * billed as input.
 */
export const seedPrices: SeedPrice[] = [
  ...a(
    ["claude-opus-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-opus-4-5"],
    ["5.00", "6.25", "10.00", "0.50", "25.00"],
  ),
  ...a(["claude-opus-4-1", "claude-opus-4"], ["15.00", "18.75", "30.00", "1.50", "75.00"]),
  ...a(["claude-sonnet-5"], ["2.00", "2.50", "4.00", "0.20", "10.00"]),
  ...a(
    ["claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4"],
    ["3.00", "3.75", "6.00", "0.30", "15.00"],
  ),
  ...a(["claude-haiku-4-5"], ["1.00", "1.25", "2.00", "0.10", "5.00"]),
  ...a(["claude-fable-5", "claude-mythos-5"], ["10.00", "12.50", "20.00", "1.00", "50.00"]),
  ...a(["claude-fable-5-1", "claude-mythos-5-1"], ["10.00", "12.50", "20.00", "0.25", "50.00"]),
  ...a(["claude-opus-5-5"], ["4.00", "5.00", "8.00", "0.20", "20.00"]),
  ...a(["claude-sonnet-5-5"], ["2.00", "2.50", "4.00", "0.20", "10.00"]),
  ...a(["claude-sonnet-5-5"], ["2.00", "2.50", "4.00", "0.10", "10.00"], "2026-10-07T00:00:00Z"),
  ...a(["claude-haiku-5-5"], ["0.10", "0.125", "0.20", "0.01", "0.50"]),
  ...b(["gpt-5.5"], "5.00", "0.50", "0", "30.00"),
  ...b(["gpt-5.4"], "2.50", "0.25", "0", "15.00"),
  ...b(["gpt-5.4-mini"], "0.75", "0.075", "0", "4.50"),
  ...b(["gpt-5.4-nano"], "0.20", "0.02", "0", "1.25"),
  ...b(["gpt-5-mini"], "0.25", "0.025", "0", "2.00"),
  ...b(["gpt-5.3-codex"], "1.75", "0.175", "0", "14.00"),
  ...b(["gpt-5.6-sol"], "5.00", "0.50", "6.25", "30.00"),
  ...b(["gpt-5.6-terra"], "2.00", "0.20", "2.50", "12.00"),
  ...b(["gpt-5.6-luna"], "0.20", "0.02", "0.25", "1.20"),
  ...b(["gpt-5.5-pro", "gpt-5.4-pro"], "30.00", "30.00", "0", "180.00"),
  ...b(["gpt-6-sol"], "2.00", "0.20", "2.50", "10.00"),
  ...b(["gpt-6-luna"], "0.10", "0.01", "0.125", "0.50"),
  ...b(["gpt-6.1-sol"], "2.00", "0.10", "2.50", "10.00"),
];

/** Stable ids, so a seed row is the same row on every start and every store. */
function seedPriceId(p: SeedPrice): string {
  return `price_seed_${p.model}_${p.effectiveFrom.slice(0, 10)}`;
}

/**
 * Inserts the seed rows that are missing (by model and effective date; rows the operator added
 * are never touched) and returns the models that gained a row, whose calls the caller has
 * re-priced (the control plane queues a `costing.reprice-model` job for each). Idempotent.
 */
export async function seedPriceTable(db: Db): Promise<string[]> {
  const inserted = await query(db, (orm, t) =>
    orm
      .insert(t.prices)
      .values(
        seedPrices.map((p) => ({
          id: seedPriceId(p),
          model: p.model,
          effectiveFrom: new Date(p.effectiveFrom),
          inputUsdPerMtok: p.input,
          cacheWrite5mUsdPerMtok: p.cacheWrite5m,
          cacheWrite1hUsdPerMtok: p.cacheWrite1h,
          cacheReadUsdPerMtok: p.cacheRead,
          outputUsdPerMtok: p.output,
        })),
      )
      .onConflictDoNothing()
      .returning({ model: t.prices.model }),
  );
  return [...new Set(inserted.map((r) => r.model))];
}
