/**
 * Leaky-bucket limiter in its GCRA form (a "theoretical arrival time" per key).
 * A bucket of `burst` requests drains at `ratePerSecond`. State lives in Redis when
 * configured, so every instance shares one limit; in process memory otherwise.
 */
import { createHash } from 'node:crypto';
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
  /**
   * Takes from each bucket in turn and stops at the first that refuses; one round trip in
   * Redis (shared with the other calls of the same moment). With `answerEarly`, a shared
   * limiter may let the request through without waiting for Redis when, by Redis's last
   * answer about these buckets (at most a second old) and this process's own takes since,
   * every bucket keeps at least half its burst after this one; the take is still counted
   * in Redis, even over the limit. Exact on one instance; with several, a bucket emptied
   * by the others lets through at most what this instance sends in one Redis round trip
   * more, paid back by the requests that follow (the buckets stay counted).
   */
  takeEach(keys: string[], bucket: Bucket, options?: { answerEarly?: boolean }): Promise<Decision>;
  /**
   * `takeEach` with `answerEarly` when the answer is known at once, without a promise: true
   * when the request is let through now (and its takes counted as `takeEach` counts them);
   * false, having taken nothing, when the caller must ask `takeEach` (which may refuse). The
   * hot path of the public API guard (one per request).
   */
  takeEarly?(keys: string[], bucket: Bucket): boolean;
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
  const sweep = (t: number) => {
    if (t > sweepAt) {
      // Drop drained buckets now and then so memory stays bounded by active keys.
      for (const [k, tat] of tats) if (tat < t) tats.delete(k);
      sweepAt = t + 60_000;
    }
  };
  const limiter: RateLimiter = {
    takeEarly(keys, bucket) {
      // Only when every bucket lets it through: then the takes are exactly takeEach's.
      const t = now();
      sweep(t);
      for (const key of keys) if (!decide(tats.get(key) ?? t, t, bucket).allowed) return false;
      for (const key of keys) tats.set(key, decide(tats.get(key) ?? t, t, bucket).newTat);
      return true;
    },
    async takeEach(keys, bucket) {
      for (const key of keys) {
        const decision = await limiter.take(key, bucket);
        if (!decision.allowed) return decision;
      }
      return { allowed: true, retryAfterMs: 0 };
    },
    async take(key, bucket, options = {}) {
      const t = now();
      sweep(t);
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

// Several takeEach calls at once (one round trip for all the calls of a moment). KEYS = the
// calls' bucket keys one after the other; ARGV[1] = number of calls, then per call: its
// number of keys, interval ms, burst, and 1 to count every bucket even over its limit (a
// request already let through: see answerEarly) or 0 to stop at the first refusal. Answers
// per call: allowed (0/1), retry after ms, then per key how far (ms) its bucket's
// theoretical arrival time is past now after the call, or -1 for a key not reached.
const GCRA_BATCH_SCRIPT = `
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
function luaScript(redis: Redis, lua: string) {
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

/** This process's view of one shared bucket, for answerEarly. */
interface LocalView {
  /** The bucket's theoretical arrival time (local clock, ms) as of Redis's last answer, read late (so never earlier than it is). */
  tat: number;
  /** When that answer came (local clock, ms). */
  seenAt: number;
  /** This process's takes from the bucket sent (or about to be) and not answered yet. */
  pending: number;
}

/** How old Redis's last word on a bucket may be for answerEarly to rely on it. */
const EARLY_VIEW_MS = 1000;

/**
 * Takes already let through (answerEarly) wait at most this long to be sent with the next
 * ones: nobody waits for their answer, and at thousands of requests a second one script
 * call per turn of the event loop was the biggest cost of a /v2 request after writing its
 * reply (loadtest/README.md). A take that is waited for is sent at the end of the turn, with
 * every take queued by then. 5 ms rather than 2: fewer, larger script calls (at 15k requests
 * a second, 75 takes a call instead of 30), and other instances see these takes 3 ms later,
 * nothing against buckets of 10 a second.
 */
const EARLY_FLUSH_MS = 5;

interface Call {
  keys: string[];
  bucket: Bucket;
  /** Count every bucket even over its limit: the request was already let through. */
  charge: boolean;
  resolve: (decision: Decision) => void;
  reject: (error: unknown) => void;
}

/** The answer to a take nobody waits for (answerEarly). */
const ignore = () => {};

export function createRedisRateLimiter(redis: Redis, prefix = 'rl:', now: () => number = Date.now): RateLimiter {
  const takeOne = luaScript(redis, GCRA_SCRIPT);
  const takeBatch = luaScript(redis, GCRA_BATCH_SCRIPT);
  const views = new Map<string, LocalView>();
  let sweepAt = 0;
  let queued: Call[] = [];
  let turnEnd: NodeJS.Immediate | undefined;
  let shortly: NodeJS.Timeout | undefined;

  /** Every takeEach queued (see `schedule`) in one script call: one round trip, one write. */
  function flush() {
    if (turnEnd) clearImmediate(turnEnd);
    if (shortly) clearTimeout(shortly);
    turnEnd = shortly = undefined;
    const calls = queued;
    queued = [];
    const keys: string[] = [];
    const args: (string | number)[] = [calls.length];
    for (const call of calls) {
      for (const key of call.keys) keys.push(prefix + key);
      args.push(call.keys.length, 1000 / call.bucket.ratePerSecond, call.bucket.burst, call.charge ? 1 : 0);
    }
    takeBatch(keys, args).then(
      (answer) => {
        const values = answer as number[];
        const seenAt = now();
        let at = 0;
        for (const call of calls) {
          const allowed = values[at] === 1;
          const retryAfterMs = values[at + 1]!;
          call.keys.forEach((key, i) => see(key, values[at + 2 + i]!, seenAt));
          at += 2 + call.keys.length;
          call.resolve({ allowed, retryAfterMs });
        }
      },
      (error: unknown) => {
        for (const call of calls) {
          for (const key of call.keys) see(key, -1, 0);
          call.reject(error);
        }
      },
    );
  }

  /** Redis answered a take of `key`: its bucket is `ahead` ms past now (-1: not reached, or no answer). */
  function see(key: string, ahead: number, seenAt: number) {
    const view = views.get(key);
    if (!view) return;
    view.pending--;
    if (ahead >= 0) {
      view.tat = seenAt + ahead;
      view.seenAt = seenAt;
    }
  }

  function enqueue(keys: string[], bucket: Bucket, charge: boolean): Promise<Decision> {
    const t = now();
    if (t > sweepAt) {
      // Drop drained buckets now and then so memory stays bounded by active keys.
      for (const [key, view] of views) if (view.pending === 0 && view.tat < t) views.delete(key);
      sweepAt = t + 60_000;
    }
    for (const key of keys) {
      let view = views.get(key);
      if (!view) views.set(key, (view = { tat: 0, seenAt: 0, pending: 0 }));
      view.pending++;
    }
    schedule(charge);
    return new Promise((resolve, reject) => queued.push({ keys, bucket, charge, resolve, reject }));
  }

  /** A take waited for goes at the end of this turn; one already let through within EARLY_FLUSH_MS. */
  function schedule(letThrough: boolean) {
    if (!letThrough) turnEnd ??= setImmediate(flush);
    else if (!turnEnd && !shortly) shortly = setTimeout(flush, EARLY_FLUSH_MS);
  }

  /**
   * Whether every bucket, as Redis last said (within EARLY_VIEW_MS) plus this process's
   * takes not answered yet plus this one, keeps at least half its burst.
   */
  function farFromEmpty(keys: string[], bucket: Bucket): boolean {
    const t = now();
    const interval = 1000 / bucket.ratePerSecond;
    const limit = interval * bucket.burst;
    for (const key of keys) {
      const view = views.get(key);
      if (!view || t - view.seenAt > EARLY_VIEW_MS) return false;
      if (Math.max(view.tat, t) + (view.pending + 1) * interval - t > limit / 2) return false;
    }
    return true;
  }

  /**
   * The early answer: let through now, and counted in Redis all the same (even if other
   * instances emptied the bucket meanwhile: the debt is paid by the requests that follow);
   * not waited for, so queued without a promise (its answer only updates the views).
   */
  function takeEarly(keys: string[], bucket: Bucket): boolean {
    if (!farFromEmpty(keys, bucket)) return false;
    for (const key of keys) views.get(key)!.pending++;
    schedule(true);
    queued.push({ keys, bucket, charge: true, resolve: ignore, reject: ignore });
    return true;
  }

  return {
    takeEarly,
    async takeEach(keys, bucket, options = {}) {
      if (options.answerEarly && takeEarly(keys, bucket)) return { allowed: true, retryAfterMs: 0 };
      return enqueue(keys, bucket, false);
    },
    async take(key, bucket, options = {}) {
      const [allowed, retryAfterMs] = (await takeOne([prefix + key], [1000 / bucket.ratePerSecond, bucket.burst, options.peek ? '1' : '0'])) as [number, number];
      return { allowed: allowed === 1, retryAfterMs };
    },
    async reset(key) {
      views.delete(key);
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
    // No Redis call to wait for (nor to time out): the early answer of the shared limiter
    // while Redis is connected, else the local one's.
    takeEarly(keys, bucket) {
      if (redis.status !== 'ready') {
        fallBack(`Redis ${redis.status}`);
        return local.takeEarly!(keys, bucket);
      }
      if (!shared.takeEarly!(keys, bucket)) return false;
      if (degraded) options.onRecovered?.();
      degraded = false;
      return true;
    },
    take: (key, bucket, takeOptions) => run((limiter) => limiter.take(key, bucket, takeOptions)),
    takeEach: (keys, bucket, takeOptions) => run((limiter) => limiter.takeEach(keys, bucket, takeOptions)),
    async reset(key) {
      await local.reset(key);
      await run((limiter) => limiter.reset(key));
    },
  };
}
