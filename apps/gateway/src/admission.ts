import { budgetPeriodBounds, type CallUsage, type LimitScope, microsToUsd } from "@gateway/contracts";
import type { Lease, LimitStore, Refusal, ScopeLimits } from "@gateway/limits";
import type { GatewayErrorKind, WireFormat } from "@gateway/providers";
import type { CallPlan } from "./attempt.ts";
import type { CallObserver } from "./call-observer.ts";
import type { AuthenticatedCall, CallState } from "./call-state.ts";
import type { Caller } from "./resolve-caller.ts";

/** The call's key, project and workload that carry limits; none for most calls, which then cost nothing. */
function limitedScopes({ apiKey, project, workload }: Caller): ScopeLimits[] {
  const scopes: ScopeLimits[] = [];
  if (apiKey.limits) scopes.push({ scope: "api_key", id: apiKey.id, limits: apiKey.limits });
  if (project.limits) scopes.push({ scope: "project", id: project.id, limits: project.limits });
  if (workload.limits) scopes.push({ scope: "workload", id: workload.id, limits: workload.limits });
  return scopes;
}

export type AdmissionResult = { ok: true; plan: CallPlan } | { ok: false; refusal: Refusal };

/**
 * The limits stage, between planning a call and sending it, and the observer that settles what
 * it admitted: an admitted call holds its lease here until the call is recorded, when its usage
 * is known (its tokens count, its slots free).
 */
export class CallLimits implements CallObserver {
  readonly #store: LimitStore;
  readonly #leases = new WeakMap<CallState, Lease>();

  constructor(store: LimitStore) {
    this.#store = store;
  }

  /**
   * The plan's mode decides whether managed budgets apply. A routed call the caller could pay for
   * itself (its own key, the workload's original model) stays there while a managed budget is
   * spent, instead of failing.
   */
  async admit(call: AuthenticatedCall, plan: CallPlan): Promise<AdmissionResult> {
    const scopes = limitedScopes(call.caller);
    if (scopes.length === 0) return { ok: true, plan };
    const managed = plan.primary.mode === "managed";
    const limits = this.#store;
    let admission = await limits.admit({ requestId: call.requestId, scopes, managed });
    if (!admission.ok && admission.refusal.limit === "budget" && managed && plan.fallback?.mode === "byo") {
      admission = await limits.admit({ requestId: call.requestId, scopes, managed: false });
      if (admission.ok) plan = { primary: { ...plan.fallback, route: "primary" }, fallback: null };
    }
    if (!admission.ok) return admission;
    this.#leases.set(call, admission.lease);
    return { ok: true, plan };
  }

  /** Frees the call's slots and counts its tokens (all of them: prompt, cached or not, and output). */
  recorded(call: AuthenticatedCall): void {
    const lease = this.#leases.get(call);
    if (!lease) return;
    this.#leases.delete(call);
    this.#store.settle(lease, tokensOf(call.usage));
  }
}

function tokensOf(usage: CallUsage | null): number {
  if (!usage) return 0;
  return (
    usage.input_tokens +
    usage.cache_read_input_tokens +
    usage.cache_creation_input_tokens +
    usage.output_tokens
  );
}

const kindOf = {
  requests_per_minute: "requests_limited",
  tokens_per_minute: "tokens_limited",
  max_concurrent: "concurrency_limited",
  budget: "budget_exhausted",
} as const satisfies Record<Refusal["limit"], GatewayErrorKind>;

/**
 * The 429 of a refusal: its error kind, a message naming the limit (and, for a rate, "Please try
 * again in Ns.", which Codex reads), and the headers the providers' SDKs act on: `retry-after`
 * and `retry-after-ms` (they wait that long and retry, up to their retry count), the endpoint's
 * provider's rate-limit headers, and `x-should-retry: false` for a budget, which is not over in
 * seconds.
 */
export function refusalAnswer(
  format: WireFormat,
  refusal: Refusal,
  caller: Caller,
  now: number = Date.now(),
): { kind: GatewayErrorKind; message: string; headers: Record<string, string> } {
  const waitMs = Math.max(1, refusal.retryAfterMs);
  const headers: Record<string, string> = {
    "retry-after": String(Math.ceil(waitMs / 1000)),
    "retry-after-ms": String(waitMs),
  };
  const who = scopeName(refusal.scope, caller);
  if (refusal.limit === "budget") {
    headers["x-should-retry"] = "false";
    const budget = limitsOf(refusal.scope, caller).budget!;
    const resetsAt = budgetPeriodBounds(budget.period, new Date(now)).end.toISOString();
    const which = `${budget.period === "day" ? "daily" : "monthly"} budget of $${microsToUsd(budget.micros)}`;
    const calls = budget.appliesTo === "managed" ? "managed calls" : "calls";
    return {
      kind: kindOf.budget,
      message: `The ${which} for ${calls} of ${who} is spent; it resets at ${resetsAt}.`,
      headers,
    };
  }
  const again = `Please try again in ${seconds(waitMs)}s.`;
  if (refusal.limit === "max_concurrent") {
    return {
      kind: kindOf.max_concurrent,
      message: `Concurrency limit reached for ${who}: at most ${refusal.value} calls at once. ${again}`,
      headers,
    };
  }
  const unit = refusal.limit === "requests_per_minute" ? "requests" : "tokens";
  Object.assign(headers, rateLimitHeaders(format, { unit, limit: refusal.value }, waitMs, now));
  return {
    kind: kindOf[refusal.limit],
    message: `Rate limit reached for ${who} on ${unit} per minute: limit ${refusal.value}. ${again}`,
    headers,
  };
}

/** The headers each provider sends with its own limits, for clients that read them. */
function rateLimitHeaders(
  format: WireFormat,
  { unit, limit }: { unit: "requests" | "tokens"; limit: number },
  waitMs: number,
  now: number,
): Record<string, string> {
  if (format === "messages") {
    const prefix = `anthropic-ratelimit-${unit}`;
    return {
      [`${prefix}-limit`]: String(limit),
      [`${prefix}-remaining`]: "0",
      [`${prefix}-reset`]: new Date(now + waitMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
  }
  return {
    [`x-ratelimit-limit-${unit}`]: String(limit),
    [`x-ratelimit-remaining-${unit}`]: "0",
    [`x-ratelimit-reset-${unit}`]: goDuration(waitMs),
  };
}

function limitsOf(scope: LimitScope, caller: Caller) {
  const entry = scope === "api_key" ? caller.apiKey : scope === "project" ? caller.project : caller.workload;
  return entry.limits ?? {};
}

function scopeName(scope: LimitScope, caller: Caller): string {
  if (scope === "api_key") return `API key ${caller.apiKey.id}`;
  if (scope === "project") return `project '${caller.project.slug}'`;
  return `workload '${caller.workload.name}'`;
}

const seconds = (ms: number) => String(Math.round(ms / 10) / 100);

/** Provider B's form of a wait: "12ms", "1.5s", "6m0s". */
export function goDuration(ms: number): string {
  if (ms < 1_000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const rest = seconds(ms - minutes * 60_000);
  return minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}
