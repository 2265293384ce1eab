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

/**
 * The shared limiter in Redis, failing safe: while Redis is not connected, or a call fails
 * or takes longer than `timeoutMs`, the same buckets are kept in this process's memory.
 * Limits keep applying (per instance rather than shared) instead of every limited request
 * failing with a 500 or waiting for Redis; back in Redis once it answers again.
 */
export function createFailSafeRateLimiter(
  redis: Redis,
  prefix: string,
  options: { timeoutMs?: number; onFallback?: (reason: string) => void; onRecovered?: () => void } = {},
): RateLimiter {
  const shared = createRedisRateLimiter(redis, prefix);
  const local = createMemoryRateLimiter();
  const timeoutMs = options.timeoutMs ?? 500;
  let degraded = false;
  const fallBack = (reason: string) => {
    if (!degraded) options.onFallback?.(reason);
    degraded = true;
  };
  async function run<T>(call: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    if (redis.status !== 'ready') {
      fallBack(`Redis ${redis.status}`);
      return call(local);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      });
      const result = await Promise.race([call(shared), timeout]);
      if (degraded) options.onRecovered?.();
      degraded = false;
      return result;
    } catch (error) {
      fallBack((error as Error).message);
      return call(local);
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    take: (key, bucket, takeOptions) => run((limiter) => limiter.take(key, bucket, takeOptions)),
    takeEach: (keys, bucket) => run((limiter) => limiter.takeEach(keys, bucket)),
    async reset(key) {
      await local.reset(key);
      await run((limiter) => limiter.reset(key));
    },
  };
}
