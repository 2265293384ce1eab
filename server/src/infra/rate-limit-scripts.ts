/** The Lua scripts of the shared rate limiter (rate-limiter.ts), run in Redis. */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

// KEYS[1] = bucket key; ARGV = interval ms, burst, peek (0/1). Uses the Redis clock so
// instances with skewed clocks still share one limit.
export const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local limit = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
local newTat = math.max(tat, now) + interval
local excess = newTat - now - limit
if excess > 0 then return {0, math.ceil(excess)} end
if ARGV[3] == '0' then redis.call('SET', KEYS[1], newTat, 'PX', math.ceil(limit)) end
return {1, 0}
`;

// Several takeEach calls at once (one round trip for all the calls of a moment). KEYS = the
// calls' bucket keys one after the other; ARGV[1] = number of calls, then per call: its
// number of keys, interval ms, burst, and 1 to count every bucket even over its limit (a
// request already let through: see answerEarly) or 0 to stop at the first refusal. Answers
// per call: allowed (0/1), retry after ms, then per key how far (ms) its bucket's
// theoretical arrival time is past now after the call, or -1 for a key not reached.
export const GCRA_BATCH_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
local k = 0
local a = 2
for _ = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[a])
  local interval = tonumber(ARGV[a + 1])
  local limit = interval * tonumber(ARGV[a + 2])
  local charge = ARGV[a + 3] == '1'
  a = a + 4
  local allowed, retry = 1, 0
  local ahead = {}
  for i = 1, n do
    ahead[i] = -1
    if allowed == 1 or charge then
      local key = KEYS[k + i]
      local tat = math.max(tonumber(redis.call('GET', key) or now), now)
      local excess = tat + interval - now - limit
      if excess > 0 and allowed == 1 then
        allowed, retry = 0, math.ceil(excess)
      end
      if excess <= 0 or charge then
        tat = tat + interval
        redis.call('SET', key, tat, 'PX', math.ceil(math.max(limit, tat - now)))
      end
      ahead[i] = math.ceil(tat - now)
    end
  end
  out[#out + 1] = allowed
  out[#out + 1] = retry
  for i = 1, n do out[#out + 1] = ahead[i] end
  k = k + n
end
return out
`;

/** A Lua script run by its SHA-1 (EVALSHA: the text is sent once, not with every call), loaded again when Redis lost it. */
export function luaScript(redis: Redis, lua: string) {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (keys: string[], args: (string | number)[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
