import { spacingMicros } from "./shape.ts";

/**
 * One call row as SQL over `n`, the call's number offset by `offset` so it is never negative (the
 * 7- and 30-day windows' first edges lie before the day). The same draws on both stores, all by
 * residues of `n`: 40 workloads, 11 models under three provider labels, 25 keys, routes 80 %
 * primary / 18 % gateway / 2 % fallback, 3 % 5xx, 0.5 % refused by a limit (429, no upstream
 * call), 0.2 % other 4xx, 0.25 % truncated streams, 5 % of the answered calls without a price.
 */
export const offset = 10_000_000_000;

/** What differs between the stores: the instant, booleans, money (numeric or pico-dollars). */
export interface RowDialect {
  receivedAt(n: string): string;
  /** `tokens` times a per-token price given in micro-dollars. */
  money(tokens: string, microsPerToken: number): string;
  emptyJson: string;
}

export const callColumns = `request_id, org_id, project_id, workload_id, api_key_id, received_at, endpoint,
  provider_label, mode, route, requested_model, served_model, stream, status, total_ms, stream_outcome,
  error_type, fallback_reason, upstream_request_id, upstream_response_id, tags, input_tokens,
  cache_read_input_tokens, cache_creation_input_tokens, cache_creation_5m_input_tokens,
  cache_creation_1h_input_tokens, output_tokens, pricing_status, unpriced_reason, price_id,
  uncached_input_usd, cache_write_usd, cache_read_usd, output_usd, customer_cost_usd, refused_by`;

/** A problem (5xx, fallback, refused, 4xx, truncated) or refused call: what the partial indexes hold. */
export const isProblem = "(n % 33 = 0 or n % 50 = 0 or n % 200 = 3 or n % 500 = 7 or n % 400 = 9)";

const refused = "n % 200 = 3";
const failed = `(n % 33 = 0 or ${refused} or n % 500 = 7)`;
/** Per-token prices in micro-dollars: $3 / $3.75 / $0.30 / $15 per million tokens. */
const price = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };

export function callSelect(d: RowDialect, orgId: string, projectId: string): string {
  const usage = (column: string) => `case when ${failed} then null else ${column} end`;
  const priced = `not ${failed} and n % 20 <> 7`;
  const cost = (tokens: string, micros: number) => `case when ${priced} then ${d.money(tokens, micros)} end`;
  const parts = [
    cost("n % 900", price.input),
    cost("n % 300", price.cacheWrite),
    cost("n % 4000", price.cacheRead),
    cost("n % 700", price.output),
  ];
  return `'req_' || n, '${orgId}', '${projectId}', 'wl_bench_' || (n % 40), 'key_bench_' || (n % 25),
    ${d.receivedAt(`(n - ${offset}) * ${spacingMicros}`)},
    case when n % 2 = 0 then 'messages' else 'chat_completions' end,
    case n % 11 % 3 when 0 then 'provider_a' when 1 then 'provider_b' else 'managed' end,
    case n % 11 % 3 when 2 then 'managed' else 'byo' end,
    case when n % 50 = 0 then 'fallback' when n % 50 < 10 then 'gateway' else 'primary' end,
    'model-' || (n % 11), case when ${refused} then null else 'model-' || (n % 11) end,
    (n % 3 = 0 or n % 400 = 9),
    case when n % 33 = 0 then 502 when ${refused} then 429 when n % 500 = 7 then 400 else 200 end,
    100 + n % 5000,
    case when n % 400 = 9 and not ${failed} then 'truncated' else 'complete' end,
    case when n % 33 = 0 then 'api_error' when ${refused} then 'rate_limit_error'
         when n % 500 = 7 then 'invalid_request_error' end,
    case when n % 50 = 0 then (case when n % 200 = 0 then 'timeout' else 'error' end) end,
    case when ${refused} then null else 'ureq_' || n end,
    case when ${refused} then null else 'msg_' || n end,
    '${d.emptyJson}', ${usage("n % 900")}, ${usage("n % 4000")}, ${usage("n % 300")}, ${usage("n % 300")}, ${usage("0")},
    ${usage("n % 700")},
    case when ${priced} then 'priced' else 'unpriced' end,
    case when ${failed} then 'error_response' when n % 20 = 7 then 'no_price' end,
    case when ${priced} then 'price_bench' end,
    ${parts.join(", ")},
    case when ${priced} then ${d.money("n % 900", price.input)} + ${d.money("n % 300", price.cacheWrite)}
      + ${d.money("n % 4000", price.cacheRead)} + ${d.money("n % 700", price.output)} end,
    case when ${refused} then (case n / 200 % 3 when 0 then 'project.requests_per_minute'
      when 1 then 'workload.tokens_per_minute' else 'api_key.budget' end) end`;
}
