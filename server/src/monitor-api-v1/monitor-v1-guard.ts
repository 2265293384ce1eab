/**
 * The Monitor API V1 guard: a bearer API key (the user's API key, the
 * same as the `{Brand}-Api-Key` of /v2), and its own limits: a leaky bucket of
 * MONITOR_V1_RATE_PER_SECOND with a burst of MONITOR_V1_BURST per client address and per
 * key; whoever passes it is then refused for MONITOR_V1_BLOCK_SECONDS. Both live in the
 * shared limiter (Redis when configured), so every instance agrees.
 */
import type { FastifyRequest } from 'fastify';
import type { Bucket, RateLimiter } from '../infra/rate-limiter';
import { AppError } from '../infra/errors';
import { hashToken } from '../infra/secrets';
import { API_KEY_PATTERN } from '../users/user-service';

export const V1_TOO_MANY_REQUESTS = 'Too Many Requests.';
export const V1_INVALID_CREDENTIALS = 'Invalid API credentials.';

export function v1TooManyRequests(retryAfterMs: number): AppError {
  return new AppError(429, 'TOO_MANY_REQUESTS', V1_TOO_MANY_REQUESTS, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
}

export function v1InvalidCredentials(): AppError {
  return new AppError(401, 'INVALID_API_CREDENTIALS', V1_INVALID_CREDENTIALS);
}

/** The key of `Authorization: Bearer KEY`, lower-cased (keys are lower-case hex), or undefined. */
export function bearerKey(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1]?.toLowerCase();
}

export function createMonitorV1Guard(deps: {
  /** The user behind a key, by the key's SHA-256 (hex), or undefined. */
  resolveKeyHash: (keyHash: string) => Promise<string | undefined>;
  limiter: RateLimiter;
  bucket: Bucket;
  blockSeconds: number;
}) {
  const { limiter } = deps;
  // A block is a bucket of one that drains in blockSeconds: taking it once refuses every
  // peek at it until then (see rate-limiter.ts: GCRA with burst 1).
  const block: Bucket = { ratePerSecond: 1 / deps.blockSeconds, burst: 1 };

  /** Counts the request against each subject's bucket; a subject that overflows is blocked. */
  async function limit(subjects: string[]): Promise<void> {
    for (const subject of subjects) {
      const blocked = await limiter.take(`${subject}:block`, block, { peek: true });
      if (!blocked.allowed) throw v1TooManyRequests(blocked.retryAfterMs);
    }
    for (const subject of subjects) {
      const decision = await limiter.take(subject, deps.bucket);
      if (!decision.allowed) {
        await limiter.take(`${subject}:block`, block);
        throw v1TooManyRequests(deps.blockSeconds * 1000);
      }
    }
  }

  /** The caller's user id, or throws 429 / 401. */
  return async function authenticate(request: FastifyRequest): Promise<string> {
    const key = bearerKey(request);
    // Buckets are named by the key's hash: the key itself is kept nowhere.
    const keyHash = key ? hashToken(key.slice(0, 64)) : '-';
    // The key's bucket first: one client that floods fills both, and it is its key that is blocked.
    await limit([`monitor-v1:key:${keyHash}`, `monitor-v1:ip:${request.limitAddress}`]);
    const userId = key && API_KEY_PATTERN.test(key) ? await deps.resolveKeyHash(keyHash) : undefined;
    if (!userId) throw v1InvalidCredentials();
    return userId;
  };
}
