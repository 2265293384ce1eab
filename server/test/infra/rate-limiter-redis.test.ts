// The shared (Redis) limiter's batched takes and its early answers (the /v2/search guard
// does not wait for Redis while a key's buckets are far from empty), against a real
// Redis: the limits stay exact on one instance, and bounded with two.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createRedisRateLimiter, type RateLimiter } from '../../src/infra/rate-limiter';

const redisUrl = process.env.TEST_REDIS_URL;

/** Two limiters on two connections sharing a fresh key prefix; the keys are removed afterwards. */
async function withLimiters(run: (first: RateLimiter, second: RateLimiter, redis: Redis, prefix: string) => Promise<void>) {
  const a = new Redis(redisUrl!);
  const b = new Redis(redisUrl!);
  const prefix = `lwtest:rl-early:${process.pid}:${Date.now()}:`;
  try {
    await run(createRedisRateLimiter(a, prefix), createRedisRateLimiter(b, prefix), a, prefix);
  } finally {
    const keys = await a.keys(`${prefix}*`);
    if (keys.length) await a.del(...keys);
    a.disconnect();
    b.disconnect();
  }
}

/** How far (s) a bucket's theoretical arrival time is past Redis's clock: takes × interval, less what drained. */
async function secondsAhead(redis: Redis, key: string): Promise<number> {
  const [seconds, micros] = await redis.time();
  return (Number(await redis.get(key)) - (Number(seconds) * 1000 + Number(micros) / 1000)) / 1000;
}

/** Settles when the microtasks queued now have run, before any I/O (so before a Redis answer). */
const microtasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('shared rate limiter (Redis)', { skip: !redisUrl && 'TEST_REDIS_URL not set' }, () => {
  test('takes sent at the same moment are batched and judged exactly, each stopping at its first refusal', async () => {
    await withLimiters(async (limiter, _other, redis, prefix) => {
      const bucket = { ratePerSecond: 1, burst: 4 };
      // Six calls in one moment on two buckets; the third bucket is only reached while the first passes.
      const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.takeEach(['a', 'b'], bucket)));
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, true, true, false, false],
      );
      assert.ok(decisions[4]!.retryAfterMs > 0 && decisions[4]!.retryAfterMs <= 1000);
      // 'b' was not taken by the refused calls (they stopped at 'a').
      const ahead = await secondsAhead(redis, `${prefix}b`);
      assert.ok(ahead > 3 && ahead <= 4, `b holds four takes (${ahead} s)`);
    });
  });

  test('answerEarly answers without waiting while the buckets are far from empty, and stays exact on one instance', async () => {
    await withLimiters(async (limiter) => {
      const bucket = { ratePerSecond: 1, burst: 10 };
      // Nothing known about the bucket yet: the first take waits for Redis.
      let settled = false;
      const first = limiter.takeEach(['k'], bucket, { answerEarly: true }).then((d) => ((settled = true), d));
      await microtasks();
      assert.equal(settled, false, 'an unknown bucket is asked');
      assert.equal((await first).allowed, true);
      // Now known with 9 left: answered at once, before Redis could have.
      settled = false;
      const early = limiter.takeEach(['k'], bucket, { answerEarly: true }).then((d) => ((settled = true), d));
      await microtasks();
      assert.equal(settled, true, 'answered early');
      assert.equal((await early).allowed, true);
      // Thirty more at once: exactly the eight left pass (the process's own takes in flight count), never more.
      const rest = await Promise.all(Array.from({ length: 30 }, () => limiter.takeEach(['k'], bucket, { answerEarly: true })));
      assert.equal(rest.filter((d) => d.allowed).length, 8);
      assert.ok(rest.filter((d) => !d.allowed).every((d) => d.retryAfterMs > 0));
    });
  });

  test('two instances: a bucket emptied by the other lets through at most one round trip more, counted and paid back', async () => {
    await withLimiters(async (first, second, redis, prefix) => {
      const bucket = { ratePerSecond: 1, burst: 10 };
      assert.equal((await first.takeEach(['k'], bucket, { answerEarly: true })).allowed, true);
      // The other instance empties the bucket; the first does not know yet.
      const others = await Promise.all(Array.from({ length: 9 }, () => second.takeEach(['k'], bucket)));
      assert.ok(others.every((d) => d.allowed));
      // Its early answer lets one more through, and Redis counts it (11 takes: 11 s ahead).
      assert.equal((await first.takeEach(['k'], bucket, { answerEarly: true })).allowed, true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ahead = await secondsAhead(redis, `${prefix}k`);
      assert.ok(ahead > 10 && ahead <= 11, `the early take is counted over the limit (${ahead} s ahead)`);
      // Told by that answer, the first instance waits for Redis again and is refused, as is the other.
      const after = await first.takeEach(['k'], bucket, { answerEarly: true });
      assert.equal(after.allowed, false);
      assert.ok(after.retryAfterMs > 1000, 'the extra take is paid back before the next passes');
      assert.equal((await second.takeEach(['k'], bucket)).allowed, false);
    });
  });
});
