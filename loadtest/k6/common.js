// Shared by the *.k6.js scenarios: the fixtures file, client addresses, and counters of
// answers by status class (each counter gets a sample on every answer, so a `count==0`
// threshold is judged even when nothing went wrong).
/* global open, __ENV */
import { Counter } from 'k6/metrics';

/**
 * The fixtures: `{ apiKeyHeader, query, rate, burst, keys: [...], oneKey, users: [{ email,
 * password }], emails: [...] }`. `npm run loadtest -- --scenario serve` writes one for the
 * server it starts; against another deployment, write your own (test accounts with credits
 * only). An absolute path: k6 versions differ on what a relative one is relative to.
 */
if (!__ENV.FIXTURES) throw new Error('set -e FIXTURES=/absolute/path/to/fixtures.json (npm run loadtest -- --scenario serve writes one)');
export const fixtures = JSON.parse(open(__ENV.FIXTURES));
export const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:3000';
/** The public API's leaky bucket (API_RATE_PER_SECOND, API_RATE_BURST on the server). */
export const RATE = Number(__ENV.RATE || fixtures.rate || 10);
export const BURST = Number(__ENV.BURST || fixtures.burst || 10);
export const DURATION_S = Number(__ENV.DURATION_S || 15);

/**
 * A client address for X-Forwarded-For (10.<block>.x.y). The server uses it only when the
 * load generator's address is in its TRUSTED_PROXIES; otherwise every request counts
 * against the generator's one address and its 10 req/s, and the scenarios fail.
 */
export function address(block, n) {
  return `10.${block}.${(n >> 8) & 255}.${n & 255}`;
}

export const answered2xx = new Counter('answers_2xx');
export const answered429 = new Counter('answers_429');
export const answered4xx = new Counter('answers_4xx_other');
export const answered5xx = new Counter('answers_5xx');
export const missingRetryAfter = new Counter('answers_429_without_retry_after');

export function tally(res) {
  const s = res.status;
  answered2xx.add(s >= 200 && s < 300 ? 1 : 0);
  answered429.add(s === 429 ? 1 : 0);
  answered4xx.add(s >= 400 && s < 500 && s !== 429 ? 1 : 0);
  // Status 0 is a transport error (refused, reset, timed out): counted with the 5xx.
  answered5xx.add(s >= 500 || s === 0 ? 1 : 0);
  // k6 gives response headers in canonical form.
  missingRetryAfter.add(s === 429 && !/^[1-9][0-9]*$/.test(res.headers['Retry-After'] || '') ? 1 : 0);
}
