import type { ScopeReturn } from "./replica-permits.ts";

/**
 * What every script starts with (`redis-scripts.ts` says which keys they keep): Redis's own
 * time, so replicas' clocks do not matter, a few helpers, and `settle`, which the admit script
 * runs ahead of its admits.
 */
export const scriptPrelude = `
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

/** Settles the calls that ended (a turn that admitted none). ARGV: namespace, the calls to settle. */
export const settleScript = `${scriptPrelude}
settle(ARGV[1], ARGV[2])
return 0
`;

/** What calls gave back, per scope, as `settle` reads it (the lines its comment describes). */
export function settleLines(returns: Map<string, ScopeReturn>): string {
  let lines = "";
  for (const [key, back] of returns) {
    lines += `${lines ? "\n" : ""}${key}\t${back.tpm}\t${back.tokens}\t${back.rpm}\t${back.requests}`;
    if (back.slots.length > 0) lines += `\t${back.slots.join(" ")}`;
  }
  return lines;
}
