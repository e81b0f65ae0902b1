import type { LimitsEntry } from "@gateway/contracts";
import type { AdmitRequest, Lease, ScopeLimits } from "./limit-store.ts";

/**
 * What one gateway replica may admit without asking Redis: the split gateway's fast path.
 *
 * Each time Redis admits a call it may also hand the replica a little more of each scope's
 * limits: requests reserved from the bucket, concurrency slots held in the replica's name, and
 * the tokens and budget room it saw. While every scope of a call has enough of that left, the
 * replica admits the call alone, in memory. A replica never holds more than 1/`holdDivisor` of
 * a limit beyond what it uses (so a limit under 100 is asked of Redis on every call), and what
 * it saw is trusted for `permitMs` at most. Requests and slots cannot be over-admitted (they are
 * taken in Redis before use); the cost is that each replica may hold up to 1 % of a limit that
 * another replica could have used.
 */
export const holdDivisor = 100;
/** How long what Redis said of a scope is trusted. */
export const permitMs = 1_000;
/**
 * How long a budget's spend, as the costing worker last published it, is trusted: a budget
 * found spent stops every replica within this (and a budget within 1 % of spent, at once).
 */
export const budgetTrustMs = 100;
/** At most this many slots are held spare per scope: each is a member of a sorted set. */
const maxSpareSlots = 32;

const spareRequests = (rpm: number) => Math.floor(rpm / holdDivisor);
const spareSlots = (concurrent: number) => Math.min(maxSpareSlots, Math.floor(concurrent / holdDivisor));

/**
 * What the replica holds of one scope under one limits entry. Keyed by the entry itself (it
 * lives as long as its config copy, one per scope): a changed limit is a new entry, which holds
 * nothing yet; slots held under the old one stay there until the calls using them end.
 */
interface ScopeHold {
  /** `<scope>:<id>`, the scope's name in Redis. */
  key: string;
  /** The concurrency limit of the entry (0: none). */
  concurrent: number;
  /** Until when what Redis said of the scope holds. */
  expiresAt: number;
  /** Requests reserved in Redis and not yet used (Infinity without a requests limit). */
  requests: number;
  /** Tokens the bucket had room for, less those spent here since (Infinity without a limit). */
  tokenRoom: number;
  /** The budget had at least 1/`holdDivisor` of itself left (or there is none). */
  budgetRoom: boolean;
  /** Until when the budget's spend seen is trusted. */
  budgetUntil: number;
  /** Numbers of the slots held in Redis (members `<tag>:<n>`), and how many calls use them. */
  slots: number[];
  inFlight: number;
}

/** What Redis said of one scope of an admitted call (see `admitScript`). */
export interface ScopeGrant {
  requests: number;
  /** -1: no tokens limit. */
  tokenRoom: number;
  slots: number;
  /** -1: no budget. */
  budgetRemaining: number;
}

/** What a call Redis must admit asks of one scope (see `admitScript`). */
export interface ScopeAsk {
  /** Requests wanted: 0 when the call uses one the replica holds. */
  requests: number;
  /** Slots wanted, numbered from `slotBase`: 0 when the call uses a spare one. */
  slots: number;
  slotBase: number;
  ownRequest: boolean;
  ownSlot: boolean;
  /** Whether Redis is asked at all: not when what the replica holds covers the scope. */
  sent: boolean;
}

/** What calls that ended give back to Redis for one scope: tokens spent and slots freed. */
export interface ScopeReturn {
  tpm: number;
  tokens: number;
  slots: string[];
}

export function replicaPermits(tag: string, now: () => number = Date.now) {
  const holds = new Map<LimitsEntry, ScopeHold>();
  let nextSlot = 0;
  const holdOf = ({ scope, id, limits }: ScopeLimits) => {
    let hold = holds.get(limits);
    if (!hold) {
      hold = {
        key: `${scope}:${id}`,
        concurrent: limits.concurrent ?? 0,
        expiresAt: 0,
        requests: 0,
        tokenRoom: 0,
        budgetRoom: false,
        budgetUntil: 0,
        slots: [],
        inFlight: 0,
      };
      holds.set(limits, hold);
    }
    return hold;
  };
  const slotName = (n: number) => `${tag}:${n}`;
  /** Holds whose calls freed slots since the last `takeReleases`. */
  const freed = new Set<ScopeHold>();
  const returnOf = (into: Map<string, ScopeReturn>, key: string, tpm: number) => {
    let back = into.get(key);
    if (!back) {
      back = { tpm, tokens: 0, slots: [] };
      into.set(key, back);
    } else if (tpm > 0) back.tpm = tpm;
    return back;
  };

  /** Whether what the replica holds covers one more call on scope `s`. */
  function covers(s: ScopeLimits, managed: boolean, at: number): boolean {
    const hold = holds.get(s.limits);
    if (!hold || hold.expiresAt <= at || hold.requests < 1 || hold.tokenRoom <= 0) return false;
    const budget = s.limits.budget;
    if (budget && (managed || budget.appliesTo === "all") && !(hold.budgetRoom && hold.budgetUntil > at))
      return false;
    return !s.limits.concurrent || hold.inFlight < hold.slots.length;
  }

  return {
    /** Admits the call here if every scope's hold covers it; false: ask Redis. */
    admitHere(request: AdmitRequest): boolean {
      const at = now();
      for (const s of request.scopes) if (!covers(s, request.managed, at)) return false;
      for (const s of request.scopes) {
        const hold = holds.get(s.limits)!;
        hold.requests--;
        if (s.limits.concurrent) hold.inFlight++;
      }
      return true;
    },

    /**
     * What a call Redis must admit (another of its scopes is not covered here) asks of it for
     * scope `s`: nothing when what the replica holds covers the scope; else the call uses what
     * the replica holds (a reserved request, a spare slot) and asks only for the rest, with some
     * more to hold. What the call took here is given back by `refused` if it is not admitted.
     */
    ask(s: ScopeLimits, managed: boolean): ScopeAsk {
      const { rpm, concurrent } = s.limits;
      const at = now();
      if (covers(s, managed, at)) {
        const hold = holds.get(s.limits)!;
        hold.requests--;
        if (concurrent) hold.inFlight++;
        return { requests: 0, slots: 0, slotBase: 0, ownRequest: true, ownSlot: !!concurrent, sent: false };
      }
      const hold = holdOf(s);
      const ownRequest = rpm !== undefined && hold.expiresAt > at && hold.requests >= 1;
      if (ownRequest) hold.requests--;
      const ownSlot = concurrent !== undefined && hold.inFlight < hold.slots.length;
      if (ownSlot) hold.inFlight++;
      const slots = concurrent && !ownSlot ? 1 + spareSlots(concurrent) : 0;
      const slotBase = nextSlot;
      nextSlot += slots;
      return {
        requests: rpm && !ownRequest ? 1 + spareRequests(rpm) : 0,
        slots,
        slotBase,
        ownRequest,
        ownSlot,
        sent: true,
      };
    },

    /** Redis admitted the call: what it handed over beyond the call's own is kept. */
    granted(s: ScopeLimits, ask: ScopeAsk, grant: ScopeGrant) {
      const at = now();
      const { rpm, tpm, concurrent, budget } = s.limits;
      const hold = holdOf(s);
      const held = hold.expiresAt > at ? hold.requests : 0;
      hold.expiresAt = at + permitMs;
      // the call took one of the requests granted (to it, or to an earlier call of its batch),
      // unless it used one held already
      hold.requests = rpm ? held + grant.requests - (ask.ownRequest ? 0 : 1) : Number.POSITIVE_INFINITY;
      hold.tokenRoom = !tpm
        ? Number.POSITIVE_INFINITY
        : grant.tokenRoom * holdDivisor >= tpm
          ? grant.tokenRoom
          : 0;
      hold.budgetRoom = !budget || grant.budgetRemaining * holdDivisor >= budget.micros;
      hold.budgetUntil = at + budgetTrustMs;
      if (concurrent && !ask.ownSlot) {
        // the call's slot is one granted now, or one granted to an earlier call of its batch
        for (let n = 0; n < grant.slots; n++) hold.slots.push(ask.slotBase + n);
        hold.inFlight++;
      }
    },

    /**
     * The call was not admitted: what it took of the replica's own goes back, and a scope that
     * refused it has nothing left to hold but its slots.
     */
    refused(s: ScopeLimits, ask: ScopeAsk, refusedHere: boolean) {
      const hold = holdOf(s);
      if (refusedHere) hold.expiresAt = 0;
      else if (ask.ownRequest) hold.requests++;
      if (ask.ownSlot) hold.inFlight--;
    },

    /**
     * The call ended: its tokens count against what the replica saw at once, and are added to
     * `into` (by scope name) for Redis. Its slot stays held until `takeReleases`, so that a call
     * arriving meanwhile uses it without asking Redis. The answer says whether a slot was freed
     * (`takeReleases` is then due soon: another replica may be waiting for one) or only tokens.
     */
    ended(lease: Lease, tokens: number, into: Map<string, ScopeReturn>): "nothing" | "tokens" | "slots" {
      let given: "nothing" | "tokens" | "slots" = "nothing";
      for (const s of lease.scopes) {
        const { tpm = 0, concurrent } = s.limits;
        const hold = holdOf(s);
        if (concurrent) {
          hold.inFlight--;
          freed.add(hold);
          given = "slots";
        }
        if (!(tpm > 0 && tokens > 0)) continue;
        hold.tokenRoom -= tokens;
        returnOf(into, hold.key, tpm).tokens += tokens;
        if (given === "nothing") given = "tokens";
      }
      return given;
    },

    /** Gives back (into `into`) the slots that calls freed and no call took since, beyond the spare. */
    takeReleases(into: Map<string, ScopeReturn>) {
      for (const hold of freed) {
        const surplus = hold.slots.length - hold.inFlight - spareSlots(hold.concurrent);
        if (surplus > 0) returnOf(into, hold.key, 0).slots.push(...hold.slots.splice(-surplus).map(slotName));
      }
      freed.clear();
    },

    /** Gives back (into `into`) every slot no call uses; whether there was any. */
    releaseSpare(into: Map<string, ScopeReturn>): boolean {
      let any = false;
      for (const hold of holds.values()) {
        const spare = hold.slots.length - Math.max(0, hold.inFlight);
        if (spare <= 0) continue;
        returnOf(into, hold.key, 0).slots.push(...hold.slots.splice(-spare).map(slotName));
        any = true;
      }
      return any;
    },

    /** The slots to renew, by scope name. Forgets what holds nothing any more. */
    renewals(): { key: string; name: string }[] {
      const renew: { key: string; name: string }[] = [];
      const at = now();
      for (const [limits, hold] of holds) {
        for (const n of hold.slots) renew.push({ key: hold.key, name: slotName(n) });
        if (hold.slots.length === 0 && hold.inFlight <= 0 && hold.expiresAt <= at) holds.delete(limits);
      }
      return renew;
    },

    /** Redis failed: nothing it said can be trusted any more (slots held stay held). */
    forget() {
      for (const hold of holds.values()) hold.expiresAt = 0;
    },
  };
}
export type ReplicaPermits = ReturnType<typeof replicaPermits>;
