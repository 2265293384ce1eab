/**
 * Leaky-bucket limiter in its GCRA form (a "theoretical arrival time" per key).
 * A bucket of `burst` requests drains at `ratePerSecond`. State lives in Redis when
 * configured, so every instance shares one limit; in process memory otherwise.
 */
import type { Redis } from 'ioredis';

export interface Bucket {
  ratePerSecond: number;
  burst: number;
}

export interface Decision {
  allowed: boolean;
  /** When not allowed: how long until one more request would pass. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts one request against the bucket (unless `peek`) and says whether it may pass. */
  take(key: string, bucket: Bucket, options?: { peek?: boolean }): Promise<Decision>;
  /** Takes from each bucket in turn and stops at the first that refuses; one round trip in Redis. */
  takeEach(keys: string[], bucket: Bucket): Promise<Decision>;
  /** Forgets a key (e.g. failures after a successful login). */
  reset(key: string): Promise<void>;
}

function decide(tat: number, now: number, bucket: Bucket) {
  const interval = 1000 / bucket.ratePerSecond;
  const limit = interval * bucket.burst;
  const newTat = Math.max(tat, now) + interval;
  const excess = newTat - now - limit;
  return excess > 0 ? { allowed: false, retryAfterMs: excess, newTat: tat, ttl: limit } : { allowed: true, retryAfterMs: 0, newTat, ttl: limit };
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const tats = new Map<string, number>();
  let sweepAt = 0;
  const limiter: RateLimiter = {
    async takeEach(keys, bucket) {
      for (const key of keys) {
        const decision = await limiter.take(key, bucket);
        if (!decision.allowed) return decision;
      }
      return { allowed: true, retryAfterMs: 0 };
    },
    async take(key, bucket, options = {}) {
      const t = now();
      if (t > sweepAt) {
        // Drop drained buckets now and then so memory stays bounded by active keys.
        for (const [k, tat] of tats) if (tat < t) tats.delete(k);
        sweepAt = t + 60_000;
      }
      const result = decide(tats.get(key) ?? t, t, bucket);
      if (result.allowed && !options.peek) tats.set(key, result.newTat);
      return { allowed: result.allowed, retryAfterMs: result.retryAfterMs };
    },
    async reset(key) {
      tats.delete(key);
    },
  };
  return limiter;
}

// KEYS[1] = bucket key; ARGV = interval ms, burst, peek (0/1). Uses the Redis clock so
// instances with skewed clocks still share one limit.
const GCRA_SCRIPT = `
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

// KEYS = bucket keys, taken in turn; ARGV = interval ms, burst. Stops at the first refusal.
const GCRA_EACH_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local limit = interval * tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key) or now)
  local newTat = math.max(tat, now) + interval
  local excess = newTat - now - limit
  if excess > 0 then return {0, math.ceil(excess)} end
  redis.call('SET', key, newTat, 'PX', math.ceil(limit))
end
return {1, 0}
`;

export function createRedisRateLimiter(redis: Redis, prefix = 'rl:'): RateLimiter {
  return {
    async takeEach(keys, bucket) {
      const [allowed, retryAfterMs] = (await redis.eval(
        GCRA_EACH_SCRIPT,
        keys.length,
        ...keys.map((key) => prefix + key),
        String(1000 / bucket.ratePerSecond),
        String(bucket.burst),
      )) as [number, number];
      return { allowed: allowed === 1, retryAfterMs };
    },
    async take(key, bucket, options = {}) {
      const [allowed, retryAfterMs] = (await redis.eval(
        GCRA_SCRIPT,
        1,
        prefix + key,
        String(1000 / bucket.ratePerSecond),
        String(bucket.burst),
        options.peek ? '1' : '0',
      )) as [number, number];
      return { allowed: allowed === 1, retryAfterMs };
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
  };
}
