/**
 * The Redis side of `buckets.ts`, as atomic scripts: every replica's check-and-take on a call's
 * scopes happens in one step, so two gateways cannot both take the last unit. Time is Redis's
 * own (`TIME`), so replicas' clocks do not matter. Per scope there are three keys: its buckets
 * (hash: `r` requests tat, `t` tokens tat), its slots in flight (sorted set of slot names by
 * lease expiry, each held by one replica: `replica-permits.ts`) and its spend in the budget's
 * current period (hash: `m` managed, `a` all).
 */
const now = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local minute = 60000
local function num(v) return tonumber(v) or 0 end
local function fmt(v) return string.format('%.3f', v) end
-- the buckets key lives as long as it holds any use
local function keep(key, tat_r, tat_t)
  local ttl = math.max(tat_r, tat_t) - now + 1000
  if ttl > 0 then redis.call('PEXPIRE', key, math.ceil(ttl)) end
end
local function split(text, separator)
  local parts = {}
  for part in string.gmatch(text, '[^' .. separator .. ']+') do parts[#parts + 1] = part end
  return parts
end
-- what a replica gives back: one line per scope, "<scope>:<id>, tpm (0 = none), tokens spent,
-- rpm (0 = none), requests reserved and not used (negative: admitted while counting alone, owed),
-- slot names freed (space-separated, left out when none)" tab-separated
local function settle(ns, text)
  for _, line in ipairs(split(text, '\\n')) do
    local f = split(line, '\\t')
    local buckets = ns .. ':b:' .. f[1]
    local tpm, tokens, rpm, requests = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]), tonumber(f[5])
    if tpm > 0 and tokens > 0 then
      local next = math.max(num(redis.call('HGET', buckets, 't')), now) + tokens * minute / tpm
      redis.call('HSET', buckets, 't', fmt(next))
      keep(buckets, num(redis.call('HGET', buckets, 'r')), next)
    end
    if rpm > 0 and requests ~= 0 then
      local tat = num(redis.call('HGET', buckets, 'r'))
      if requests > 0 then
        -- never past a full bucket
        tat = math.max(tat - requests * minute / rpm, now)
      else
        -- taken like any request, even past a spent bucket (calls then wait), but by a minute
        -- of the limit at most: a long outage does not block the scope for as long again
        tat = math.min(math.max(tat, now) - requests * minute / rpm, now + 2 * minute)
      end
      redis.call('HSET', buckets, 'r', fmt(tat))
      keep(buckets, tat, num(redis.call('HGET', buckets, 't')))
    end
    if f[6] then
      local names = split(f[6], ' ')
      -- in chunks: Lua's unpack has a limit of a few thousand values
      for i = 1, #names, 1000 do
        redis.call('ZREM', ns .. ':f:' .. f[1], unpack(names, i, math.min(i + 999, #names)))
      end
    end
  end
end
`;

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
export const admitScript = `${now}
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

/** Settles the calls that ended (a turn that admitted none). ARGV: namespace, the calls to settle. */
export const settleScript = `${now}
settle(ARGV[1], ARGV[2])
return 0
`;

/**
 * Extends the leases of the slots a replica holds, and the life of their sets. KEYS: in-flight
 * sets; ARGV: lease ms, then one slot name per key. A slot Redis no longer has (its lease lapsed,
 * or Redis lost it) is not brought back: another replica may have taken it since. Returns the
 * (1-based) indexes of those.
 */
export const renewScript = `${now}
local lease_ms = tonumber(ARGV[1])
local missing = {}
for i = 1, #KEYS do
  if redis.call('ZSCORE', KEYS[i], ARGV[i + 1]) then
    redis.call('ZADD', KEYS[i], now + lease_ms, ARGV[i + 1])
    redis.call('PEXPIRE', KEYS[i], lease_ms * 2)
  else
    missing[#missing + 1] = i
  end
end
return missing
`;

/**
 * This replica is alive; returns how many are. KEYS: the replicas set. ARGV: replica id,
 * how long a replica counts without a new beat.
 */
export const heartbeatScript = `${now}
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])
`;

/**
 * A spend total; kept only if it is not older than the one there (a re-delivered batch or a
 * slow worker must not move spend back). KEYS: spend hash. ARGV: managed, all, ttl ms.
 */
export const spendScript = `
local m, a = tonumber(ARGV[1]), tonumber(ARGV[2])
if (tonumber(redis.call('HGET', KEYS[1], 'a')) or -1) > a then return 0 end
redis.call('HSET', KEYS[1], 'm', m, 'a', a)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;
