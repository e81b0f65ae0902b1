import { type CallInsert, type DbHandle, insertPrice, recordCalls } from "../../src/index.ts";
import { openTestDb } from "../../src/testing/index.ts";

/** Token counts of a call, in the order prices list their rates. */
export type Tokens = [input: number, write5m: number, write1h: number, read: number, output: number];
/** Dollars per million tokens as decimal strings, in the same order. */
export type Rates = [input: string, write5m: string, write1h: string, read: string, output: string];

export interface SpendCall {
  id: string;
  key: string;
  project: string;
  workload: string;
  mode: "byo" | "managed";
  at: string;
  model: string;
  tokens: Tokens | null;
}

/** The call row of a test call, unpriced and waiting for its pricing job when it has usage. */
function spendCallRow(c: SpendCall): CallInsert {
  const [input, write5m, write1h, read, output] = c.tokens ?? [];
  return {
    requestId: c.id,
    orgId: "org_1",
    projectId: c.project,
    workloadId: c.workload,
    apiKeyId: c.key,
    receivedAt: new Date(c.at),
    endpoint: "messages",
    providerLabel: "provider_a",
    mode: c.mode,
    route: "primary",
    requestedModel: c.model,
    servedModel: c.model,
    stream: false,
    status: 200,
    firstByteMs: 1,
    totalMs: 2,
    streamOutcome: "complete",
    errorType: null,
    refusedBy: null,
    fallbackReason: null,
    upstreamRequestId: null,
    upstreamResponseId: null,
    tags: {},
    usageRaw: null,
    inputTokens: input ?? null,
    cacheReadInputTokens: read ?? null,
    cacheCreationInputTokens: c.tokens ? write5m! + write1h! : null,
    cacheCreation5mInputTokens: write5m ?? null,
    cacheCreation1hInputTokens: write1h ?? null,
    outputTokens: output ?? null,
    pricingStatus: "unpriced",
    unpricedReason: c.tokens ? "pricing_pending" : "no_usage",
    priceId: null,
    pricedAt: null,
    uncachedInputUsd: null,
    cacheWriteUsd: null,
    cacheReadUsd: null,
    outputUsd: null,
    customerCostUsd: null,
  };
}

/** Micro-dollars of a decimal string of dollars ("1.234567" → 1234567n). */
const micros = (usd: string) => {
  const [whole = "0", fraction = ""] = usd.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
};

/** A call's cost in pico-dollars (1e-12): tokens × dollars per million tokens, exactly. */
export function picoCost(tokens: Tokens, rates: Rates): bigint {
  return tokens.reduce((sum, n, i) => sum + BigInt(n) * micros(rates[i]!), 0n);
}

/** Pico-dollars as the shortest exact decimal text ("0.0012", "3", "0"). */
export function picoToUsd(pico: bigint): string {
  const whole = pico / 1_000_000_000_000n;
  const fraction = String(pico % 1_000_000_000_000n)
    .padStart(12, "0")
    .replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}

export const model = "spend-model";
const first: Rates = ["1.234567", "1.543209", "2.469134", "0.123457", "9.876543"];
export const newer: Rates = ["2.000001", "0.5", "0.75", "0.01", "3.333333"];
export const newerFrom = "2026-11-25T00:00:00.000Z";

const call = (
  id: string,
  [key, project, workload]: [string, string, string],
  mode: SpendCall["mode"],
  at: string,
  tokens: Tokens | null,
  servedModel = model,
): SpendCall => ({ id, key, project, workload, mode, at, model: servedModel, tokens });

/**
 * Calls over two UTC days (one a millisecond before midnight) and two months, both modes, two
 * keys, projects and workloads; one without a price and one without usage, which never count.
 */
export const spendCalls: SpendCall[] = [
  call("r1", ["k1", "p1", "w1"], "byo", "2026-11-24T23:59:59.999Z", [1000, 300, 0, 200, 77]),
  call("r2", ["k1", "p1", "w1"], "managed", newerFrom, [12345, 0, 4000, 0, 999]),
  call("r3", ["k2", "p1", "w2"], "managed", "2026-11-25T10:00:00.000Z", [1, 3, 4, 2, 5]),
  call("r4", ["k2", "p1", "w2"], "byo", "2026-11-25T11:00:00.000Z", [333333, 0, 0, 0, 1]),
  call("r5", ["k1", "p2", "w3"], "byo", "2026-10-31T23:00:00.000Z", [500, 0, 0, 0, 50]),
  call("r6", ["k1", "p1", "w1"], "byo", "2026-11-25T12:00:00.000Z", [10, 0, 0, 0, 10], "unpriced-model"),
  call("r7", ["k1", "p1", "w1"], "byo", "2026-11-25T12:00:00.000Z", null),
];

/** The rates a call is priced at: the newer price from its start on, once it exists. */
export function ratesOf(c: SpendCall, newerExists: boolean): Rates | null {
  if (c.model !== model || !c.tokens) return null;
  return newerExists && c.at >= newerFrom ? newer : first;
}

/** A price row of the test model. */
export const priceRow = (id: string, effectiveFrom: string, r: Rates) => ({
  id,
  model,
  effectiveFrom: new Date(effectiveFrom),
  inputUsdPerMtok: r[0],
  cacheWrite5mUsdPerMtok: r[1],
  cacheWrite1hUsdPerMtok: r[2],
  cacheReadUsdPerMtok: r[3],
  outputUsdPerMtok: r[4],
});

/** The summed cost of the priced calls that `pick` selects, in pico-dollars. */
export function picoOf(pick: (c: SpendCall) => boolean, newerExists = false): bigint {
  let sum = 0n;
  for (const c of spendCalls) {
    const rates = ratesOf(c, newerExists);
    if (rates && c.tokens && pick(c)) sum += picoCost(c.tokens, rates);
  }
  return sum;
}

/** A test database holding the test model's first price and the calls, recorded, not priced yet. */
export async function openSpendCallsDb(store: "sqlite" | "postgres"): Promise<DbHandle> {
  const handle = await openTestDb(store);
  await insertPrice(handle.db, priceRow("price_first", "2000-01-01T00:00:00Z", first));
  await recordCalls(handle.db, spendCalls.map(spendCallRow));
  return handle;
}
