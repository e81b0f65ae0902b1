/** A call's cost state: `unpriced` until asynchronous costing covers it. */
export const pricingStatuses = ["priced", "unpriced"] as const;
/**
 * A call's `pricing_status` (events, the calls table, the reports API), beside `UnpricedReason`.
 * @public
 */
export type PricingStatus = (typeof pricingStatuses)[number];

/**
 * Why a call is unpriced; a closed list. `pricing_pending` and `no_price` can still become
 * priced (costing runs, or a price is added later); the others are final, because the call has
 * no usage to price. Never a guessed zero.
 */
export const unpricedReasons = [
  /** Usage is recorded; costing has not run yet. */
  "pricing_pending",
  /** Usage is recorded but no price row covers the served model at the call's time. */
  "no_price",
  /** A provider B chat-completions stream sent without `stream_options.include_usage`. */
  "stream_without_usage",
  /** A stream that ended (cut, or abandoned by the client) before the provider reported usage. */
  "incomplete_stream",
  /** The caller received an error; providers report no usage for it. */
  "error_response",
  /** An endpoint whose usage is not billed (token counting). */
  "not_billable",
  /** A successful response that carried no usage block. */
  "no_usage",
] as const;
export type UnpricedReason = (typeof unpricedReasons)[number];
