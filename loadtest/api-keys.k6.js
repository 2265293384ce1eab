// Public API at the limit for many keys: every key at RATE requests per second, evenly
// spaced (iteration n uses key n mod keys, at keys × RATE iterations per second), on
// POST /v2/search with an exact query. Expect zero 429, zero 5xx, keys × RATE req/s.
//
//   k6 run -e BASE_URL=http://127.0.0.1:3000 -e FIXTURES=/tmp/lw-k6/fixtures.json loadtest/api-keys.k6.js
//   (KEYS=n uses the first n keys of the fixtures; DURATION_S, RATE as in k6/common.js)
import http from 'k6/http';
import exec from 'k6/execution';
import { BASE_URL, DURATION_S, RATE, address, fixtures, tally } from './k6/common.js';

const keys = fixtures.keys.slice(0, Number(__ENV.KEYS || fixtures.keys.length));
const target = keys.length * RATE;

export const options = {
  scenarios: {
    api_keys: {
      executor: 'constant-arrival-rate',
      rate: target,
      timeUnit: '1s',
      duration: `${DURATION_S}s`,
      preAllocatedVUs: Math.max(10, Math.ceil(target / 10)),
      maxVUs: Math.max(50, target),
    },
  },
  thresholds: {
    answers_429: ['count==0'],
    answers_4xx_other: ['count==0'],
    answers_5xx: ['count==0'],
    // Sustained: all keys together at their limit (10% for the load generator's own slack).
    answers_2xx: [`rate>=${0.9 * target}`],
    http_req_duration: ['p(99)<1000'],
  },
};

export default function () {
  const n = exec.scenario.iterationInTest % keys.length;
  const res = http.post(`${BASE_URL}/v2/search`, JSON.stringify({ query: fixtures.query, size: 20 }), {
    headers: { 'Content-Type': 'application/json', [fixtures.apiKeyHeader]: keys[n], 'X-Forwarded-For': address(1, n) },
  });
  tally(res);
}
