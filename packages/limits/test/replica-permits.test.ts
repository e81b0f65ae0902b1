import type { LimitsEntry } from "@gateway/contracts";
import { beforeEach, describe, expect, it } from "vitest";
import type { AdmitRequest, Lease, ScopeLimits } from "../src/limit-store.ts";
import {
  type ReplicaPermits,
  replicaPermits,
  type ScopeGrant,
  type ScopeReturn,
} from "../src/replica-permits.ts";

// The split gateway's fast path, driven directly: Redis's answers are the grants handed in, and
// time is a clock the test moves.
let clock = 0;
let permits: ReplicaPermits;
beforeEach(() => {
  clock = Date.UTC(2026, 10, 25, 12, 0, 0);
  permits = replicaPermits("replica-1", () => clock);
});

const scope = (limits: LimitsEntry, id = "key_1"): ScopeLimits => ({ scope: "api_key", id, limits });
let n = 0;
const call = (s: ScopeLimits, managed = true): AdmitRequest => ({
  requestId: `req_${++n}`,
  scopes: [s],
  managed,
});
const lease = (s: ScopeLimits): Lease => ({ requestId: `req_${++n}`, scopes: [s] });
const grant = (g: Partial<ScopeGrant>): ScopeGrant => ({
  requests: 0,
  tokenRoom: -1,
  slots: 0,
  budgetRemaining: -1,
  ...g,
});
/** How many calls on `s` the replica admits alone, up to `most`. */
const admittedHere = (s: ScopeLimits, most = 1_000, managed = true) => {
  let admitted = 0;
  while (admitted < most && permits.admitHere(call(s, managed))) admitted++;
  return admitted;
};
/** Redis admits one call on `s` and grants what it was asked (`granted` overrides). */
const admitThroughRedis = (s: ScopeLimits, granted: Partial<ScopeGrant> = {}) => {
  const ask = permits.ask(s, true, new Map());
  permits.granted(s, ask, grant({ requests: ask.requests, slots: ask.slots, ...granted }));
  return ask;
};

describe("replica permits", () => {
  it("asks Redis for the call's request and 1 % of the limit more, then admits that many alone", () => {
    const key = scope({ rpm: 1_000 });
    expect(permits.admitHere(call(key))).toBe(false);
    const first = permits.ask(key, true, new Map());
    expect(first).toEqual({
      requests: 11,
      slots: 0,
      slotBase: 0,
      ownRequest: false,
      ownSlot: false,
      sent: true,
    });
    // while the first ask is on its way, another call asks for its own request only
    const second = permits.ask(key, true, new Map());
    expect(second.requests).toBe(1);
    permits.granted(key, first, grant({ requests: 11 }));
    permits.granted(key, second, grant({ requests: 1 }));
    expect(admittedHere(key)).toBe(10);
    // the ask under way answered: the next one asks for spare requests again
    expect(permits.ask(key, true, new Map()).requests).toBe(11);
  });

  it("trusts a grant for a second, then gives the requests it did not use back", () => {
    const key = scope({ rpm: 1_000 });
    admitThroughRedis(key);
    expect(admittedHere(key, 3)).toBe(3);
    clock += 999;
    expect(admittedHere(key, 1)).toBe(1);
    clock += 1;
    expect(admittedHere(key)).toBe(0);
    const back = new Map<string, ScopeReturn>();
    expect(permits.releaseIdle(back)).toBe(true);
    expect(back).toEqual(
      new Map([["api_key:key_1", { tpm: 0, tokens: 0, rpm: 1_000, requests: 6, slots: [] }]]),
    );
    // nothing is held any more, so nothing more goes back
    expect(permits.releaseIdle(new Map())).toBe(false);
  });

  it("holds a new limit value apart: what was granted under the old one does not cover it", () => {
    admitThroughRedis(scope({ rpm: 1_000 }));
    expect(admittedHere(scope({ rpm: 2_000 }))).toBe(0);
    expect(admittedHere(scope({ rpm: 1_000 }))).toBe(10);
  });

  it("gives back what a refused call took of its holds, and asks for spare again after a refusal", () => {
    const key = scope({ rpm: 1_000 });
    admitThroughRedis(key);
    // another scope of the call was not covered: this one's request is the call's own
    const covered = permits.ask(key, true, new Map());
    expect(covered).toMatchObject({ requests: 0, ownRequest: true, sent: false });
    permits.refused(key, covered, false);
    expect(admittedHere(key)).toBe(10);
    // Redis refused the call on a scope that was asking for spare requests: the next call asks again
    const other = scope({ rpm: 1_000 }, "key_2");
    const asking = permits.ask(other, true, new Map());
    expect(asking.requests).toBe(11);
    // only the call that asked for spare ends the asking
    permits.refused(other, permits.ask(other, true, new Map()), true);
    expect(permits.ask(other, true, new Map()).requests).toBe(1);
    permits.refused(other, asking, true);
    expect(permits.ask(other, true, new Map()).requests).toBe(11);
  });

  it("uses the slots it holds for calls in flight, and gives back those beyond the spare when calls end", () => {
    const flight = scope({ concurrent: 200 });
    // 1 % of 200: two slots spare beside the call's own
    expect(admitThroughRedis(flight)).toMatchObject({ slots: 3, slotBase: 0 });
    expect(permits.renewals().map((r) => r.name)).toEqual(["replica-1:0", "replica-1:1", "replica-1:2"]);
    expect(admittedHere(flight)).toBe(2);
    const back = new Map<string, ScopeReturn>();
    for (let i = 0; i < 3; i++) expect(permits.ended(lease(flight), 0, back)).toBe("slots");
    expect(back.size).toBe(0);
    permits.takeReleases(back);
    expect(back.get("api_key:key_1")?.slots).toEqual(["replica-1:2"]);
    expect(admittedHere(flight)).toBe(2);
    // closing: every slot goes back, in use or not
    permits.releaseIdle(back, true);
    expect(back.get("api_key:key_1")?.slots).toEqual(["replica-1:2", "replica-1:0", "replica-1:1"]);
    expect(permits.renewals()).toEqual([]);
  });

  it("stops using a slot Redis lost", () => {
    const flight = scope({ concurrent: 200 });
    admitThroughRedis(flight);
    permits.lost([permits.renewals()[1]!]);
    expect(permits.renewals().map((r) => r.name)).toEqual(["replica-1:0", "replica-1:2"]);
    expect(admittedHere(flight)).toBe(1);
  });

  it("counts tokens spent against its 1 % of the room Redis saw", () => {
    const tokens = scope({ tpm: 10_000 });
    admitThroughRedis(tokens, { tokenRoom: 50_000 });
    const back = new Map<string, ScopeReturn>();
    expect(permits.ended(lease(tokens), 60, back)).toBe("tokens");
    expect(admittedHere(tokens, 1)).toBe(1);
    expect(permits.ended(lease(tokens), 40, back)).toBe("tokens");
    expect(back.get("api_key:key_1")).toEqual({ tpm: 10_000, tokens: 100, rpm: 0, requests: 0, slots: [] });
    expect(admittedHere(tokens)).toBe(0);
  });

  it("admits budgeted calls alone only while 1 % of the budget was left, seen within 100 ms", () => {
    const budget = { micros: 1_000_000, period: "day", appliesTo: "managed" } as const;
    const project = scope({ budget });
    admitThroughRedis(project, { budgetRemaining: 10_000 });
    expect(admittedHere(project, 1)).toBe(1);
    clock += 100;
    expect(admittedHere(project)).toBe(0);
    // a budget on managed calls does not hold back a call with the caller's own credential
    expect(admittedHere(project, 1, false)).toBe(1);
    admitThroughRedis(project, { budgetRemaining: 9_999 });
    expect(admittedHere(project)).toBe(0);
  });

  it("trusts nothing Redis said once Redis failed", () => {
    const key = scope({ rpm: 1_000 });
    admitThroughRedis(key);
    permits.forget();
    expect(admittedHere(key)).toBe(0);
  });
});
