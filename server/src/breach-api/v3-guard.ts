/**
 * The guard of the Breach API v3's keyed calls (docs/api-compatibility.md, "Breach API v3"):
 * the key in the `hibp-api-key` header is the account's /v2 API key, checked and limited by
 * the /v2 machinery (auth/api-key-service.ts: the same leaky buckets per client address, key
 * and account, API_RATE_PER_SECOND and API_RATE_BURST, so one key has one budget for both
 * APIs), then the service's other conditions: a `user-agent` header and an account with a
 * search subscription. Its refusals are the service's codes and texts; the context's error
 * handler (breach-api-plugin.ts) answers them as `{statusCode, message}`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../infra/rate-limiter';
import { AppError } from '../infra/errors';
import { createApiKeyGuard } from '../auth/api-key-service';
import { API_KEY_PATTERN } from '../users/user-service';
import { searchActive } from '../common/plan-status';

/** The service's key header (header names are case-insensitive). */
export const V3_KEY_HEADER = 'hibp-api-key';

export const V3_MESSAGES = {
  missingKey: 'Access denied due to missing hibp-api-key.',
  malformedKey: 'Access denied due to improperly formed hibp-api-key.',
  invalidKey: 'Access denied due to invalid hibp-api-key.',
  noUserAgent: 'Forbidden - no user agent has been specified in the request.',
  noSubscription: 'Access denied: the account of this hibp-api-key has no active search subscription.',
} as const;

/** 429 as the service words it, `retry-after` in whole seconds (rounded up, at least 1). */
export function v3RateLimited(retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(429, 'TOO_MANY_REQUESTS', `Rate limit is exceeded. Try again in ${seconds} seconds.`, { 'retry-after': String(seconds) });
}

export function v3NoSubscription(): AppError {
  return new AppError(401, 'UNAUTHORIZED', V3_MESSAGES.noSubscription);
}

/**
 * A refusal of the /v2 machinery (or of a search's admission) in the service's words: a
 * 429 keeps its `retry-after`; anything else is returned as it is.
 */
export function asV3Refusal(error: unknown): unknown {
  if (!(error instanceof AppError) || error.statusCode !== 429) return error;
  return v3RateLimited(Number(error.headers['retry-after'] ?? 1));
}

function keyRefusal(request: FastifyRequest): AppError {
  const raw = request.headers[V3_KEY_HEADER];
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!key) return new AppError(401, 'UNAUTHORIZED', V3_MESSAGES.missingKey);
  if (!API_KEY_PATTERN.test(key.toLowerCase())) return new AppError(401, 'UNAUTHORIZED', V3_MESSAGES.malformedKey);
  return new AppError(401, 'UNAUTHORIZED', V3_MESSAGES.invalidKey);
}

export function createV3Guard(deps: { apiKeys: FastifyInstance['apiKeys']; meter: FastifyInstance['searchMeter']; limiter: RateLimiter; bucket: { ratePerSecond: number; burst: number } }) {
  const authenticateApiKey = createApiKeyGuard({
    resolveKeyHash: deps.apiKeys.userIdFor,
    knownKeyHash: deps.apiKeys.known,
    limiter: deps.limiter,
    header: V3_KEY_HEADER,
    bucket: deps.bucket,
  });

  /** The caller's account, or throws the service's 401, 403 or 429. */
  return async function guard(request: FastifyRequest): Promise<string> {
    let userId: string;
    try {
      userId = await authenticateApiKey(request);
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_API_KEY') throw keyRefusal(request);
      throw asV3Refusal(error);
    }
    if (!request.headers['user-agent']?.trim()) throw new AppError(403, 'FORBIDDEN', V3_MESSAGES.noUserAgent);
    // The meter's snapshot (in process while fresh): each call's admission checks it again.
    const account = await deps.meter.account(userId);
    if (!account || !searchActive(account.snapshot)) throw v3NoSubscription();
    return userId;
  };
}
