import type { LimitsEntry } from "@gateway/contracts";
import type { AdmitRequest, Lease, ScopeLimits } from "./limit-store.ts";

/**
 * What one gateway replica may admit without asking Redis: the split gateway's fast path.
 *
 * Each time Redis admits a call it may also hand the replica a little more of each scope's
 * limits: requests reserved from the bucket, concurrency slots held in the replica's name, and
 * the room it saw in the tokens bucket and the budget. While every scope of a call has enough of
 * that left, the replica admits the call alone, in memory. A replica holds at most
 * 1/`holdDivisor` of a limit beyond what it uses (so a per-minute limit under 100 is asked of
 * Redis on every call), asks for more only once what it asked for last has come back, gives
 * back reserved requests it did not use once they are `permitMs` old, and trusts what it saw
 * for `permitMs` at most. Requests and slots are taken in Redis before they are used; the cost
 * is that each replica may hold for a while up to 1 % of a limit that another could have used.
 */
const holdDivisor = 100;
/** How long what Redis said of a scope is trusted. */
const permitMs = 1_000;
/**
 * How long a budget's spend, as the costing worker last published it, is trusted: a budget
 * found spent stops every replica within this (and a budget within 1 % of spent, at once).
 */
const budgetTrustMs = 100;
/** At most this many slots are held spare per scope: each is a member of a sorted set. */
const maxSpareSlots = 32;

const spareRequests = (rpm: number) => Math.floor(rpm / holdDivisor);
const spareSlots = (concurrent: number) => Math.min(maxSpareSlots, Math.floor(concurrent / holdDivisor));

/**
 * What the replica holds of one scope under one set of limit values. A changed limit is a new
 * hold, which holds nothing yet; slots held under the old one stay there until the calls using
 * them end. (The config cache hands out a new entry object on every re-read, so the values, not
 * the object, name the hold.)
 */
interface ScopeHold {
  /** `<scope>:<id>`, the scope's name in Redis. */
  key: string;
  rpm: number;
  concurrent: number;
  /** Until when what Redis said of the scope holds. */
  expiresAt: number;
  /** Requests reserved in Redis and not yet used (Infinity without a requests limit). */
  requests: number;
  /** Tokens this replica may still see spent (Infinity without a tokens limit). */
  tokenRoom: number;
  /** The budget had at least 1/`holdDivisor` of itself left (or there is none)... */
  budgetRoom: boolean;
  /** ...as seen until this instant. */
  budgetUntil: number;
  /** Numbers of the slots held in Redis (members `<tag>:<n>`), and how many calls use them. */
  slots: number[];
  inFlight: number;
  /** A call asking Redis for spare requests, or slots, is on its way: later ones ask for none. */
  askingRequests: boolean;
  askingSlots: boolean;
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

/** What the replica gives back to Redis for one scope: tokens spent, requests and slots unused. */
export interface ScopeReturn {
  tpm: number;
  tokens: number;
  rpm: number;
  requests: number;
  slots: string[];
}

/** A slot to renew: its scope's name, its member name, and where it is held. */
interface Renewal {
  key: string;
  name: string;
  hold: ScopeHold;
  n: number;
}

export function replicaPermits(tag: string, now: () => number = Date.now) {
  const holds = new Map<string, ScopeHold>();
  /** Each limits entry's hold name (`<scope>:<id>` and the limit values), computed once. */
  const holdNames = new WeakMap<LimitsEntry, string>();
  let nextSlot = 0;
  const holdName = ({ scope, id, limits }: ScopeLimits) => {
    let name = holdNames.get(limits);
    if (name === undefined) {
      const { rpm, tpm, concurrent, budget } = limits;
      name = `${scope}:${id}|${rpm}|${tpm}|${concurrent}|${budget?.micros}|${budget?.period}|${budget?.appliesTo}`;
      holdNames.set(limits, name);
    }
    return name;
  };
  const holdOf = (s: ScopeLimits) => {
    const name = holdName(s);
    let hold = holds.get(name);
    if (!hold) {
      hold = {
        key: `${s.scope}:${s.id}`,
        rpm: s.limits.rpm ?? 0,
        concurrent: s.limits.concurrent ?? 0,
        expiresAt: 0,
        requests: 0,
        tokenRoom: 0,
        budgetRoom: false,
        budgetUntil: 0,
        slots: [],
        inFlight: 0,
        askingRequests: false,
        askingSlots: false,
      };
      holds.set(name, hold);
    }
    return hold;
  };
  const slotName = (n: number) => `${tag}:${n}`;
  /** Holds whose calls freed slots since the last `takeReleases`. */
  const freed = new Set<ScopeHold>();
  const returnOf = (into: Map<string, ScopeReturn>, hold: ScopeHold) => {
    let back = into.get(hold.key);
    if (!back) {
      back = { tpm: 0, tokens: 0, rpm: hold.rpm, requests: 0, slots: [] };
      into.set(hold.key, back);
    }
    return back;
  };
  /**
   * Reserved requests that outlived what the replica trusts go back to the bucket (`into`), so
   * that a replica calling rarely does not waste a reservation on every call.
   */
  const expire = (hold: ScopeHold, at: number, into: Map<string, ScopeReturn>) => {
    if (hold.expiresAt > at) return;
    if (hold.rpm > 0 && hold.requests >= 1 && Number.isFinite(hold.requests)) {
      const back = returnOf(into, hold);
      back.rpm = hold.rpm;
      back.requests += Math.floor(hold.requests);
    }
    hold.requests = 0;
  };

  /** Whether what the replica holds covers one more call on scope `s`. */
  function covers(s: ScopeLimits, managed: boolean, at: number): boolean {
    const hold = holds.get(holdName(s));
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
        const hold = holds.get(holdName(s))!;
        hold.requests--;
        if (s.limits.concurrent) hold.inFlight++;
      }
      return true;
    },

    /**
     * What a call Redis must admit (another of its scopes is not covered here) asks of it for
     * scope `s`: nothing when what the replica holds covers the scope; else the call uses what
     * the replica holds (a reserved request, a spare slot) and asks only for the rest, with some
     * more to hold. What the call took here is given back by `refused` if it is not admitted;
     * requests that expired unused go into `into`.
     */
    ask(s: ScopeLimits, managed: boolean, into: Map<string, ScopeReturn>): ScopeAsk {
      const { rpm, concurrent } = s.limits;
      const at = now();
      if (covers(s, managed, at)) {
        const hold = holds.get(holdName(s))!;
        hold.requests--;
        if (concurrent) hold.inFlight++;
        return { requests: 0, slots: 0, slotBase: 0, ownRequest: true, ownSlot: !!concurrent, sent: false };
      }
      const hold = holdOf(s);
      expire(hold, at, into);
      const ownRequest = rpm !== undefined && hold.requests >= 1;
      if (ownRequest) hold.requests--;
      const ownSlot = concurrent !== undefined && hold.inFlight < hold.slots.length;
      if (ownSlot) hold.inFlight++;
      let requests = 0;
      if (rpm && !ownRequest) {
        requests = 1 + (hold.askingRequests ? 0 : spareRequests(rpm));
        hold.askingRequests ||= requests > 1;
      }
      let slots = 0;
      if (concurrent && !ownSlot) {
        slots = 1 + (hold.askingSlots ? 0 : spareSlots(concurrent));
        hold.askingSlots ||= slots > 1;
      }
      const slotBase = nextSlot;
      nextSlot += slots;
      return { requests, slots, slotBase, ownRequest, ownSlot, sent: true };
    },

    /** Redis admitted the call: what it handed over beyond the call's own is kept. */
    granted(s: ScopeLimits, ask: ScopeAsk, grant: ScopeGrant) {
      const at = now();
      const { rpm, tpm, concurrent, budget } = s.limits;
      const hold = holdOf(s);
      if (ask.requests > 1) hold.askingRequests = false;
      if (ask.slots > 1) hold.askingSlots = false;
      // requests held still count even if their time ran out meanwhile: they were taken in Redis
      const held = hold.requests;
      hold.expiresAt = at + permitMs;
      // the call took one of the requests granted (to it, or to an earlier call of its batch),
      // unless it used one held already
      hold.requests = rpm ? held + grant.requests - (ask.ownRequest ? 0 : 1) : Number.POSITIVE_INFINITY;
      // the room is shared with every replica: this one takes its 1 % of it at most
      hold.tokenRoom = tpm
        ? Math.min(grant.tokenRoom, Math.floor(tpm / holdDivisor))
        : Number.POSITIVE_INFINITY;
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
      if (ask.requests > 1) hold.askingRequests = false;
      if (ask.slots > 1) hold.askingSlots = false;
      if (refusedHere) hold.expiresAt = 0;
      else if (ask.ownRequest) hold.requests++;
      if (ask.ownSlot) hold.inFlight--;
    },

    /**
     * The call ended: its tokens count against what the replica saw at once, and are added to
     * `into` for Redis. Its slot stays held until `takeReleases`, so that a call arriving
     * meanwhile uses it without asking Redis. The answer says whether a slot was freed
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
        const back = returnOf(into, hold);
        back.tpm = tpm;
        back.tokens += tokens;
        if (given === "nothing") given = "tokens";
      }
      return given;
    },

    /** Gives back (into `into`) the slots that calls freed and no call took since, beyond the spare. */
    takeReleases(into: Map<string, ScopeReturn>) {
      for (const hold of freed) {
        const surplus = hold.slots.length - hold.inFlight - spareSlots(hold.concurrent);
        if (surplus > 0) returnOf(into, hold).slots.push(...hold.slots.splice(-surplus).map(slotName));
      }
      freed.clear();
    },

    /**
     * Gives back (into `into`) every slot no call uses and every reserved request past its time
     * (all slots with `all`: the replica is closing); whether there was any. Forgets what holds
     * nothing any more.
     */
    releaseIdle(into: Map<string, ScopeReturn>, all = false): boolean {
      const before = into.size;
      const at = now();
      for (const [name, hold] of holds) {
        expire(hold, all ? Number.POSITIVE_INFINITY : at, into);
        const idle = all ? hold.slots.length : hold.slots.length - Math.max(0, hold.inFlight);
        if (idle > 0) returnOf(into, hold).slots.push(...hold.slots.splice(-idle).map(slotName));
        if (hold.slots.length === 0 && hold.inFlight <= 0 && hold.expiresAt <= at) holds.delete(name);
      }
      return into.size > before;
    },

    /** The slots to renew. */
    renewals(): Renewal[] {
      const renew: Renewal[] = [];
      for (const hold of holds.values())
        for (const n of hold.slots) renew.push({ key: hold.key, name: slotName(n), hold, n });
      return renew;
    },

    /**
     * Slots Redis no longer has (their lease lapsed, or Redis lost them): the calls using them
     * finish, but no call takes them again.
     */
    lost(renewals: readonly Renewal[]) {
      for (const { hold, n } of renewals) {
        const at = hold.slots.indexOf(n);
        if (at >= 0) hold.slots.splice(at, 1);
      }
    },

    /** Redis failed: nothing it said can be trusted any more (slots held stay held). */
    forget() {
      for (const hold of holds.values()) {
        hold.expiresAt = 0;
        hold.askingRequests = false;
        hold.askingSlots = false;
      }
    },
  };
}
export type ReplicaPermits = ReturnType<typeof replicaPermits>;
