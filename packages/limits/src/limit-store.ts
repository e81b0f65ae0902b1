import type { LimitName, LimitScope, LimitsEntry, SpendTotal } from "@gateway/contracts";

/** One scope a call belongs to, with the limits set on it. */
export interface ScopeLimits {
  scope: LimitScope;
  id: string;
  limits: LimitsEntry;
}

export interface AdmitRequest {
  requestId: string;
  /** The call's key, project and workload, those with limits only. */
  scopes: ScopeLimits[];
  /** Whether the call is served with the operator's credential (budgets `applies_to: managed`). */
  managed: boolean;
}

/** Why a call was refused, and when trying again can succeed. */
export interface Refusal {
  scope: LimitScope;
  scopeId: string;
  limit: LimitName;
  /** The limit's value (a count, or the budget in micro-dollars). */
  value: number;
  /** How long until a retry can be admitted; for a budget, until its period ends. */
  retryAfterMs: number;
}

/** What an admitted call holds until it ends. */
export interface Lease {
  requestId: string;
  scopes: ScopeLimits[];
}

export type Admission = { ok: true; lease: Lease } | { ok: false; refusal: Refusal };

/** A scope's current use, as the limiter sees it (the limits-status report). */
export interface ScopeUse {
  scope: LimitScope;
  id: string;
  /** Requests the bucket holds as used: refilled at the limit per minute. */
  requests: number;
  /** Tokens the bucket holds as used, likewise. */
  tokens: number;
  concurrent: number;
}

/**
 * Where the gateway's limits are counted. In process for the all-in-one process; in Redis,
 * shared by every replica, for the split gateway (with per-replica local counting while Redis is
 * away). Chosen at start, like the config cache.
 */
export interface LimitStore {
  /**
   * Checks every limit of every scope of the call at once; a call refused by one limit takes
   * nothing from the others. Admitted: one request is counted and a concurrency slot taken in
   * each scope that limits them.
   */
  admit(request: AdmitRequest): Promise<Admission>;
  /** The call ended: frees its concurrency slots and counts the tokens it used. Never throws. */
  settle(lease: Lease, tokens: number): void;
  /** The costing worker's spend totals, which budgets are checked against. */
  publishSpend(totals: readonly SpendTotal[]): Promise<void>;
  /** Current use of each scope, for the report. */
  use(scopes: readonly { scope: LimitScope; id: string; limits: LimitsEntry }[]): Promise<ScopeUse[]>;
  /**
   * `in_process`: the all-in-one process, the only one counting; `shared`: in Redis, with every
   * replica; `local_fallback`: Redis is away and this replica counts alone, against its share.
   */
  counting(): "in_process" | "shared" | "local_fallback";
  close(): Promise<void>;
}
