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
`;

/**
 * KEYS: per scope (buckets, in flight, spend). ARGV: scope count, managed (1/0), request id,
 * lease ms, then per scope: rpm, tpm, concurrent, budget micros, budget applies to all (1/0);
 * a 0 limit is no limit. Returns {0} when admitted, else {scope index (1-based), limit code
 * (1 requests, 2 tokens, 3 concurrent, 4 budget), wait ms (budget: 0, the caller knows its
 * period)}.
 */
export const admitScript = `${now}
local n = tonumber(ARGV[1])
local managed = ARGV[2] == '1'
local request_id = ARGV[3]
local lease_ms = tonumber(ARGV[4])
local taken = {}
for i = 1, n do
  local a = 4 + (i - 1) * 5
  local rpm, tpm, conc, budget = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local all = ARGV[a + 5] == '1'
  local buckets, flight, spend = KEYS[i * 3 - 2], KEYS[i * 3 - 1], KEYS[i * 3]
  if budget > 0 and (all or managed) then
    if num(redis.call('HGET', spend, all and 'a' or 'm')) >= budget then return {i, 4, 0} end
  end
  if rpm > 0 then
    local next = math.max(num(redis.call('HGET', buckets, 'r')), now) + minute / rpm
    if next - now > minute then return {i, 1, math.ceil(next - now - minute)} end
    taken[i] = next
  end
  if tpm > 0 then
    local over = num(redis.call('HGET', buckets, 't')) - now - minute
    if over >= 0 then return {i, 2, math.ceil(over + minute / tpm)} end
  end
  if conc > 0 then
    redis.call('ZREMRANGEBYSCORE', flight, '-inf', now)
    if redis.call('ZCARD', flight) >= conc then return {i, 3, 1000} end
  end
end
for i = 1, n do
  local a = 4 + (i - 1) * 5
  local buckets, flight = KEYS[i * 3 - 2], KEYS[i * 3 - 1]
  if taken[i] then
    redis.call('HSET', buckets, 'r', fmt(taken[i]))
    keep(buckets, taken[i], num(redis.call('HGET', buckets, 't')))
  end
  if tonumber(ARGV[a + 3]) > 0 then
    redis.call('ZADD', flight, now + lease_ms, request_id)
    redis.call('PEXPIRE', flight, lease_ms * 2)
  end
end
return {0}
`;

/**
 * The end of calls: frees their slots and spends their tokens. KEYS: per settled scope
 * (buckets, in flight). ARGV: per settled scope: request id, tpm (0 = none), tokens.
 */
export const settleScript = `${now}
for i = 1, #KEYS / 2 do
  local buckets, flight = KEYS[i * 2 - 1], KEYS[i * 2]
  local a = (i - 1) * 3
  redis.call('ZREM', flight, ARGV[a + 1])
  local tpm, tokens = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  if tpm > 0 and tokens > 0 then
    local next = math.max(num(redis.call('HGET', buckets, 't')), now) + tokens * minute / tpm
    redis.call('HSET', buckets, 't', fmt(next))
    keep(buckets, num(redis.call('HGET', buckets, 'r')), next)
  end
end
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
