/**
 * Public API guard: the `{Brand}-Api-Key` header (header names are case-insensitive) and
 * the leaky-bucket limit of 10 requests per second per client address and per
 * credential, shared by every instance through Redis when it is configured. It runs as the
 * `onRequest` hook of every /v2 context (api-v2-plugin.ts, `app.v2Routes`), so every /v2 route has it.
 */
import type { FastifyRequest } from 'fastify';
import type { Bucket, RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { hashToken } from '../infra/secrets';
import { API_KEY_PATTERN } from '../users/user-service';

/** Keys remembered with their hashes (`recent` in createApiKeyGuard), at most. */
const RECENT_KEYS = 10_000;

export function createApiKeyGuard(deps: {
  /** The user behind a key, by the key's SHA-256 (hex), or undefined. */
  resolveKeyHash: (keyHash: string) => Promise<string | undefined>;
  /** The same when it is known in process right now, without a query; else undefined. */
  knownKeyHash?: (keyHash: string) => string | undefined;
  limiter: RateLimiter;
  header: string;
  bucket: Bucket;
}) {
  const headerName = deps.header.toLowerCase();
  /**
   * Keys that authenticated lately, to their SHA-256 and bucket names: a key's hash is
   * computed once, not on each of its requests. It only names the key: whether the hash
   * still opens an account is asked of `knownKeyHash` on every request (a replaced or
   * revoked key, a closed account stop working as before, see search-meter.ts). Only keys
   * that opened an account get in (guessed keys cannot churn it); bounded, emptied when full.
   * The keys are kept in this process's memory only, never in logs or Redis.
   */
  const recent = new Map<string, { keyHash: string; keyBucket: string; userId: string; userBucket: string }>();
  async function limit(keys: string[], answerEarly = false) {
    const decision = await deps.limiter.takeEach(keys, deps.bucket, { answerEarly });
    if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  }
  /**
   * Resolves the caller's user id, or throws 400 (bad key) / 429 (rate). Answers at once,
   * without a promise, when the key is known in process and its buckets are far from empty
   * (the hot path: one call per public API request); otherwise a promise.
   */
  return function authenticateApiKey(request: FastifyRequest): string | Promise<string> {
    const raw = request.headers[headerName];
    const key = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
    let seen = key === undefined ? undefined : recent.get(key);
    // Buckets are named by the key's hash: the key itself is kept out of Redis.
    const keyHash = seen ? seen.keyHash : key ? hashToken(key.slice(0, 64)) : '-';
    const valid = seen !== undefined || (key !== undefined && API_KEY_PATTERN.test(key));
    // A key known in process: its three buckets in one limiter call (one Redis round trip),
    // not waited for while they are far from empty (answerEarly, see RateLimiter.takeEach).
    const known = valid ? deps.knownKeyHash?.(keyHash) : undefined;
    if (known) {
      if (seen?.userId !== known) {
        if (recent.size >= RECENT_KEYS) recent.clear();
        seen = { keyHash, keyBucket: `api:key:${keyHash}`, userId: known, userBucket: `api:user:${known}` };
        recent.set(key!, seen);
      }
      const keys = [`api:ip:${request.limitAddress}`, seen.keyBucket, seen.userBucket];
      if (deps.limiter.takeEarly?.(keys, deps.bucket)) return known;
      return limit(keys, true).then(() => known);
    }
    return unknownKey(request, keyHash, valid);
  };

  /** A missing or unknown key still counts against its own bucket before any query, so guessing is slow. */
  async function unknownKey(request: FastifyRequest, keyHash: string, valid: boolean): Promise<string> {
    await limit([`api:ip:${request.limitAddress}`, `api:key:${keyHash}`]);
    const userId = valid ? await deps.resolveKeyHash(keyHash) : undefined;
    if (!userId) throw Errors.invalidApiKey(deps.header);
    await limit([`api:user:${userId}`]);
    return userId;
  }
}
