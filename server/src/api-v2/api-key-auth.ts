/**
 * Public API guard: the `{Brand}-Api-Key` header (header names are case-insensitive) and
 * the leaky-bucket limit of 10 requests per second per client address and per
 * credential, shared by every instance through Redis when it is configured. It runs as the
 * `onRequest` hook of the /v2 plugin (v2-routes.ts), so every /v2 route has it.
 */
import type { FastifyRequest } from 'fastify';
import type { Bucket, RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { hashToken } from '../auth/secrets';
import { API_KEY_PATTERN } from '../users/user-service';

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
    // Buckets are named by the key's hash: the key itself is kept nowhere, Redis included.
    const keyHash = key ? hashToken(key.slice(0, 64)) : '-';
    const valid = key !== undefined && API_KEY_PATTERN.test(key);
    // A key known in process: its three buckets in one limiter call (one Redis round trip),
    // not waited for while they are far from empty (answerEarly, see RateLimiter.takeEach).
    const known = valid ? deps.knownKeyHash?.(keyHash) : undefined;
    if (known) {
      const keys = [`api:ip:${request.limitAddress}`, `api:key:${keyHash}`, `api:user:${known}`];
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
