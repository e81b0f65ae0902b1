import type { LimitName } from "@gateway/contracts";
import type { ScopeLimits } from "./limit-store.ts";
import { scriptPrelude } from "./redis-settle-script.ts";
import type { ScopeAsk, ScopeGrant } from "./replica-permits.ts";
import { currentPeriod } from "./spend-keys.ts";

/**
 * Settles the calls that ended, then admits a batch of calls, in order, each as if alone: one
 * command per turn of the gateway's event loop. Keys are built here from the namespace and each
 * scope's name, and each call is one string: a few arguments per batch instead of eight per
 * scope is most of what keeps the gateway's CPU per call low (a single Redis, not a cluster, is
 * assumed: keys a script builds cannot be routed).
 *
 * ARGV: namespace, lease ms, the replica's slot tag, the calls to settle (see `settle`; "" when
 * none), then one argument per call to admit: lines, the first "managed (1/0)", then one per
 * scope with the tab-separated "<scope>:<id>, rpm, tpm, concurrent, budget micros, budget
 * applies to all (1/0), budget period, period start, requests wanted, slots wanted, first slot
 * number"; a 0 limit is no limit. A call wants one request and one slot, and the replica asks
 * for some more to admit later calls alone: what fits is granted, at least the call's own. A
 * call that uses a request or slot the replica holds already wants 0 of it: that limit is not
 * checked again. What a call is granted beyond its own goes first to the later calls of the
 * same batch on that scope and limit (they are the same replica's): those are granted 0 and take
 * from it.
 *
 * Returns, per call, three numbers: {0, 0, 0} when admitted, else {scope index (1-based), limit
 * code (1 requests, 2 tokens, 3 concurrent, 4 budget), wait ms (budget: 0, the caller knows its
 * period)}; then four per scope (zeros when refused): requests granted, token room (-1: no
 * limit), slots granted, budget micros remaining (-1: no budget).
 */
export const admitScript = `${scriptPrelude}
local ns, lease_ms, tag = ARGV[1], tonumber(ARGV[2]), ARGV[3]
settle(ns, ARGV[4])
-- requests and slots granted earlier in this batch beyond their call's own, per scope and limit
local carried = { requests = {}, slots = {} }
local function has_carried(kind, key) return (carried[kind][key] or 0) > 0 end
local function carry(kind, key, count) carried[kind][key] = (carried[kind][key] or 0) + count end
local function admit(lines, managed)
  local scopes = {}
  for i = 1, #lines - 1 do
    local f = split(lines[i + 1], '\\t')
    local s = { buckets = ns .. ':b:' .. f[1], flight = ns .. ':f:' .. f[1] }
    s.request_key, s.slot_key = f[1] .. '|' .. f[2], f[1] .. '|' .. f[4]
    scopes[i] = s
    local rpm, tpm, conc, budget = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]), tonumber(f[5])
    local all = f[6] == '1'
    s.remaining, s.requests, s.tokens, s.slots = -1, 0, -1, 0
    if budget > 0 then
      local spend = ns .. ':s:' .. f[1] .. ':' .. f[7] .. ':' .. f[8]
      s.remaining = budget - num(redis.call('HGET', spend, all and 'a' or 'm'))
      if (all or managed) and s.remaining <= 0 then return { i, 4, 0 } end
    end
    local want_requests, want_slots = tonumber(f[9]), tonumber(f[10])
    if rpm > 0 and want_requests > 0 and has_carried('requests', s.request_key) then
      s.carried_request = true
    elseif rpm > 0 and want_requests > 0 then
      local interval = minute / rpm
      local tat = math.max(num(redis.call('HGET', s.buckets, 'r')), now)
      local room = math.floor((now + minute - tat) / interval)
      if room < 1 then return { i, 1, math.ceil(tat + interval - now - minute) } end
      s.requests = math.min(room, want_requests)
      s.tat = tat + s.requests * interval
    end
    if tpm > 0 then
      local room = now + minute - math.max(num(redis.call('HGET', s.buckets, 't')), now)
      if room <= 0 then return { i, 2, math.ceil(minute / tpm - room) } end
      s.tokens = math.floor(room * tpm / minute)
    end
    if conc > 0 and want_slots > 0 and has_carried('slots', s.slot_key) then
      s.carried_slot = true
    elseif conc > 0 and want_slots > 0 then
      redis.call('ZREMRANGEBYSCORE', s.flight, '-inf', now)
      local free = conc - redis.call('ZCARD', s.flight)
      if free < 1 then return { i, 3, 1000 } end
      s.slots, s.base = math.min(free, want_slots), tonumber(f[11])
    end
  end
  -- every limit allows the call: only now does it take from any of them
  local out = { 0, 0, 0 }
  for _, s in ipairs(scopes) do
    if s.carried_request then
      carry('requests', s.request_key, -1)
    elseif s.tat then
      redis.call('HSET', s.buckets, 'r', fmt(s.tat))
      keep(s.buckets, s.tat, num(redis.call('HGET', s.buckets, 't')))
      carry('requests', s.request_key, s.requests - 1)
    end
    if s.carried_slot then
      carry('slots', s.slot_key, -1)
    elseif s.slots > 0 then
      for n = s.base, s.base + s.slots - 1 do redis.call('ZADD', s.flight, now + lease_ms, tag .. ':' .. n) end
      redis.call('PEXPIRE', s.flight, lease_ms * 2)
      carry('slots', s.slot_key, s.slots - 1)
    end
    out[#out + 1] = s.requests
    out[#out + 1] = s.tokens
    out[#out + 1] = s.slots
    out[#out + 1] = s.remaining
  end
  return out
end
local out = {}
for c = 5, #ARGV do
  local lines = split(ARGV[c], '\\n')
  local answer = admit(lines, lines[1] == '1')
  for i = 1, 3 + 4 * (#lines - 1) do out[#out + 1] = answer[i] or 0 end
end
return out
`;

/**
 * What the replica holds fixed of a scope's argument line: all but the period's start and what
 * is asked, kept per limits entry (which lives as long as its config copy).
 */
const fixedLines = new WeakMap<ScopeLimits["limits"], string>();

/** One scope's line of a call's argument (see `admitScript`). */
function scopeLine({ scope, id, limits }: ScopeLimits, at: number, ask: ScopeAsk): string {
  let fixed = fixedLines.get(limits);
  if (fixed === undefined) {
    const { rpm, tpm, concurrent, budget } = limits;
    const all = budget?.appliesTo === "all" ? 1 : 0;
    fixed = `${scope}:${id}\t${rpm ?? 0}\t${tpm ?? 0}\t${concurrent ?? 0}\t${budget?.micros ?? 0}\t${all}\t${budget?.period ?? "day"}`;
    fixedLines.set(limits, fixed);
  }
  const start = limits.budget ? currentPeriod(limits.budget.period, at).start : "-";
  return `${fixed}\t${start}\t${ask.requests}\t${ask.slots}\t${ask.slotBase}`;
}

/**
 * One call's argument: one string, not eleven arguments per scope. `sent` are the indexes of the
 * scopes asked of Redis, in the order their answers come back.
 */
export function admitCallArgument(
  call: { managed: boolean; scopes: readonly ScopeLimits[] },
  at: number,
  asks: readonly ScopeAsk[],
  sent: readonly number[],
): string {
  let line = call.managed ? "1" : "0";
  for (const i of sent) line += `\n${scopeLine(call.scopes[i]!, at, asks[i]!)}`;
  return line;
}

/** How many numbers one call's answer takes: three, then four per scope sent. */
export const admitAnswerLength = (scopesSent: number) => 3 + 4 * scopesSent;

const limitCodes = [null, "requests_per_minute", "tokens_per_minute", "max_concurrent", "budget"] as const;

/** Why the call answered at `offset` was refused (`sentIndex`: among the scopes sent), or null: admitted. */
export function admitRefusal(
  answer: readonly number[],
  offset: number,
): { sentIndex: number; limit: LimitName; waitMs: number } | null {
  const index = answer[offset] ?? 0;
  if (index === 0) return null;
  return {
    sentIndex: index - 1,
    limit: limitCodes[answer[offset + 1] ?? 0] ?? "requests_per_minute",
    waitMs: answer[offset + 2] ?? 0,
  };
}

/** What Redis granted the `sentIndex`-th scope sent of the call answered at `offset`. */
export function admitGrant(answer: readonly number[], offset: number, sentIndex: number): ScopeGrant {
  const from = offset + 3 + sentIndex * 4;
  return {
    requests: answer[from] ?? 0,
    tokenRoom: answer[from + 1] ?? -1,
    slots: answer[from + 2] ?? 0,
    budgetRemaining: answer[from + 3] ?? -1,
  };
}
