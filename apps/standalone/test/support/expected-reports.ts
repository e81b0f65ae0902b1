/**
 * Report values computed independently of the server from a generated traffic set: plain loops
 * over the calls, exact money in BigInt nano-dollars. The reports must equal these.
 */

export interface Tokens {
  input: number;
  read: number;
  write5m: number;
  write1h: number;
  output: number;
}

export interface GeneratedCall {
  requestId: string;
  workloadId: string;
  workload: string;
  at: Date;
  provider: string;
  model: string | null;
  route: "primary" | "gateway" | "fallback";
  fallbackReason: "timeout" | "error" | null;
  status: number;
  outcome: "complete" | "truncated" | "upstream_error" | "client_aborted";
  tokens: Tokens | null;
  /** Nano-dollars, or null when unpriced. */
  costNano: { input: bigint; write: bigint; read: bigint; output: bigint } | null;
  unpricedReason: string | null;
}

/** USD per million tokens in thousandths (milli-dollars per Mtok = nano-dollars per token). */
export type Rates = [input: bigint, write5m: bigint, write1h: bigint, read: bigint, output: bigint];

export function costOf(tokens: Tokens, rates: Rates) {
  const [pIn, p5m, p1h, pRead, pOut] = rates;
  return {
    input: BigInt(tokens.input) * pIn,
    write: BigInt(tokens.write5m) * p5m + BigInt(tokens.write1h) * p1h,
    read: BigInt(tokens.read) * pRead,
    output: BigInt(tokens.output) * pOut,
  };
}

export const nanoToUsd = (n: bigint) => Number(n) / 1e9;
const round4 = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
const isError = (c: GeneratedCall) =>
  c.status >= 400 || c.outcome === "truncated" || c.outcome === "upstream_error";
const isFailing = (c: GeneratedCall) =>
  c.status >= 500 || c.outcome === "truncated" || c.outcome === "upstream_error" || c.route === "fallback";
const totalNano = (c: GeneratedCall) =>
  c.costNano ? c.costNano.input + c.costNano.write + c.costNano.read + c.costNano.output : 0n;
const day = (d: Date) => d.toISOString().slice(0, 10);
const newestFirst = (a: GeneratedCall, b: GeneratedCall) =>
  b.at.getTime() - a.at.getTime() || (a.requestId < b.requestId ? 1 : -1);

function groupMap<K>(calls: GeneratedCall[], key: (c: GeneratedCall) => K): Map<string, GeneratedCall[]> {
  const groups = new Map<string, GeneratedCall[]>();
  for (const c of calls) {
    const id = JSON.stringify(key(c));
    groups.set(id, [...(groups.get(id) ?? []), c]);
  }
  return groups;
}

export function inWindow(calls: GeneratedCall[], start: string, end: string) {
  const s = new Date(start).getTime();
  const e = new Date(end).getTime();
  return calls.filter((c) => c.at.getTime() >= s && c.at.getTime() <= e);
}

export function expectedUsageGroups(calls: GeneratedCall[], groupBy: string[]) {
  const by = (k: string) => groupBy.includes(k);
  const groups = groupMap(calls, (c) => [
    by("workload") ? c.workloadId : null,
    by("model") ? c.model : null,
    by("day") ? day(c.at) : null,
  ]);
  const out = [...groups.values()].map((g) => {
    const first = g[0]!;
    const sum = (f: (t: Tokens) => number) => g.reduce((n, c) => n + (c.tokens ? f(c.tokens) : 0), 0);
    const input = sum((t) => t.input);
    const read = sum((t) => t.read);
    const write = sum((t) => t.write5m + t.write1h);
    return {
      workload_id: by("workload") ? first.workloadId : null,
      workload: by("workload") ? first.workload : null,
      model: by("model") ? first.model : null,
      day: by("day") ? day(first.at) : null,
      requests: g.length,
      input_tokens: input,
      output_tokens: sum((t) => t.output),
      cache_read_input_tokens: read,
      cache_creation_input_tokens: write,
      cache_read_pct: round4(read, input + read + write),
      customer_cost_usd: nanoToUsd(g.reduce((n, c) => n + totalNano(c), 0n)),
      unpriced_requests: g.filter((c) => c.costNano === null).length,
      error_rate: round4(g.filter(isError).length, g.length),
    };
  });
  const text = (v: string | null) => v ?? "";
  return out.sort(
    (x, y) =>
      text(x.day).localeCompare(text(y.day)) ||
      text(x.workload).localeCompare(text(y.workload)) ||
      text(x.model).localeCompare(text(y.model)),
  );
}

export function expectedHealth(calls: GeneratedCall[]) {
  const groups = groupMap(calls, (c) => [c.provider, c.workload, c.model]);
  const providers = [...groups.values()].map((g) => {
    const first = g[0]!;
    const failing = g.filter(isFailing).sort(newestFirst);
    const e5xx = g.filter((c) => c.status >= 500).length;
    return {
      provider: first.provider,
      workload: first.workload,
      model: first.model,
      request_count: g.length,
      error_5xx_count: e5xx,
      error_5xx_rate: round4(e5xx, g.length),
      timeout_count: g.filter((c) => c.route === "fallback" && c.fallbackReason === "timeout").length,
      fallback_count: g.filter((c) => c.route === "fallback").length,
      last_failing_at: failing[0]?.at.toISOString() ?? null,
      example_request_ids: failing.slice(0, 5).map((c) => c.requestId),
    };
  });
  providers.sort(
    (x, y) =>
      x.provider.localeCompare(y.provider) ||
      x.workload.localeCompare(y.workload) ||
      (x.model ?? "").localeCompare(y.model ?? ""),
  );
  return {
    total_requests: calls.length,
    total_errors: calls.filter(isFailing).length,
    providers,
  };
}

export function expectedWorkloadStatus(calls: GeneratedCall[], workloadId: string) {
  const mine = calls.filter((c) => c.workloadId === workloadId);
  const n = mine.length;
  const byRoute = (r: string) => round4(mine.filter((c) => c.route === r).length, n);
  const labels = groupMap(mine, (c) => c.provider);
  const mode =
    [...labels.values()]
      .map((g) => [g[0]!.provider, g.length] as const)
      .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]?.[0] ?? null;
  const errors = mine.filter(isError).sort(newestFirst);
  const served = [...groupMap(mine, (c) => [c.model, c.provider]).values()]
    .map((g) => ({
      model: g[0]!.model,
      provider_label: g[0]!.provider,
      requests: g.length,
      share: round4(g.length, n),
    }))
    .sort((x, y) => y.requests - x.requests || (x.model ?? "").localeCompare(y.model ?? ""));
  const e5xx = mine.filter((c) => c.status >= 500).length;
  return {
    status: n === 0 ? "idle" : e5xx / n >= 0.05 ? "degraded" : "healthy",
    mode,
    requests: n,
    route_shares: { primary: byRoute("primary"), gateway: byRoute("gateway"), fallback: byRoute("fallback") },
    error_rate: round4(errors.length, n),
    last_error_at: errors[0] ? errors[0].at.toISOString().replace("T", " ").replace("Z", "") : null,
    example_request_ids: errors.slice(0, 5).map((c) => c.requestId),
    served_models: served,
    rerouted_pct: byRoute("gateway"),
  };
}
