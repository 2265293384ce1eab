/**
 * Leaky-bucket limiter in its GCRA form (a "theoretical arrival time" per key).
 * A bucket of `burst` requests drains at `ratePerSecond`. State lives in Redis when
 * configured, so every instance shares one limit; in process memory otherwise.
 */
import type { Redis } from 'ioredis';
import type { Bucket, Decision } from './rate-limit-bucket';
import { GCRA_BATCH_SCRIPT, GCRA_SCRIPT, luaScript } from './rate-limit-scripts';
import { dropDrained, farFromEmpty, notePending, type BucketViews } from './rate-limit-views';
import { sendBatch, type Call } from './rate-limit-batch';

export type { Bucket, Decision } from './rate-limit-bucket';

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

/** The answer to a take nobody waits for (answerEarly). */
const ignore = () => {};

export function createRedisRateLimiter(redis: Redis, prefix = 'rl:', now: () => number = Date.now): RateLimiter {
  const takeOne = luaScript(redis, GCRA_SCRIPT);
  const takeBatch = luaScript(redis, GCRA_BATCH_SCRIPT);
  const views: BucketViews = new Map();
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
    sendBatch(takeBatch, prefix, calls, views, now);
  }

  function enqueue(keys: string[], bucket: Bucket, charge: boolean): Promise<Decision> {
    const t = now();
    if (t > sweepAt) {
      dropDrained(views, t);
      sweepAt = t + 60_000;
    }
    notePending(views, keys);
    schedule(charge);
    return new Promise((resolve, reject) => queued.push({ keys, bucket, charge, resolve, reject }));
  }

  /** A take waited for goes at the end of this turn; one already let through within EARLY_FLUSH_MS. */
  function schedule(letThrough: boolean) {
    if (!letThrough) turnEnd ??= setImmediate(flush);
    else if (!turnEnd && !shortly) shortly = setTimeout(flush, EARLY_FLUSH_MS);
  }

  /**
   * The early answer: let through now, and counted in Redis all the same (even if other
   * instances emptied the bucket meanwhile: the debt is paid by the requests that follow);
   * not waited for, so queued without a promise (its answer only updates the views).
   */
  function takeEarly(keys: string[], bucket: Bucket): boolean {
    if (!farFromEmpty(views, keys, bucket, now())) return false;
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
