/**
 * The Redis side of `buckets.ts`, as atomic scripts: every replica's check-and-take on a call's
 * scopes happens in one step, so two gateways cannot both take the last unit. Time is Redis's
 * own (`TIME`), so replicas' clocks do not matter. Per scope there are three keys: its buckets
 * (hash: `r` requests tat, `t` tokens tat), its calls in flight (sorted set of request ids by
 * lease expiry) and its spend in the budget's current period (hash: `m` managed, `a` all).
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
-- calls that ended: one line each per scope to settle, "<scope>:<id>, request id, tpm (0 =
-- none), tokens" tab-separated; their slots free and their tokens are spent
local function settle(ns, text)
  for _, line in ipairs(split(text, '\\n')) do
    local f = split(line, '\\t')
    local buckets = ns .. ':b:' .. f[1]
    redis.call('ZREM', ns .. ':f:' .. f[1], f[2])
    local tpm, tokens = tonumber(f[3]), tonumber(f[4])
    if tpm > 0 and tokens > 0 then
      local next = math.max(num(redis.call('HGET', buckets, 't')), now) + tokens * minute / tpm
      redis.call('HSET', buckets, 't', fmt(next))
      keep(buckets, num(redis.call('HGET', buckets, 'r')), next)
    end
  end
end
`;

/**
 * Settles the calls that ended, then admits a batch of calls, in order, each as if alone: one
 * command per turn of the gateway's event loop. Keys are built here from the namespace (ARGV[1])
 * and each scope's name, and each call is one string: a few arguments per batch instead of eight
 * per scope is most of what keeps the gateway's CPU per call low (a single Redis, not a cluster,
 * is assumed: keys a script builds cannot be routed). ARGV: namespace, lease ms, the calls to
 * settle (see `settle`; "" when none), then one argument per call to admit: lines, the first "managed (1/0)<tab>request id", then one
 * per scope with the tab-separated "<scope>:<id>, rpm, tpm, concurrent, budget micros, budget
 * applies to all (1/0), budget period, period start"; a 0 limit is no limit. Returns three
 * numbers per call: {0, 0, 0} when admitted, else {scope index (1-based), limit code (1 requests,
 * 2 tokens, 3 concurrent, 4 budget), wait ms (budget: 0, the caller knows its period)}.
 */
export const admitScript = `${now}
local ns, lease_ms = ARGV[1], tonumber(ARGV[2])
settle(ns, ARGV[3])
local function admit(lines, managed, request_id)
  local taken, scopes = {}, {}
  local n = #lines - 1
  for i = 1, n do
    local f = split(lines[i + 1], '\\t')
    local s = { buckets = ns .. ':b:' .. f[1], flight = ns .. ':f:' .. f[1], conc = tonumber(f[4]) }
    scopes[i] = s
    local rpm, tpm, budget = tonumber(f[2]), tonumber(f[3]), tonumber(f[5])
    local all = f[6] == '1'
    if budget > 0 and (all or managed) then
      local spend = ns .. ':s:' .. f[1] .. ':' .. f[7] .. ':' .. f[8]
      if num(redis.call('HGET', spend, all and 'a' or 'm')) >= budget then return i, 4, 0 end
    end
    if rpm > 0 then
      local next = math.max(num(redis.call('HGET', s.buckets, 'r')), now) + minute / rpm
      if next - now > minute then return i, 1, math.ceil(next - now - minute) end
      taken[i] = next
    end
    if tpm > 0 then
      local over = num(redis.call('HGET', s.buckets, 't')) - now - minute
      if over >= 0 then return i, 2, math.ceil(over + minute / tpm) end
    end
    if s.conc > 0 then
      redis.call('ZREMRANGEBYSCORE', s.flight, '-inf', now)
      if redis.call('ZCARD', s.flight) >= s.conc then return i, 3, 1000 end
    end
  end
  for i = 1, n do
    local s = scopes[i]
    if taken[i] then
      redis.call('HSET', s.buckets, 'r', fmt(taken[i]))
      keep(s.buckets, taken[i], num(redis.call('HGET', s.buckets, 't')))
    end
    if s.conc > 0 then
      redis.call('ZADD', s.flight, now + lease_ms, request_id)
      redis.call('PEXPIRE', s.flight, lease_ms * 2)
    end
  end
  return 0, 0, 0
end
local out = {}
for c = 4, #ARGV do
  local lines = split(ARGV[c], '\\n')
  local head = split(lines[1], '\\t')
  local index, code, wait = admit(lines, head[1] == '1', head[2])
  out[#out + 1] = index
  out[#out + 1] = code
  out[#out + 1] = wait
end
return out
`;

/** Settles the calls that ended (a turn that admitted none). ARGV: namespace, the calls to settle. */
export const settleScript = `${now}
settle(ARGV[1], ARGV[2])
return 0
`;

/**
 * Extends the leases of calls still in flight. KEYS: in-flight sets; ARGV: lease ms, then one
 * request id per key. A lease that already expired is not brought back (`XX`).
 */
export const renewScript = `${now}
local lease_ms = tonumber(ARGV[1])
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now + lease_ms, ARGV[i + 1]) end
return 0
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
